"""roofline_bulk: bulk sweeps, millions of vectors streamed through the RTL and checked with numpy.

- `stimulus`: seeded vectors in blocks (random, exhaustive, shards), straight into numpy arrays.
- `kernel`: the C kernel that makes a random block (stimulus_kernel.c), compiled once and loaded.
- `config`: one sweep's settings (`SweepConfig`), carried into the simulator by the environment.
- `beats`: the file layout the bulk testbench (tb/hdl/roofline_bulk_tb.sv) reads and writes.
- `check`: results against the vectorized golden model, an independent error bound, coverage.
- `replay`: every failing vector kept in a file that `make sweep REPLAY=` runs again.
- `pipeline`: the helper processes that prepare and check batches while the simulator runs.
- `simulation`: the bulk testbench's build for one sweep, and one run of it.
- `cluster`: sweeps on Dask, a shard a task.
- `summary`: what `make sweep` prints.
- `sweep`: the `make sweep` / `make exhaustive` command line.

No module here imports cocotb: the cocotb side is tb/cocotb_tests/test_roofline_bulk.py.
"""
