"""cocotb tests of roofline_intensity: the bench roofline_bench.intensity, on the design's real ports."""

from roofline_cocotb.dut import cocotb_tests

cocotb_tests("roofline_intensity", globals())
