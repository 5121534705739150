"""cocotb tests of roofline_counts: the bench roofline_bench.counts, on the design's real ports."""

from roofline_cocotb.dut import cocotb_tests

cocotb_tests("roofline_counts", globals())
