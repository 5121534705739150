"""cocotb tests of roofline_hierarchy_pipe: the bench roofline_bench.pipe, on the design's real ports."""

from roofline_cocotb.dut import cocotb_tests

cocotb_tests("roofline_hierarchy_pipe", globals())
