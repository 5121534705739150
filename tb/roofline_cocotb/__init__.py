"""roofline_cocotb: the cocotb adapter, the benches of roofline_bench on a design's real ports.

- `dut`: a design's ports as a bench's `Ports`, and the cocotb tests made from a bench's TESTS (and
  from a building block's unit bench).
- `signals`: reading outputs, where an X or Z is a failure that names the signal.
- `puppet`: a design's ports worked from another process (the grader's `roofline_bench.remote`),
  with no bench, stimulus or model in the simulation.
- `sim`: the `make sim` command line (the builds and runs are roofline_core.runner's).

The cocotb test modules themselves are tb/cocotb_tests/test_<module>.py, five lines each.
"""
