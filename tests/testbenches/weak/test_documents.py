"""A weak lab 6 testbench: the documents' kernels only, checked exactly, at whatever format the design has."""

from fractions import Fraction

import cocotb
from cocotb.triggers import Timer

KERNELS = [("100", "20", "0.5"), ("100", "20", "5"), ("100", "20", "20"), ("100", "20", "0.25"),
           ("100", "20", "0.8125"), ("100", "20", "11.98"), ("100", "20", "0.40625")]


@cocotb.test()
async def test_documents(dut):
    f = int(dut.FRAC_BITS.value)
    for peak, bw, ai in KERNELS:
        peak, bw, ai = (int(Fraction(text) * (1 << f) + Fraction(1, 2)) for text in (peak, bw, ai))
        dut.peak_i.value, dut.bw_i.value, dut.ai_i.value = peak, bw, ai
        await Timer(1, "ns")
        product = ai * bw
        memory_bound = product < peak << f
        expected = ((product + (1 << (f - 1))) >> f, 1) if memory_bound else (peak, 0)
        got = (dut.cap_o.value, dut.mem_bound_o.value)
        assert got[0].is_resolvable and got[1].is_resolvable, f"WEAK-MARKER X/Z at {peak:#x} {bw:#x} {ai:#x}"
        assert (int(got[0]), int(got[1])) == expected, f"WEAK-MARKER {peak:#x} {bw:#x} {ai:#x}: {got} != {expected}"
