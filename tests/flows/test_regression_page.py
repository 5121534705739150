"""`make report` shows the project's regression only: its own bulk sweeps, never a drop-in's (the test
suite's deliberately failing sweeps, a student's design), in the table or in the merged coverage.
Fast: statistics files laid out as the sweeps lay them out, no simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_bulk import simulation
from roofline_bulk.config import SweepConfig
from roofline_core.contract import ParamSet
from roofline_flows import regression_page


def stats(folder: Path, mode: str, checked: int, mismatched: int, hits: int) -> None:
    folder.mkdir(parents=True)
    (folder / "sweep_stats.json").write_text(json.dumps({
        "top": "roofline_attainable", "sim": "icarus", "format": "UQ24.16", "levels": 1, "mode": mode, "seed": 1,
        "checked": checked, "mismatched": mismatched, "vectors_per_s": 1e6, "bins": {"ridge (ai*bw == peak)": hits}}))


@pytest.fixture
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(regression_page, "BUILD_ROOT", tmp_path)
    monkeypatch.setattr(simulation, "BUILD_ROOT", tmp_path)
    return tmp_path


def test_a_drop_in_sweep_builds_apart_from_the_projects(build: Path, tmp_path: Path) -> None:
    mutant = tmp_path / "roofline_round_cap.sv"
    mutant.write_text("module roofline_round_cap; endmodule\n")
    ours = simulation.sweep_build(SweepConfig("roofline_attainable", "icarus", ParamSet(), seed=3)).folder
    theirs = simulation.sweep_build(SweepConfig("roofline_attainable", "icarus", ParamSet(), seed=3, rtl=str(mutant))).folder
    assert ours.parent == build / "icarus" and theirs.parent == build / "dropin" / "icarus"


def test_the_report_shows_the_projects_sweeps_and_none_of_a_drop_ins(build: Path, tmp_path: Path) -> None:
    """The issue's case: after make test, make report listed "replay 421/421 mismatched" (the suite's
    planted bug) and merged its coverage. Here: the project's sweep, a drop-in's failing sweep and
    its replay, a sweep of an older rtl/ (another digest) and a cluster shard's folder."""
    mutant = tmp_path / "roofline_round_cap.sv"
    mutant.write_text("module roofline_round_cap; endmodule\n")
    ours = simulation.sweep_build(SweepConfig("roofline_attainable", "icarus", ParamSet(), seed=3)).folder
    stats(ours, "random", 5000, 0, 7)
    planted = SweepConfig("roofline_attainable", "icarus", ParamSet(), seed=3, rtl=str(mutant))
    stats(simulation.sweep_build(planted).folder, "random", 20000, 421, 1000)
    stats(simulation.sweep_build(planted, "mutant").folder, "replay", 421, 421, 1000)
    stats(ours.with_name(ours.name.rsplit("-", 1)[0] + "-0badc0de"), "random", 9, 9, 1000)  # an older rtl/
    stats(ours.with_name(ours.name + "-dask-worker-1"), "random", 9, 9, 1000)  # a cluster's shard
    assert regression_page.project_sweeps() == [ours / "sweep_stats.json"]
    page = regression_page.sweeps_section()
    assert "5,000" in page and "421" not in page and "20,000" not in page and "replay" not in page
    assert "<td class=''>7</td>" in page  # the coverage is the project's sweep's alone


def test_no_sweep_says_so(build: Path) -> None:
    assert "No bulk sweeps yet" in regression_page.sweeps_section()
