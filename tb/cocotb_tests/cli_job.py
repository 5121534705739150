"""cocotb side of `roofline place --rtl`: drive each job vector through the RTL, write the raw results.

The job file (ROOFLINE_CLI_JOB) lists raw vectors; the results go to ROOFLINE_CLI_OUT. Judging
them is the CLI's job: this test only fails when the design does not answer (X/Z or no done_o).
"""

from __future__ import annotations

import json
import os
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, Timer

from roofline_bench.rates import pack_levels
from roofline_cocotb.signals import read_bool, read_uint

CLOCK_NS = 10


def outputs(dut: Any) -> dict[str, int]:
    return {"cap": read_uint(dut.cap_o), "level_caps": read_uint(dut.level_cap_o),
            "mem_bound": int(read_bool(dut.mem_bound_o)), "binding": read_uint(dut.binding_o)}


@cocotb.test()
async def run_job(dut: Any) -> None:
    job = json.loads(open(os.environ["ROOFLINE_CLI_JOB"]).read())
    width, count_bits, max_latency = job["width"], job["count_bits"], job["max_latency"]
    results = []
    if job["top"] == "roofline_hierarchy":
        for vector in job["vectors"]:
            dut.peak_i.value = vector["peak"]
            dut.bw_i.value = pack_levels(tuple(vector["bws"]), width)
            dut.ai_i.value = pack_levels(tuple(vector["ais"]), width)
            await Timer(1, "ns")
            results.append(outputs(dut))
    else:
        cocotb.start_soon(Clock(dut.clk_i, CLOCK_NS, unit="ns", impl="gpi").start())
        dut.start_i.value = 0
        dut.rst_ni.value = 0
        await ClockCycles(dut.clk_i, 2)
        await FallingEdge(dut.clk_i)
        dut.rst_ni.value = 1
        for vector in job["vectors"]:
            dut.peak_i.value = vector["peak"]
            dut.bw_i.value = pack_levels(tuple(vector["bws"]), width)
            dut.ops_i.value = vector["ops"]
            dut.bytes_i.value = pack_levels(tuple(vector["bytes"]), count_bits)
            dut.start_i.value = 1
            await FallingEdge(dut.clk_i)
            dut.start_i.value = 0
            for _ in range(max_latency):
                if read_bool(dut.done_o):
                    break
                await FallingEdge(dut.clk_i)
            else:
                raise AssertionError(f"roofline_counts gave no done_o within {max_latency} cycles for {vector}")
            results.append(outputs(dut))
    with open(os.environ["ROOFLINE_CLI_OUT"], "w") as out:
        json.dump(results, out)
