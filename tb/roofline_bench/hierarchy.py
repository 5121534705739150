"""The bench of roofline_hierarchy: every document and edge case, then a seeded sweep."""

from __future__ import annotations

from roofline_bench.rates import RateChecker, check_widths, directed, edge_test, sweep_test
from roofline_bench.run import Run, tests
from roofline_bench.stimulus import RateVector


async def port_widths(run: Run) -> None:
    """Every port has the width the parameters give it; binding_o is $clog2(LEVELS+1) bits."""
    width, levels = run.params.fmt.width, run.params.levels
    check_widths(run, {"peak_i": width, "bw_i": levels * width, "ai_i": levels * width, "cap_o": width,
                       "level_cap_o": levels * width, "mem_bound_o": 1, "binding_o": levels.bit_length()})


async def _cases(run: Run, group: str) -> None:
    checker = RateChecker(run, hierarchy=True)
    resolved = directed(run, group)
    run.sb.plan(len(resolved))
    for case in resolved:
        vector = RateVector(case.case.id, case.peak, case.bws, case.ais)
        await checker.check(case.case.id, case.case.title, vector, document=case)


async def document_cases(run: Run) -> None:
    """The documents' cases (spec section 4), padded with levels that never bind."""
    await _cases(run, "document")


async def edge_cases(run: Run) -> None:
    """The spec's edge cases (section 5), level ties included."""
    await _cases(run, "edge")


async def random_sweep(run: Run) -> None:
    """Seeded vectors: each regime anchored at a random level, the others mixed, with level ties."""
    await sweep_test(run, hierarchy=True)


async def boundaries(run: Run) -> None:
    """Every input at every power-of-two and all-ones boundary, products on and one step off the ridge and
    the rounding tie at every bit position (roofline_core.edges), and the binding comparison at every
    bit: the same at every seed.
    """
    await edge_test(run, hierarchy=True)


TESTS = tests(port_widths, document_cases, edge_cases, boundaries, random_sweep)
