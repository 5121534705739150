"""cocotb testbench of roofline_hierarchy: every document and edge case, then a seeded sweep."""

from __future__ import annotations

from typing import Any

import cocotb

from roofline_core.config import BenchConfig
from roofline_core.scoreboard import Scoreboard
from roofline_tb import functional_coverage as functional
from roofline_tb.checkers import HierarchyChecker, directed, sweep
from roofline_tb.signals import check_width
from roofline_tb.stimulus import RateVector


def setup(dut: Any, test: str) -> tuple[BenchConfig, Scoreboard, HierarchyChecker]:
    cfg = BenchConfig.from_env()
    sb = Scoreboard(cfg, test, dut._log)
    return cfg, sb, HierarchyChecker(dut, cfg, sb)


@cocotb.test()
async def port_widths(dut: Any) -> None:
    """Every port has the width the parameters give it; binding_o is $clog2(LEVELS+1) bits."""
    params = BenchConfig.from_env().params
    width, levels = params.fmt.width, params.levels
    check_width(dut.peak_i, width)
    check_width(dut.cap_o, width)
    for port in (dut.bw_i, dut.ai_i, dut.level_cap_o):
        check_width(port, levels * width)
    check_width(dut.mem_bound_o, 1)
    check_width(dut.binding_o, levels.bit_length())  # == $clog2(LEVELS + 1)


async def run_cases(dut: Any, group: str) -> None:
    cfg, sb, checker = setup(dut, f"{group}_cases")
    for resolved in directed(cfg, group, dut._log):
        vector = RateVector(resolved.case.id, resolved.peak, resolved.bws, resolved.ais)
        await checker.check(resolved.case.id, resolved.case.title, vector, document=resolved)
    sb.finish()


@cocotb.test()
async def document_cases(dut: Any) -> None:
    """The documents' cases (spec section 4), padded with levels that never bind."""
    await run_cases(dut, "document")


@cocotb.test()
async def edge_cases(dut: Any) -> None:
    """The spec's edge cases (section 5), level ties included."""
    await run_cases(dut, "edge")


@cocotb.test()
async def random_sweep(dut: Any) -> None:
    """Seeded vectors: each regime anchored at a random level, the others mixed, with level ties."""
    cfg, sb, checker = setup(dut, "random_sweep")
    batch = checker.batch()
    for index, vector in enumerate(sweep(cfg, "random_sweep", cfg.params.levels, dut._log)):
        outputs = await checker.sample(index, vector.kind, vector)
        if outputs is not None:
            batch.add(index, vector.kind, vector, outputs)
    batch.flush()
    sb.finish()


@cocotb.test()
async def functional_coverage(dut: Any) -> None:
    """Runs last: every regime of the contract was reached by the tests above (see roofline_tb.functional)."""
    cfg = BenchConfig.from_env()
    functional.close(cfg.top, cfg.params.levels, cfg.only is not None, dut._log)
