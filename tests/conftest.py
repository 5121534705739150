"""Shared pytest setup: one seed per regression run, printed, and reproducible with SEED=<n>; the
slowest tests first, so that the workers finish together rather than one waiting on a long tail."""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
from pathlib import Path

import pytest
import skip_policy

from roofline_core.paths import BUILD_ROOT, RTL_DIR
from roofline_core.simulator import BUILD_TIMES_VARIABLE
from roofline_flows.rtl_mutant_catalogue import ridge_mutant_edit

# Seconds each test took: the last run's (build/), else the snapshot kept with the tests.
DURATIONS_SNAPSHOT = Path(__file__).with_name("durations.json")
DURATIONS_LAST_RUN = BUILD_ROOT / "test-durations.json"
BUILD_TIMES = BUILD_ROOT / "build-times.jsonl"


def cpu_seconds() -> tuple[float, float] | None:
    """(busy, idle) CPU seconds of the whole machine since boot, summed over its CPUs (Linux)."""
    try:
        ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        hertz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / hertz, idle / hertz


_cpu_at_start: tuple[float, float] | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _cpu_at_start
    skip_policy.register(config)  # tests/allowed-skips.toml: which test may skip where
    # Set before xdist starts its workers, so every worker inherits the same seed.
    if not os.environ.get("ROOFLINE_SEED"):
        os.environ["ROOFLINE_SEED"] = str(random.randrange(1 << 31))
    if not hasattr(config, "workerinput"):
        _cpu_at_start = cpu_seconds()
        BUILD_TIMES.parent.mkdir(parents=True, exist_ok=True)
        BUILD_TIMES.unlink(missing_ok=True)  # this run's builds only
        os.environ[BUILD_TIMES_VARIABLE] = str(BUILD_TIMES)  # the workers inherit it


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How busy the machine's CPUs were, and how much of the run was building simulators (the rest
    is simulating, checking, and waiting on time limits, sandboxes and other processes)."""
    now = cpu_seconds()
    if _cpu_at_start and now:
        busy, idle = now[0] - _cpu_at_start[0], now[1] - _cpu_at_start[1]
        if busy + idle > 0:
            terminalreporter.write_line(
                f"CPU: {os.cpu_count()} CPU(s) {100 * busy / (busy + idle):.0f}% busy during the run "
                f"({busy:.1f} s busy, {idle:.1f} s idle, the whole machine)")
    try:
        entries = [json.loads(line) for line in BUILD_TIMES.read_text().splitlines() if line.strip()]
    except OSError:
        return
    builds = [entry for entry in entries if "s" in entry]
    waits = [entry["wait"] for entry in entries if entry.get("wait", 0) >= 0.05]
    total = sum(step["s"] for step in builds)
    tested = sum(_timed.values())
    runs, designs = len({step["run"] for step in builds}), len({step["folder"] for step in builds})
    terminalreporter.write_line(
        f"simulator builds: {runs} builds of {designs} designs took {total:.0f} s of the {tested:.0f} s the tests "
        f"took ({100 * total / tested if tested else 0:.0f}%); {len(waits)} runs waited {sum(waits):.0f} s "
        f"for another run of their build folder")


@pytest.hookimpl(optionalhook=True)  # xdist's hook: a run without xdist has none
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than this process may use CPUs. Many tests wait (on a sandbox's
    time limit, a subprocess's pipe, a build folder's lock), and with one worker per CPU a waiting
    worker left its CPU idle: make test on 2 CPUs, 2 workers 92% busy in 110 s, 3 workers 99% in 95 s,
    4 workers 100% in 98 s (one more collection and more contention). PYTEST_XDIST_AUTO_NUM_WORKERS
    still sets the number, as xdist documents."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


def known_durations() -> dict[str, float]:
    for path in (DURATIONS_LAST_RUN, DURATIONS_SNAPSHOT):
        try:
            return {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
        except (OSError, ValueError, AttributeError):
            continue
    return {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slowest first (xdist hands tests out in this order); a test not timed yet counts as typical.
    Every worker reads the same file, so every worker collects the same order."""
    durations = known_durations()
    typical = statistics.median(durations.values()) if durations else 0.0
    items.sort(key=lambda item: -durations.get(item.nodeid, typical))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (every module, every test item) lives as long as the worker: moved out of
    the garbage collector's reach, so that its full collections stop scanning it again and again
    (4.3 of the workers' 76 CPU-seconds of make test went to collecting, 3.4 with the freeze)."""
    gc.freeze()


_timed: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _timed[report.nodeid] = _timed.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput") or not _timed:
        return  # an xdist worker: the controller, which sees every report, writes the file
    merged = {**known_durations(), **{k: round(v, 2) for k, v in _timed.items()}}
    DURATIONS_LAST_RUN.parent.mkdir(parents=True, exist_ok=True)
    DURATIONS_LAST_RUN.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")


def pytest_report_header(config: pytest.Config) -> str:
    seed = os.environ["ROOFLINE_SEED"]
    rtl = os.environ.get("ROOFLINE_RTL") or "rtl/ (the project's)"
    return f"roofline-hw: seed {seed} (rerun: make test SEED={seed}); RTL: {rtl}"


@pytest.fixture(scope="session")
def seed() -> int:
    return int(os.environ["ROOFLINE_SEED"])


# The ridge counted as memory-bound: a bug that random sweeps find within a few thousand vectors.
RIDGE_MUTANT_FILE, RIDGE_MUTANT_ORIGINAL, RIDGE_MUTANT_BUG = ridge_mutant_edit()


@pytest.fixture
def ridge_mutant(tmp_path: Path) -> Path:
    """The project's RTL with one bug (the compute roof taken at the ridge), as a drop-in file."""
    source = (RTL_DIR / RIDGE_MUTANT_FILE).read_text()
    assert source.count(RIDGE_MUTANT_ORIGINAL) == 1
    mutant = tmp_path / RIDGE_MUTANT_FILE
    mutant.write_text(source.replace(RIDGE_MUTANT_ORIGINAL, RIDGE_MUTANT_BUG))
    return mutant
