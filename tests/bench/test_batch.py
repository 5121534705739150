"""The per-vector benches' batched judging (roofline_bench.batch) against judging one vector at a time:
the same verdicts, the same reports, the same coverage counts. No simulator: outputs come from
the scalar golden model, with bugs put in by hand."""

from __future__ import annotations

import logging
import random
from collections import Counter

import pytest

from roofline_bench.batch import RateBatch
from roofline_bench.coverage import RATE_BINS, Coverage
from roofline_bench.rates import judge_attainable, judge_hierarchy
from roofline_bench.stimulus import RateVector, rate_vectors
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Scoreboard
from roofline_golden import QFormat, fixed

SMALL = ParamSet(8, 8, 3, 16)
UQ8_8 = QFormat(8, 8)
COUNT = 3000


def scoreboard(top: str, p: ParamSet = SMALL) -> Scoreboard:
    return Scoreboard(BenchConfig(top, "icarus", p, 11, sweep=COUNT), "random_sweep", logging.getLogger("test_batch"))


def hierarchy_outputs(p: ParamSet, vector: RateVector) -> tuple[int, int, int, int]:
    want = fixed.hierarchy(QFormat(p.int_bits, p.frac_bits), vector.peak, vector.bws, vector.ais)
    packed = sum(cap << (level * QFormat(p.int_bits, p.frac_bits).width) for level, cap in enumerate(want.level_caps))
    return want.cap, int(want.mem_bound), want.binding, packed


def one_at_a_time(sb: Scoreboard, judge, vectors: list[RateVector], outputs: list[tuple[int, ...]]) -> Counter[str]:
    coverage = Coverage()
    for index, (vector, out) in enumerate(zip(vectors, outputs, strict=True)):
        judge(sb, coverage, index, vector.kind, vector, out)
    return coverage.hits


def batch_of(sb: Scoreboard, judge, hierarchy: bool) -> RateBatch:
    """A batch that judges a failing vector again with `judge`, as the benches' batches do."""
    coverage = Coverage()
    return RateBatch(sb, lambda vector_id, label, vector, outputs, sample: judge(
        sb, coverage, vector_id, label, vector, outputs, sample=sample), hierarchy=hierarchy, coverage=coverage)


def batched(batch: RateBatch, vectors: list[RateVector], outputs: list[tuple[int, ...]]) -> Counter[str]:
    for index, (vector, out) in enumerate(zip(vectors, outputs, strict=True)):
        batch.add(index, vector.kind, vector, out)
    batch.flush()
    return batch.coverage.hits


@pytest.mark.parametrize("bug", [None, "cap", "level_cap", "binding"])
def test_a_hierarchy_batch_judges_as_one_vector_at_a_time(bug: str | None) -> None:
    vectors = rate_vectors(random.Random(5), UQ8_8, SMALL.levels, COUNT)
    outputs = [hierarchy_outputs(SMALL, v) for v in vectors]
    broken = {17, 401, 2999}
    for row in broken if bug else ():
        cap, mem_bound, binding, packed = outputs[row]
        if bug == "cap":
            outputs[row] = (cap ^ 1, mem_bound, binding, packed)
        elif bug == "level_cap":
            outputs[row] = (cap, mem_bound, binding, packed ^ (1 << UQ8_8.width))  # level 1's LSB
        else:
            outputs[row] = (cap, mem_bound, (binding + 1) % (SMALL.levels + 1), packed)
    single, many = scoreboard("roofline_hierarchy"), scoreboard("roofline_hierarchy")
    single_bins = one_at_a_time(single, judge_hierarchy, vectors, outputs)
    batch_bins = batched(batch_of(many, judge_hierarchy, True), vectors, outputs)
    assert many.failed == single.failed == ({str(row) for row in broken} if bug else set())
    assert many.checked == single.checked == COUNT
    assert many.reports == single.reports
    assert batch_bins == single_bins and all(batch_bins[name] > 0 for name in RATE_BINS)


def test_an_attainable_batch_reports_a_cap_outside_the_error_bound() -> None:
    p = ParamSet(8, 8, 1, 16)
    vectors = rate_vectors(random.Random(9), QFormat(p.int_bits, p.frac_bits), 1, COUNT)
    outputs: list[tuple[int, ...]] = []
    for vector in vectors:
        want = fixed.attainable(QFormat(p.int_bits, p.frac_bits), vector.peak, vector.bws[0], vector.ais[0])
        outputs.append((want.cap, int(want.mem_bound)))
    top = QFormat(p.int_bits, p.frac_bits).max_raw
    row = next(i for i, o in enumerate(outputs) if o[1] and 4 < o[0] < top - 4)
    outputs[row] = (outputs[row][0] + 3, outputs[row][1])
    single, many = scoreboard("roofline_attainable", p), scoreboard("roofline_attainable", p)
    single_bins = one_at_a_time(single, judge_attainable, vectors, outputs)
    batch = batch_of(many, judge_attainable, False)
    assert batched(batch, vectors, outputs) == single_bins
    assert many.failed == single.failed == {str(row)}
    assert many.reports == single.reports and any(r.startswith("ERROR BOUND") for r in many.reports)
    assert f"ONLY={row}" in many.reports[0]


def test_a_format_too_wide_for_numpy_is_judged_one_vector_at_a_time() -> None:
    p = ParamSet(40, 32, 1, 16)  # W = 72 bits
    vectors = rate_vectors(random.Random(3), QFormat(p.int_bits, p.frac_bits), 1, 200)
    outputs = [hierarchy_outputs(p, v) for v in vectors]
    outputs[7] = (outputs[7][0] ^ 1, *outputs[7][1:])
    many = scoreboard("roofline_hierarchy", p)
    batched(batch_of(many, judge_hierarchy, True), vectors, outputs)
    assert many.failed == {"7"} and many.checked == 200
