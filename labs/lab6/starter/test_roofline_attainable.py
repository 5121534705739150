"""Lab 6 starter: a cocotb testbench for roofline_attainable that drives the design and checks nothing.

As handed out it passes every design, the faulty ones too, so it scores 0: `make check LAB=6
TB=labs/lab6/starter` says so. Replace each TODO. Keep the file name test_<something>.py (the
grader runs every test_*.py module of your folder) and drive the design only through dut's ports.
"""

import cocotb
from cocotb.triggers import Timer


async def apply(dut, peak: int, bw: int, ai: int) -> tuple[str, str]:
    """Drive one vector (raw fixed-point values) and return the outputs as bit strings."""
    dut.peak_i.value = peak
    dut.bw_i.value = bw
    dut.ai_i.value = ai
    await Timer(1, "ns")  # combinational: the outputs settle in the same time step
    return str(dut.cap_o.value), str(dut.mem_bound_o.value)


@cocotb.test()
async def test_calculator_checks(dut) -> None:
    frac_bits = int(dut.FRAC_BITS.value)  # the format is the design's: read it, never assume UQ24.16
    one = 1 << frac_bits  # the raw value of 1.0
    for peak, bw, ai in ((100 * one, 20 * one, one // 2), (100 * one, 20 * one, 5 * one), (100 * one, 20 * one, 20 * one)):
        cap, mem_bound = await apply(dut, peak, bw, ai)
        dut._log.info("peak %s bw %s ai %s -> cap_o %s mem_bound_o %s", peak, bw, ai, cap, mem_bound)
        # TODO 1: a model of the contract: the expected cap_o and mem_bound_o of (peak, bw, ai).
        # TODO 2: assert that both outputs are exactly the expected ones (and hold no X or Z).


# TODO 3: the edges the contract names (zeros, the ridge and one step either side of it, rounding
#         ties, products wider than W bits and above the format, all ones) and a seeded random sweep.
