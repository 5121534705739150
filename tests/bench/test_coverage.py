"""The functional coverage bins: what each sample hits, and that a run closes with the bins it never hit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_bench import coverage as functional
from roofline_bench.coverage import Coverage
from roofline_golden import QFormat

UQ8_8 = QFormat(8, 8)


@pytest.fixture
def cover() -> Coverage:
    return Coverage()


def test_rate_bins_follow_the_contract(cover: Coverage) -> None:
    peak = 100 << 8
    cover.sample_rates(UQ8_8, peak, (20 << 8,), (5 << 8,))  # the ridge: compute-bound
    cover.sample_rates(UQ8_8, peak, (1,), ((peak << 8) - 1,))  # one step below it (bw = 1 raw)
    cover.sample_rates(UQ8_8, peak, (3,), (128 // 3 * 3 + 128,))  # not a tie
    cover.sample_rates(UQ8_8, peak, (1,), (128,))  # product 128 = half an LSB: a tie
    hits = cover.hits
    assert hits["ridge (ai*bw == peak)"] == 1 and hits["compute-bound"] == 1
    assert hits["one step below the ridge"] == 1
    assert hits["rounding tie (memory-bound)"] == 1
    assert hits["memory-bound"] == 3


def test_binding_and_level_ties(cover: Coverage) -> None:
    peak = 100 << 8
    cover.sample_rates(UQ8_8, peak, (1 << 8, 1 << 8), (1 << 8, 1 << 8), binding=0)
    cover.sample_rates(UQ8_8, peak, (200 << 8, 1 << 8), (1 << 8, 1 << 8), binding=2)
    assert cover.hits["level tie at the binding product"] == 1
    assert cover.hits["binds: memory level 0"] == 1 and cover.hits["binds: compute roof"] == 1


def test_division_bins(cover: Coverage) -> None:
    cover.sample_division(UQ8_8, 16, 0, 0, True)
    cover.sample_division(UQ8_8, 16, 13, 32, False)  # 13 * 256 / 32 = 104: exact
    cover.sample_division(UQ8_8, 16, 1, 512, False)  # 256 / 512 = 0.5: a tie
    assert cover.hits["division by zero with ops = 0"] == 1
    assert cover.hits["exact quotient"] == 1 and cover.hits["rounding tie"] == 1
    cover.sample_division(UQ8_8, 16, 1, 0x8001, False)
    assert cover.hits["divisor with its top bit set"] == 1


def test_a_run_closes_with_the_bins_it_never_hit(cover: Coverage, tmp_path: Path) -> None:
    cover.sample_rates(UQ8_8, 100 << 8, (20 << 8,), (1 << 8,))
    cover.save(tmp_path, "roofline_attainable", 1)
    missed = functional.missed(tmp_path, "roofline_attainable", 1)
    assert missed[:2] == ["compute-bound", "ridge (ai*bw == peak)"] and "memory-bound" not in missed
    written = json.loads((tmp_path / "functional_coverage.json").read_text())
    assert written["bins"]["memory-bound"] == 1 and written["bins"]["peak zero"] == 0
    assert functional.missed(tmp_path / "nowhere", "roofline_attainable", 1) == list(
        functional.expected_bins("roofline_attainable", 1)), "a run that saved nothing hit nothing"


def test_every_bench_has_its_bins() -> None:
    assert "back-to-back transfers" in functional.expected_bins("roofline_hierarchy_pipe", 3)
    assert "binds: memory level 3" in functional.expected_bins("roofline_hierarchy", 4)
    assert "level tie at the binding product" not in functional.expected_bins("roofline_hierarchy", 1)
    assert "reset mid-operation" in functional.expected_bins("roofline_intensity", 3)
