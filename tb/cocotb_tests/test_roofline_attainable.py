"""cocotb tests of roofline_attainable: the bench roofline_bench.attainable, on the design's real ports."""

from roofline_cocotb.dut import cocotb_tests

cocotb_tests("roofline_attainable", globals())
