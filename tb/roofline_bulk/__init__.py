"""roofline_bulk: bulk sweeps, millions of vectors streamed through the RTL and checked with numpy.

- `stimulus`: seeded vectors in blocks (random, exhaustive, shards), straight into numpy arrays.
- `config`: one sweep's settings (`SweepConfig`), carried into the simulator by the environment.
- `wire`: the file layout the bulk testbench (tb/bulk) reads and writes.
- `check`: results against the vectorized golden model, an independent error bound, coverage.
- `replay`: every failing vector kept in a file that `make sweep REPLAY=` runs again.
- `helper`: the helper process that prepares and checks batches while the simulator runs.
- `sweep`: the `make sweep` / `make exhaustive` command line.

No module here imports cocotb: the cocotb side is tb/bulk/test_roofline_bulk.py.
"""
