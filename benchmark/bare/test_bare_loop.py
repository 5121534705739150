"""The per-vector ceiling for `make benchmark`: a bare cocotb loop over roofline_attainable that
drives one random vector and samples the outputs per step, and checks nothing. The per-vector
bench does the same driving and sampling plus its checks, so the ratio of the two is the cost of
checking. ROOFLINE_BARE_N vectors; the widths are read from the design."""

from __future__ import annotations

import os
import random
from typing import Any

import cocotb
from cocotb.triggers import Timer


@cocotb.test()
async def bare_loop(dut: Any) -> None:
    count = int(os.environ["ROOFLINE_BARE_N"])
    rng = random.Random(int(os.environ.get("ROOFLINE_BARE_SEED", "1")))
    inputs = [handle for handle in (dut.peak_i, dut.bw_i, dut.ai_i)]
    outputs = [dut.cap_o, dut.mem_bound_o]
    widths = [len(handle) for handle in inputs]
    sampled = 0
    for _ in range(count):
        for handle, width in zip(inputs, widths, strict=True):
            handle.value = rng.getrandbits(width)
        await Timer(1, "ns")
        sampled ^= int(outputs[0].value) ^ int(outputs[1].value)
    dut._log.info("bare loop: %d vectors driven and sampled (xor of outputs %x)", count, sampled)
