"""The functional coverage bins: what each sample hits, and that a bin never hit fails the bench."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from roofline_golden import QFormat
from roofline_tb import functional_coverage as functional

UQ8_8 = QFormat(8, 8)


@pytest.fixture(autouse=True)
def fresh_bins() -> None:
    functional.HITS.clear()


def test_rate_bins_follow_the_contract() -> None:
    peak = 100 << 8
    functional.sample_rates(UQ8_8, peak, (20 << 8,), (5 << 8,))  # the ridge: compute-bound
    functional.sample_rates(UQ8_8, peak, (1,), ((peak << 8) - 1,))  # one step below it (bw = 1 raw)
    functional.sample_rates(UQ8_8, peak, (3,), (128 // 3 * 3 + 128,))  # not a tie
    functional.sample_rates(UQ8_8, peak, (1,), (128,))  # product 128 = half an LSB: a tie
    hits = functional.HITS
    assert hits["ridge (ai*bw == peak)"] == 1 and hits["compute-bound"] == 1
    assert hits["one step below the ridge"] == 1
    assert hits["rounding tie (memory-bound)"] == 1
    assert hits["memory-bound"] == 3


def test_binding_and_level_ties() -> None:
    peak = 100 << 8
    functional.sample_rates(UQ8_8, peak, (1 << 8, 1 << 8), (1 << 8, 1 << 8), binding=0)
    functional.sample_rates(UQ8_8, peak, (200 << 8, 1 << 8), (1 << 8, 1 << 8), binding=2)
    assert functional.HITS["level tie at the binding product"] == 1
    assert functional.HITS["binds: memory level 0"] == 1 and functional.HITS["binds: compute roof"] == 1


def test_division_bins() -> None:
    functional.sample_division(UQ8_8, 16, 0, 0, True)
    functional.sample_division(UQ8_8, 16, 13, 32, False)  # 13 * 256 / 32 = 104: exact
    functional.sample_division(UQ8_8, 16, 1, 512, False)  # 256 / 512 = 0.5: a tie
    assert functional.HITS["division by zero with ops = 0"] == 1
    assert functional.HITS["exact quotient"] == 1 and functional.HITS["rounding tie"] == 1
    functional.sample_division(UQ8_8, 16, 1, 0x8001, False)
    assert functional.HITS["divisor with its top bit set"] == 1


def test_a_bin_never_hit_fails_the_bench_unless_the_run_was_narrowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    functional.sample_rates(UQ8_8, 100 << 8, (20 << 8,), (1 << 8,))
    log = logging.getLogger("test")
    with pytest.raises(AssertionError, match="never hit: compute-bound, ridge"):
        functional.close("roofline_attainable", 1, narrowed=False, log=log)
    functional.close("roofline_attainable", 1, narrowed=True, log=log)
    written = json.loads((tmp_path / "functional_coverage.json").read_text())
    assert written["bins"]["memory-bound"] == 1 and written["bins"]["peak zero"] == 0


def test_every_bench_has_its_bins() -> None:
    assert "back-to-back transfers" in functional.expected_bins("roofline_hierarchy_pipe", 3)
    assert "binds: memory level 3" in functional.expected_bins("roofline_hierarchy", 4)
    assert "level tie at the binding product" not in functional.expected_bins("roofline_hierarchy", 1)
    assert "reset mid-operation" in functional.expected_bins("roofline_intensity", 3)
