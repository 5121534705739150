"""The bench of roofline_attainable: every document and edge case, then a seeded sweep."""

from __future__ import annotations

from roofline_bench.rates import RateChecker, check_widths, directed, edge_test, sweep_test
from roofline_bench.run import Run, tests
from roofline_bench.stimulus import RateVector


async def port_widths(run: Run) -> None:
    """Every port has the width the parameters give it."""
    width = run.params.fmt.width
    check_widths(run, {"peak_i": width, "bw_i": width, "ai_i": width, "cap_o": width, "mem_bound_o": 1})


async def _cases(run: Run, group: str) -> None:
    """Each level of a case is a kernel against one roof, named after its level (per_level_ceilings.DRAM);
    the documents give each level's cap. Edge cases of several levels are about which level binds,
    which one level cannot show: roofline_hierarchy's bench runs them."""
    checker = RateChecker(run, hierarchy=False)
    resolved = [case for case in directed(run, group) if group == "document" or case.used_levels == 1]
    run.sb.plan(sum(case.used_levels for case in resolved))
    for case in resolved:
        for level in range(case.used_levels):
            name = case.case.levels[level].name or str(level)
            vector_id = case.case.id if case.used_levels == 1 else f"{case.case.id}.{name}"
            doc_cap = case.expect_level_caps[level] if case.expect_level_caps else None
            doc_mem_bound = None
            if case.used_levels == 1:
                doc_cap = case.expect_cap if doc_cap is None else doc_cap
                if case.expect_binding is not None:
                    doc_mem_bound = case.expect_binding == 0
            vector = RateVector(case.case.id, case.peak, (case.bws[level],), (case.ais[level],))
            await checker.check(vector_id, case.case.title, vector, document=(doc_cap, doc_mem_bound))


async def document_cases(run: Run) -> None:
    """The documents' calculator checks, kernels and per-level ceilings (spec section 4)."""
    await _cases(run, "document")


async def edge_cases(run: Run) -> None:
    """The spec's edge cases (section 5)."""
    await _cases(run, "edge")


async def random_sweep(run: Run) -> None:
    """Seeded vectors reaching both roofs, the ridge and one step either side, rounding ties."""
    await sweep_test(run, hierarchy=False)


async def boundaries(run: Run) -> None:
    """Every input at every power-of-two and all-ones boundary, products on and one step off the ridge and
    the rounding tie at every bit position (roofline_core.edges): the same at every seed.
    """
    await edge_test(run, hierarchy=False)


TESTS = tests(port_widths, document_cases, edge_cases, boundaries, random_sweep)
