"""What `make sweep` prints: rates in units that fit, rerun and replay lines that rebuild the same
sweep on the same design, and, with a failing drop-in, its mismatches on the first screen and a
replay line that, run as printed, fails again."""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from commands import command_env, run_command

from roofline_bulk import sweep as sweep_cli
from roofline_bulk.config import DEFAULT_BATCH, SweepConfig
from roofline_bulk.stimulus import Shard
from roofline_bulk.summary import rate_text, summarize
from roofline_core.contract import ParamSet
from roofline_core.paths import REPO_ROOT

SCREEN = 24  # lines of a terminal: the first mismatch must start within one screen of the summary


def stats(checked: int, mismatched: int = 0) -> dict[str, object]:
    return {"checked": checked, "mismatched": mismatched, "seconds": 0.5, "vectors_per_s": 2.0 * checked,
            "bins": {"memory-bound": checked}, "reports": [], "failures_file": None}


@pytest.mark.parametrize(("found", "failures", "verdict"), [
    (stats(10), (), "PASS"),
    (stats(1), (), "PASS"),
    (stats(0), (), "FAIL"),  # nothing checked is never a pass
    (stats(10, 1), (), "FAIL"),
    (stats(10), ("bulk_sweep: the simulator stopped",), "FAIL"),
    (None, (), "FAIL"),  # no statistics: the sweep did not finish
], ids=["checked", "one", "nothing", "a-mismatch", "a-failure", "no-statistics"])
def test_the_summarys_verdict_is_a_pass_only_of_vectors_checked_and_all_right(
        found: dict[str, object] | None, failures: tuple[str, ...], verdict: str, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = SweepConfig("roofline_attainable", "icarus", ParamSet(), 7, count=10)
    assert summarize(cfg, found, failures, 1.0) is (verdict == "PASS")
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"{verdict}; seed 7; rerun: make sweep ")


@pytest.mark.parametrize(("per_second", "text"), [
    (0.0, "0 vectors/s"), (0.5, "0.500 vectors/s"), (1.0, "1.00 vectors/s"), (18.84, "18.8 vectors/s"),
    (850.2, "850 vectors/s"), (999.7, "1.00 k vectors/s"), (42_917.0, "42.9 k vectors/s"),
    (5_313_056.0, "5.31 M vectors/s"), (16_226_778.0, "16.2 M vectors/s"), (2.5e9, "2.50 G vectors/s"),
])
def test_a_rate_prints_three_significant_figures_in_the_unit_that_fits(per_second: float, text: str) -> None:
    assert rate_text(per_second) == text


def make_command(line: str) -> list[str]:
    """The arguments `make` hands to roofline_bulk.sweep for a printed command line (make -n)."""
    run = subprocess.run(["make", "-n", *shlex.split(line)[1:]], cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                         env=command_env())
    command = next(text for text in run.stdout.splitlines() if "-m roofline_bulk.sweep" in text)
    return shlex.split(command.split("-m roofline_bulk.sweep", 1)[1])


def rebuilt(line: str) -> SweepConfig:
    """The sweep that a printed rerun line runs, as the command line builds it."""
    args = sweep_cli.parse_args(make_command(line))
    assert args.top != "all"
    return sweep_cli.make_config(args, args.top, args.seed if args.seed is not None else -1)


def comparable(cfg: SweepConfig) -> SweepConfig:
    return replace(cfg, seed=-1) if cfg.mode == "exhaustive" else cfg  # an exhaustive sweep draws nothing


