"""cocotb tests of roofline_hierarchy: the bench roofline_bench.hierarchy, on the design's real ports."""

from roofline_cocotb.dut import cocotb_tests

cocotb_tests("roofline_hierarchy", globals())
