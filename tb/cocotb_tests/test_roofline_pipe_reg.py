"""cocotb tests of roofline_pipe_reg: its unit bench roofline_bench.pipe_reg, on the design's real ports."""

from roofline_cocotb.dut import unit_tests

unit_tests("roofline_pipe_reg", globals())
