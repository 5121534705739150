"""cocotb testbench of roofline_attainable: every document and edge case, then a seeded sweep."""

from __future__ import annotations

from typing import Any

import cocotb

from roofline_core.config import BenchConfig
from roofline_core.scoreboard import Scoreboard
from roofline_tb import functional_coverage as functional
from roofline_tb.checkers import AttainableChecker, directed, sweep
from roofline_tb.signals import check_width


def setup(dut: Any, test: str) -> tuple[BenchConfig, Scoreboard, AttainableChecker]:
    cfg = BenchConfig.from_env()
    sb = Scoreboard(cfg, test, dut._log)
    return cfg, sb, AttainableChecker(dut, cfg, sb)


@cocotb.test()
async def port_widths(dut: Any) -> None:
    """Every port has the width the parameters give it."""
    width = BenchConfig.from_env().params.fmt.width
    for port in (dut.peak_i, dut.bw_i, dut.ai_i, dut.cap_o):
        check_width(port, width)
    check_width(dut.mem_bound_o, 1)


async def run_cases(dut: Any, group: str) -> None:
    cfg, sb, checker = setup(dut, f"{group}_cases")
    for resolved in directed(cfg, group, dut._log):
        # Each level of a case is a kernel against one roof; the documents give each level's cap.
        for level in range(resolved.used_levels):
            vector_id = resolved.case.id if resolved.used_levels == 1 else f"{resolved.case.id}.{level}"
            doc_cap = resolved.expect_level_caps[level] if resolved.expect_level_caps else None
            doc_mem_bound = None
            if resolved.used_levels == 1:
                doc_cap = resolved.expect_cap if doc_cap is None else doc_cap
                if resolved.expect_binding is not None:
                    doc_mem_bound = resolved.expect_binding == 0
            await checker.check(
                vector_id, resolved.case.title, resolved.peak, resolved.bws[level], resolved.ais[level],
                document=(doc_cap, doc_mem_bound),
            )
    sb.finish()


@cocotb.test()
async def document_cases(dut: Any) -> None:
    """The documents' calculator checks, kernels and per-level ceilings (spec section 4)."""
    await run_cases(dut, "document")


@cocotb.test()
async def edge_cases(dut: Any) -> None:
    """The spec's edge cases (section 5)."""
    await run_cases(dut, "edge")


@cocotb.test()
async def random_sweep(dut: Any) -> None:
    """Seeded vectors reaching both roofs, the ridge and one step either side, rounding ties."""
    cfg, sb, checker = setup(dut, "random_sweep")
    batch = checker.batch()
    for index, vector in enumerate(sweep(cfg, "random_sweep", 1, dut._log)):
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
