"""Lab 6 solution: a cocotb testbench for roofline_attainable, written from the contract alone.

Instructors only (make handout leaves this folder out). It reads the format from the design's
parameters, so it runs at any INT_BITS and FRAC_BITS; its expected values come from a model of
the contract written here (ten lines), never from the design; its vectors are the documents'
kernels, every edge the contract names, the corners of the 2W-bit product, and a seeded sweep
that lands on both roofs, the ridge and one step either side of it, and the rounding ties.
Every check compares both outputs exactly and says which vector failed.
"""

from __future__ import annotations

import random
from fractions import Fraction

import cocotb
from cocotb.triggers import Timer

# The documents' platform (peak 100 GFLOP/s, DRAM 20 GB/s) and kernels: (name, peak, bw, ai).
DOCUMENTS = [
    ("calculator check 1", "100", "20", "0.5"),
    ("calculator check 2: the ridge", "100", "20", "5"),
    ("calculator check 3", "100", "20", "20"),
    ("FP32 dot product", "100", "20", "0.25"),
    ("FP64 7-point stencil", "100", "20", "0.8125"),
    ("FP32 tiled GEMM, N = 512", "100", "20", str(Fraction(268_435_456, 22_413_312))),
    ("the stencil with its traffic doubled", "100", "20", "0.40625"),
]
SWEEP = 3000


class Format:
    """UQ(INT_BITS).(FRAC_BITS) as the design is built, and the contract's answer for one vector."""

    def __init__(self, dut) -> None:
        self.i, self.f = int(dut.INT_BITS.value), int(dut.FRAC_BITS.value)
        self.w = self.i + self.f
        self.max = (1 << self.w) - 1

    def raw(self, value: str) -> int:
        """A value in units, rounded to the nearest raw step (ties up)."""
        scaled = Fraction(value) * (1 << self.f)
        return min(self.max, int(scaled + Fraction(1, 2)))

    def expected(self, peak: int, bw: int, ai: int) -> tuple[int, int]:
        product = ai * bw  # full precision: 2W bits, 2F fraction bits
        if product < peak << self.f:  # at the ridge the compute roof binds
            return (product + (1 << (self.f - 1))) >> self.f, 1  # round to nearest, ties up
        return peak, 0


def bits(handle) -> int | None:
    """A port's value, or None when any bit is X or Z."""
    text = str(handle.value)
    return int(text, 2) if text and set(text) <= {"0", "1"} else None


async def check(dut, fmt: Format, peak: int, bw: int, ai: int, what: str) -> None:
    dut.peak_i.value, dut.bw_i.value, dut.ai_i.value = peak, bw, ai
    await Timer(1, "ns")
    cap, mem_bound = bits(dut.cap_o), bits(dut.mem_bound_o)
    want_cap, want_mem_bound = fmt.expected(peak, bw, ai)
    assert (cap, mem_bound) == (want_cap, want_mem_bound), (
        f"{what}: peak {peak:#x} bw {bw:#x} ai {ai:#x} (UQ{fmt.i}.{fmt.f}): expected cap {want_cap:#x} mem_bound "
        f"{want_mem_bound}, got cap {'X/Z' if cap is None else hex(cap)} mem_bound {'X/Z' if mem_bound is None else mem_bound}")


@cocotb.test()
async def test_documents(dut) -> None:
    fmt = Format(dut)
    for name, peak, bw, ai in DOCUMENTS:
        await check(dut, fmt, fmt.raw(peak), fmt.raw(bw), fmt.raw(ai), name)


@cocotb.test()
async def test_edges(dut) -> None:
    fmt = Format(dut)
    f, w, top = fmt.f, fmt.w, fmt.max
    peak = fmt.raw("100")
    ridge = 1 << (fmt.i - 1)  # a peak whose ridge products fit ai in W bits at bw = 1 raw
    vectors = [
        (peak, 0, fmt.raw("3"), "bw = 0"), (peak, fmt.raw("20"), 0, "ai = 0"), (peak, 0, 0, "ai = bw = 0"),
        (0, fmt.raw("20"), fmt.raw("0.5"), "peak = 0"), (0, 0, 0, "all zero"), (0, top, top, "peak = 0, the rest all ones"),
        (ridge, 1, (ridge << f) - 1, "one full-precision step below the ridge (its cap rounds up to peak)"),
        (ridge, 1, ridge << f, "the ridge, exactly"), (ridge, 1, (ridge << f) + 1, "one step above the ridge"),
        (peak, 1 << f, peak, "the ridge at bw = 1.0"), (ridge, 2, (ridge << (f - 1)) - 1, "two steps below the ridge"),
        (ridge, 1, (ridge << (f - 1)) + 1, "just above half the ridge"),
        (top, top, top, "all ones"), (top, 1 << (f + 1), 1 << (w - 1), "a product of exactly 2^(W+F)"),
        (top, (1 << (f + 1)) + 1, 1 << (w - 1), "a product just above 2^(W+F)"),
        (top, top - 1, (1 << (w - 1)) + 2, "a product just above 2^(2W-1)"),
        (top, 1 << (w - 1), 1 << f, "a memory-bound cap with its top bit set"),
        (top, top, 1 << f, "ai = 1.0, bw all ones: the cap is bw"),
        (top, 1 << (w - f), 1 << f, "a product just wider than W bits"),
        (peak | 1, top, top, "an odd peak, compute-bound"), (fmt.raw("37.5") | 1, fmt.raw("20"), fmt.raw("20"), "an odd peak"),
        (peak, 1 << (f - 1), 1, "a rounding tie: exactly half an LSB rounds up"),
        (peak, 3 << (f - 1), 1, "a tie at one and a half LSBs"), (peak, 1, 1, "the smallest product: rounds to 0"),
        (peak, (1 << (f - 1)) - 1, 1, "just under half an LSB"), (peak, (1 << (f - 1)) + 1, 1, "just over half an LSB"),
        (fmt.raw("20"), fmt.raw("100"), fmt.raw("0.5"), "peak and bw the other way round"),
    ]
    for peak_raw, bw, ai, what in vectors:
        await check(dut, fmt, peak_raw & top, bw & top, ai & top, what)


@cocotb.test()
async def test_sweep(dut) -> None:
    """Seeded (cocotb seeds random from COCOTB_RANDOM_SEED): every kind of vector, a few thousand times."""
    fmt = Format(dut)
    f, top = fmt.f, fmt.max
    for n in range(SWEEP):
        peak, bw, ai = (random.getrandbits(random.randint(1, fmt.w)) for _ in range(3))
        kind = n % 4
        if kind == 1 and bw:  # near the ridge: ai around peak * 2^F / bw
            ai = min(top, max(0, (peak << f) // bw + random.randint(-1, 1)))
        elif kind == 2:  # a rounding tie or a step beside one
            bw, ai = (random.getrandbits(f) << f | (1 << (f - 1))) + random.randint(-1, 1), 1
        await check(dut, fmt, peak & top, bw & top, ai & top, f"sweep vector {n}")
