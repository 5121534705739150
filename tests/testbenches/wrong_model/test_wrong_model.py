"""A lab 6 testbench whose own model is wrong: it truncates the memory-bound cap instead of rounding it, and
counts the ridge (ai x bw == peak exactly) as memory-bound. Its stimulus is deterministic: memory-bound
kernels of the documents' platform, one of them at 20.3 GB/s (whose cap needs rounding), then the ridge.
The grader must say its check is wrong, on which vector, what the correct design gave there in units and
what the contract says, and never blame nondeterminism (issue 33's case)."""

from fractions import Fraction

import cocotb
from cocotb.triggers import Timer


def raw(value: str, f: int) -> int:
    return int(Fraction(value) * (1 << f) + Fraction(1, 2))


def expected(f: int, peak: int, bw: int, ai: int) -> tuple[int, int]:
    product = ai * bw
    if product <= peak << f:  # wrong: at the ridge the compute roof binds
        return product >> f, 1  # wrong: the cap is the product rounded to nearest, not truncated
    return peak, 0


async def check(dut, peak: str, bw: str, ai: str) -> None:
    f = int(dut.FRAC_BITS.value)
    vector = (raw(peak, f), raw(bw, f), raw(ai, f))
    dut.peak_i.value, dut.bw_i.value, dut.ai_i.value = vector
    await Timer(1, "ns")
    got = (int(dut.cap_o.value), int(dut.mem_bound_o.value))
    want = expected(f, *vector)
    assert got == want, f"cap_o, mem_bound_o = {got}, expected {want}"


@cocotb.test()
async def test_memory_bound(dut):
    for ai in ("0.5", "0.25", "0.8125", "0.40625"):
        await check(dut, "100", "20", ai)
    await check(dut, "100", "20.3", "0.8125")


@cocotb.test()
async def test_ridge(dut):
    await check(dut, "100", "20", "5")
