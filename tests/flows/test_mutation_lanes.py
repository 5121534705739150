"""make mutation's lanes (--jobs): each lane mutates a copy of its own, a free lane takes the module
whose recorded run is the longest left, every module runs once, the rows come in the table's order,
and a lane that cannot go on stops the others and its error is the run's. run_module is faked here:
tests/flows/test_python_mutation.py (full tier) runs the real thing."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from roofline_flows import python_mutation as pm


def target(name: str) -> pm.Target:
    return pm.Target(f"pkg/{name}.py", ("tests/test_x.py",))


DOC = """# x
<!-- mutation-table:start -->
| module | mutants | killed | survived | timed out | equivalent (recorded) | score | run time | verdict |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| `pkg/a.py` | 3 | 3 | 0 | 0 | 0 | 100% | 30 s | ok |
| `pkg/b.py` | 3 | 3 | 0 | 0 | 0 | 100% | 600 s | ok |
| `pkg/c.py` | 3 | 3 | 0 | 0 | 0 | 100% | 31 s | ok |
<!-- mutation-table:end -->
"""


def test_the_recorded_run_times_are_read_from_the_table(tmp_path: Path) -> None:
    doc = tmp_path / "mutation.md"
    doc.write_text(DOC)
    assert pm.recorded_seconds(doc) == {"pkg/a.py": 30.0, "pkg/b.py": 600.0, "pkg/c.py": 31.0}
    assert pm.recorded_seconds(tmp_path / "none.md") == {}


def test_the_longest_module_goes_first_and_one_never_measured_before_it() -> None:
    seconds = {"pkg/a.py": 30.0, "pkg/b.py": 600.0, "pkg/c.py": 31.0}
    order = pm.longest_first([target("a"), target("b"), target("c"), target("new")], seconds)
    assert [t.path for t in order] == ["pkg/new.py", "pkg/b.py", "pkg/c.py", "pkg/a.py"]


@pytest.fixture
def lanes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, list]:
    """run_module faked: it records which copy ran which module, and when."""
    seen: dict[str, list] = {"runs": [], "copies": []}
    lock = threading.Lock()
    monkeypatch.setattr(pm, "COPY", tmp_path / "mutation" / "checkout")
    monkeypatch.setattr(pm, "recorded_seconds", lambda doc=None: {"pkg/a.py": 1.0, "pkg/b.py": 50.0, "pkg/c.py": 2.0})

    def make_copy(into: Path) -> Path:
        with lock:
            seen["copies"].append(into.name)
        return into

    def run_module(t: pm.Target, work: Path, equivalents: dict, deadline: float, verbose: bool = False,
                   stop: threading.Event | None = None) -> pm.Tally:
        if t.path == "pkg/broken.py":
            raise pm.MutationError(f"{t.path}: its tests do not pass unmutated (failed)")
        time.sleep(0.05)
        with lock:
            seen["runs"].append((t.path, work.name, threading.current_thread().name, stop is not None and stop.is_set()))
        return pm.Tally(t.path, mutants=3, killed=3)

    monkeypatch.setattr(pm, "make_copy", make_copy)
    monkeypatch.setattr(pm, "run_module", run_module)
    return seen


def test_two_lanes_run_every_module_once_each_in_its_own_copy(lanes: dict[str, list]) -> None:
    chosen = [target("a"), target("b"), target("c")]
    written: list[str] = []
    tallies = pm.run_lanes(chosen, 2, {}, deadline=time.monotonic() + 60, on_done=lambda t: written.append(t.module))
    assert [t.module for t in tallies] == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]  # the table's order, whatever ran first
    assert sorted(r[0] for r in lanes["runs"]) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"] and sorted(written) == sorted(
        r[0] for r in lanes["runs"])
    assert sorted(lanes["copies"]) == ["checkout", "checkout-2"]
    by_copy = {r[1] for r in lanes["runs"]}
    assert by_copy <= {"checkout", "checkout-2"}
    assert lanes["runs"][0][0] == "pkg/b.py" or lanes["runs"][1][0] == "pkg/b.py"  # the longest started first


def test_one_lane_runs_the_modules_longest_first_in_one_copy(lanes: dict[str, list]) -> None:
    tallies = pm.run_lanes([target("a"), target("b"), target("c")], 1, {}, deadline=time.monotonic() + 60)
    assert [r[0] for r in lanes["runs"]] == ["pkg/b.py", "pkg/c.py", "pkg/a.py"]
    assert lanes["copies"] == ["checkout"] and len(tallies) == 3


def test_a_module_whose_tests_fail_unmutated_is_reported_and_the_others_still_run(lanes: dict[str, list]) -> None:
    tallies = pm.run_lanes([target("broken"), target("a"), target("c")], 2, {}, deadline=time.monotonic() + 60)
    assert [t.module for t in tallies] == ["pkg/broken.py", "pkg/a.py", "pkg/c.py"]
    broken = tallies[0]
    assert not broken.ok and broken.why_not_ok == "pkg/broken.py: its tests do not pass unmutated (failed)"
    assert "not run (its tests fail unmutated)" in pm.row(broken)
    assert sorted(r[0] for r in lanes["runs"]) == ["pkg/a.py", "pkg/c.py"]  # the others ran, to their end


def test_a_lane_that_fails_otherwise_stops_the_run_with_its_error(lanes: dict[str, list],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def make_copy(into: Path) -> Path:
        raise OSError("no space left on device")

    monkeypatch.setattr(pm, "make_copy", make_copy)
    with pytest.raises(OSError, match="no space left"):
        pm.run_lanes([target("a"), target("c")], 2, {}, deadline=time.monotonic() + 60)


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_below_one_or_not_a_number_is_refused(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        pm.parse_args(["--jobs", jobs])
    assert stopped.value.code == 2 and "--jobs" in capsys.readouterr().err


def test_all_has_no_budget_unless_one_is_given() -> None:
    assert pm.parse_args(["--all"]).budget is None and pm.parse_args(["--budget", "5"]).budget == 5.0
    assert pm.parse_args([]).jobs >= 1


def test_a_second_run_in_the_same_checkout_is_refused_while_the_first_holds_the_copies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pm, "COPY", tmp_path / "mutation" / "checkout")
    with pm.one_run_at_a_time():
        with pytest.raises(pm.MutationError, match="another make mutation is running in this checkout"), \
                pm.one_run_at_a_time():
            pass
    with pm.one_run_at_a_time():  # free again once the first is done
        pass
