"""One run: the student's testbench against one design, in a fresh sandbox, with the design outside it.

The sandbox holds the staged testbench (/submission), the port shell and the channel's FIFOs
(/channel), and the simulator; the harness folders are hidden there (an empty folder over each),
so the testbench can import cocotb, numpy and the standard library, and nothing of the grader:
not its golden model, not its benches. Every run of every design sees the same files at the same
paths, the same environment (the random seeds fixed), and answers that take the same work; the
design behind the ports is named only in this process.

The run's result is two things: the channel server's transcript (what the testbench did to the design,
recorded here) and the testbench's claim (passed or failed, from cocotb's results, sent on the
result pipe). The claim is believed only as a claim about this one design.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cocotb_tools.config
import find_libpython

from roofline_core.paths import REPO_ROOT
from roofline_course import sandbox
from roofline_course.intake.testbench import Testbench
from roofline_course.labs.designs import Design, reference
from roofline_course.sandbox.mounts import HARNESS_PARTS
from roofline_course.testbench_lab.design_bank import DesignBank
from roofline_course.testbench_lab.port_channel import Channel, ChannelServer, Transcript
from roofline_course.testbench_lab.port_shell import ORACLE_PLUSARG, SHELL_TOP

CHANNEL = Path("/channel")  # where a bubblewrap sandbox sees the channel folder
LAUNCHER = Path(__file__).with_name("sandbox_job.py")
OUTCOMES = ("passed", "failed", "skipped")
PYTHON_HASH_SEED = "0"


@dataclass(frozen=True)
class RanTest:
    """One test as the testbench reports it (a claim: only ever shown to the student, never scored on its own)."""

    name: str
    outcome: str  # passed, failed, skipped
    message: str = ""  # a failure's exception, as its type and text (never its traceback)
    stop_ps: int | None = None  # the simulation time the test ended at, in ps


@dataclass
class RunResult:
    """One run as the grader judges it."""

    design: Design
    group: str
    transcript: Transcript
    tests: list[RanTest] | None  # None: no results came back
    seconds: float
    timed_out: bool
    crashed: bool
    log: str  # the run's output, relative to the report folder
    problem: str = ""  # the reply could not be read
    grader_error: str = ""
    group_hidden: bool = False

    @property
    def claim(self) -> str:
        """What the testbench says of this design: "pass" (every test that ran passed) or "fail"."""
        if not self.tests or self.problem:
            return "fail"
        ran = [t for t in self.tests if t.outcome != "skipped"]
        return "pass" if ran and all(t.outcome == "passed" for t in ran) else "fail"

    @property
    def behaved_correctly(self) -> bool:
        """On every vector the testbench applied, the design's outputs were the correct design's."""
        return self.design.correct or not self.transcript.exposed

    @property
    def failed_tests(self) -> list[RanTest]:
        return [t for t in self.tests or [] if t.outcome == "failed"]


def cocotb_env(testbench: Testbench, submission_inside: str, seed: int) -> dict[str, str]:
    """What cocotb needs in the sandbox; the same for every design of a grading."""
    libpython = find_libpython.find_libpython()
    return {
        "PYGPI_PYTHON_BIN": sys.executable, "GPI_USERS": f"{libpython};{cocotb_tools.config.pygpi_entry_point()}",
        "COCOTB_TOPLEVEL": SHELL_TOP, "TOPLEVEL_LANG": "verilog", "COCOTB_TEST_MODULES": ",".join(testbench.modules),
        "COCOTB_RESULTS_FILE": str(sandbox.WORK / "results.xml"), "COCOTB_RANDOM_SEED": str(seed),
        "PYTHONHASHSEED": PYTHON_HASH_SEED, "COCOTB_ANSI_OUTPUT": "0",
        "PYTHONPATH": str(Path(submission_inside) / testbench.folder) if testbench.folder else submission_inside,
    }


def hidden_harness(channel: Channel) -> list[tuple[Path, str]]:
    """The run's empty folder bound over each harness folder: the sandbox's Python cannot import the grader."""
    return [(channel.empty, str(REPO_ROOT / part)) for part in HARNESS_PARTS]


def run_design(design: Design, group: str, bank: DesignBank, shell: Path, testbench: Testbench, seed: int,
               timeout_s: float, limits: sandbox.Limits, slot: int, unsafe: bool, log_file: Path) -> RunResult:
    """The testbench against `design` (a column of `bank`), in a fresh sandbox."""
    channel = Channel(shell)
    bubblewrap = not unsafe and sandbox.mode() == "bwrap"
    inside = CHANNEL if bubblewrap else channel.folder  # without a mount, the step opens the folder where it is
    server = ChannelServer(channel, bank, design.column, reference(design.family, design.param_set).column)
    job = {"argv": ["vvp", "-n", "-m", str(cocotb_tools.config.lib_entry("vpi", "icarus")), str(inside / "shell.vvp"),
                    f"+{ORACLE_PLUSARG}={inside}", "-none"],
           "env": cocotb_env(testbench, str(sandbox.SUBMISSION), seed), "results": str(sandbox.WORK / "results.xml"),
           "cwd": str(sandbox.WORK)}
    extra = [*hidden_harness(channel), (channel.folder, str(CHANNEL))] if bubblewrap else []
    if not unsafe and sandbox.mode() == "uid":
        sandbox.passable(testbench.root)
    server.start()
    try:
        outcome = sandbox.run([sys.executable, "-I", "-c", LAUNCHER.read_text(), json.dumps(job)], submission=testbench.root,
                              timeout_s=timeout_s, limits=limits, slot=slot, extra_ro=extra, result_pipe=True,
                              unsafe=unsafe)
    finally:
        transcript = server.stop()
        channel.close()
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text(outcome.stdout + ("\n" + outcome.stderr if outcome.stderr.strip() else ""))
    tests, problem = read_reply(outcome.result)
    return RunResult(design, group, transcript, tests, outcome.seconds, outcome.timed_out, outcome.crashed,
                     str(log_file), problem, server.error)


def read_reply(data: bytes) -> tuple[list[RanTest] | None, str]:
    """The launcher's reply, read strictly: (the tests, or None; a problem, or "")."""
    if not data:
        return None, ""
    try:
        reply = json.loads(data.decode("utf-8", errors="replace"))
        tests = reply["tests"]
        if tests is None:
            return None, ""
        found = [RanTest(str(t["name"])[:200], str(t["outcome"]), str(t.get("message", ""))[:2000], _picoseconds(t))
                 for t in tests]
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, OverflowError):
        return None, "the run's reply could not be read"
    if any(t.outcome not in OUTCOMES for t in found):
        return None, "the run's reply could not be read"
    return found, ""


def _picoseconds(test: dict) -> int | None:
    """A test's stop time (ns, as cocotb reports it) in ps; None when it is missing or not a time."""
    stop = test.get("stop_ns")
    if not isinstance(stop, int | float) or isinstance(stop, bool) or not 0 <= stop < 1e15:
        return None
    return round(stop * 1000)