ATTAINABLE = "roofline_attainable"
HIERARCHY = "roofline_hierarchy"
SWEEPS = {
    "default": SweepConfig(ATTAINABLE, "verilator", ParamSet(), 11, count=5000),
    "one vector": SweepConfig(ATTAINABLE, "icarus", ParamSet(), 11, count=5000, only=4321),
    "shard, lanes, batch": SweepConfig(HIERARCHY, "verilator", ParamSet(16, 8, 2), 7, count=300_000, shard=Shard(2, 4),
                                       lanes=3, batch=DEFAULT_BATCH // 2),
    "a drop-in in a folder with a space": SweepConfig(ATTAINABLE, "icarus", ParamSet(), 5, count=10, rtl="/tmp/my rtl"),
    "exhaustive shard": SweepConfig(HIERARCHY, "verilator", ParamSet(3, 3, 1), 1, mode="exhaustive", shard=Shard(1, 3)),
}


@pytest.mark.parametrize("name", SWEEPS)
def test_a_rerun_line_rebuilds_the_same_sweep(name: str) -> None:
    cfg = SWEEPS[name]
    assert comparable(rebuilt(cfg.rerun_command())) == comparable(cfg)


@pytest.mark.parametrize("name", SWEEPS)
def test_a_replay_line_replays_on_the_same_design_and_simulator(name: str, tmp_path: Path) -> None:
    cfg = SWEEPS[name]
    failures = tmp_path / "failing vectors.npz"
    replayed = rebuilt(cfg.replay_command(failures))
    assert replayed.mode == "replay" and replayed.replay == str(failures)
    assert (replayed.top, replayed.sim, replayed.param_set.tag, replayed.lanes, replayed.batch, replayed.rtl) == (
        cfg.top, cfg.sim, cfg.param_set.tag, cfg.lanes, cfg.batch, cfg.rtl)
    assert replayed.seed == cfg.seed  # its reports name the seed of the sweep that found the vectors


def test_a_rerun_line_means_the_same_under_make_test_with_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test ARGS=... SEED=...` puts its variables in the environment of every test: the printed
    line must still be run as a person types it."""
    cfg = SWEEPS["default"]
    monkeypatch.setenv("ARGS", "--durations=60")
    monkeypatch.setenv("SEED", "12345")
    monkeypatch.setenv("MAKEFLAGS", " -- ARGS=--durations=60 SEED=12345")
    assert comparable(rebuilt(cfg.rerun_command())) == comparable(cfg)


def test_a_mismatch_report_reruns_its_one_vector_on_the_same_design() -> None:
    cfg = SWEEPS["a drop-in in a folder with a space"]
    assert rebuilt(cfg.rerun_command(7)) == replace(cfg, only=7)


def make_sweep(*words: str) -> subprocess.CompletedProcess[str]:
    return run_command(["make", "--no-print-directory", "sweep", *words])


def printed_command(out: str, prefix: str) -> list[str]:
    line = next(text for text in out.splitlines() if text.startswith(prefix))
    return shlex.split(line.removeprefix(prefix))


def mismatched(out: str) -> tuple[int, int]:
    """(checked, mismatched) from the summary line."""
    found = re.search(r"^summary \(\w+\): ([\d,]+) vectors? checked, ([\d,]+) mismatched", out, re.MULTILINE)
    assert found, out
    return int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))


@pytest.mark.sim
def test_a_failing_drop_in_shows_its_mismatches_first_and_its_replay_line_fails_again(seed: int, ridge_mutant: Path) -> None:
    run = make_sweep("SIM=icarus", "N=4000", f"SEED={seed}", f"RTL={ridge_mutant}")
    out = run.stdout
    assert run.returncode != 0 and out.splitlines()[-1].startswith("FAIL; "), out + run.stderr
    assert "INFO cocotb" not in out + run.stderr, "the simulator's own output belongs in sim.log without V=1"
    lines = out.splitlines()
    summary = next(i for i, line in enumerate(lines) if line.startswith("summary (roofline_attainable):"))
    first = next(i for i, line in enumerate(lines) if "MISMATCH roofline_attainable" in line)
    assert summary < first <= summary + SCREEN, out
    assert lines[first].startswith("MISMATCH") and lines[first + 1].startswith("  inputs"), "a report starts at column 0"
    assert re.search(r"^the simulator's whole output \(V=1 prints it here\): .*sim\.log$", out, re.MULTILINE), out
    _, failing = mismatched(out)
    assert failing > 0

    replay = printed_command(out, "replay them: ")
    assert replay[:2] == ["make", "sweep"] and f"RTL={ridge_mutant}" in replay and "SIM=icarus" in replay, replay
    again = run_command(replay)
    assert again.returncode != 0 and again.stdout.splitlines()[-1].startswith("FAIL; "), again.stdout + again.stderr
    assert mismatched(again.stdout) == (failing, failing)  # every saved vector, each failing again


@pytest.mark.sim
@pytest.mark.full
def test_one_vector_reruns_keep_only_and_a_passing_sweep_is_quiet_too(seed: int, ridge_mutant: Path) -> None:
    run = make_sweep("SIM=icarus", "N=4000", f"SEED={seed}", f"RTL={ridge_mutant}")
    vector = next(text for text in run.stdout.splitlines() if text.startswith("  seed ") and "ONLY=" in text)
    one = run_command(shlex.split(vector.split("rerun: ", 1)[1]))
    assert mismatched(one.stdout) == (1, 1), one.stdout
    rate = re.search(r"\(([\d.]+) (k |M )?verified vectors/s\)", one.stdout)
    assert rate and float(rate.group(1)) >= 1, one.stdout  # not "0.00 M" for one vector
    final = shlex.split(one.stdout.splitlines()[-1].split("rerun: ", 1)[1])
    assert any(word.startswith("ONLY=") for word in final) and f"RTL={ridge_mutant}" in final, final

    # The replay line without RTL= would replay against the project's RTL, which passes: RTL= is what makes it fail.
    replay = [word for word in printed_command(run.stdout, "replay them: ") if not word.startswith("RTL=")]
    project = run_command(replay)
    assert project.returncode == 0 and project.stdout.splitlines()[-1].startswith("PASS; "), project.stdout
    assert "INFO cocotb" not in project.stdout and "MISMATCH" not in project.stdout

    loud = make_sweep("SIM=icarus", "N=10", f"SEED={seed}", "V=1")
    assert "Running command: iverilog" in loud.stdout + loud.stderr, "V=1 prints the simulator's whole output"
