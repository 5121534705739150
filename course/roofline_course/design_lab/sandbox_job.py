"""One graded group, run inside the sandbox: `python -m roofline_course.design_lab.sandbox_job < job.json`.

A simulation job builds the group's cocotb tests on the staged submission (/submission) in the
sandbox's /run and runs them with a tape (roofline_bench.tape): the bench records every value it
reads from the design's ports. This process forwards the tape, as it grows, to the pipe named by
ROOFLINE_RESULT_FD, and the simulator's output to stdout. It decides nothing: once the design
runs, this process is no more trusted than the design, and the grader outside judges the tape.
A synthesis job (no design code runs in it) returns the tools' figures on the same pipe.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
import threading
from dataclasses import replace
from pathlib import Path

from roofline_core import cocotb_stand_in

if __name__ == "__main__":  # a grading step, which runs no test itself; never a process that imports this
    cocotb_stand_in.install()  # before the runner imports cocotb-test

from roofline_bench.tape import TAPE_VARIABLE  # noqa: E402
from roofline_core.config import BenchConfig  # noqa: E402
from roofline_core.contract import ParamSet  # noqa: E402
from roofline_core.runner import SimulatorStopped, exact_build, run_build  # noqa: E402
from roofline_core.tools import eda_command, tool_available, tool_version  # noqa: E402
from roofline_course.sandbox import RESULT_FD_VARIABLE  # noqa: E402

LOG_LIMIT = 8 << 20
FORWARD_S = 0.05


class Forwarder(threading.Thread):
    """Copies the tape file to the result pipe as it grows, so a run stopped at its time limit has
    already handed over everything but its last moments."""

    def __init__(self, path: Path, channel: int) -> None:
        super().__init__(daemon=True)
        self.path, self.channel = path, channel
        self.done = threading.Event()

    def run(self) -> None:
        with self.path.open("rb") as tape:
            while True:
                finished = self.done.wait(FORWARD_S)
                while chunk := tape.read(1 << 16):
                    os.write(self.channel, chunk)
                if finished:
                    return


def note(channel: int, text: str) -> None:
    os.write(channel, (json.dumps({"job": text}) + "\n").encode())


def run_sim(job: dict, channel: int) -> None:
    p = ParamSet(**job["param_set"])
    cfg = BenchConfig(job["top"], job["sim"], p, job["seed"], sweep=job["sweep"], rtl=job["rtl"])
    folder = Path(job["folder"])
    build = exact_build(cfg, [Path(f) for f in job["files"]], folder, includes=tuple(job["includes"]))
    tape = folder / f"tape-{secrets.token_hex(8)}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    tape.touch()
    build = replace(build, env={**build.env, TAPE_VARIABLE: str(tape)})
    forwarder = Forwarder(tape, channel)
    forwarder.start()
    testcase = r"(^|\.)(" + "|".join(re.escape(test) for test in job["tests"]) + ")$"  # cocotb matches "module.test"
    try:
        run_build(build, testcase=testcase, log_stream=sys.stdout, log_limit=LOG_LIMIT)
    except SimulatorStopped as stop:
        forwarder.done.set()
        forwarder.join()
        note(channel, _why_stopped(str(stop)))
        return
    forwarder.done.set()
    forwarder.join()


def _why_stopped(message: str) -> str:
    if message.startswith("the simulator printed"):
        return message
    if match := re.search(r"terminated with error (-?\d+)", message):
        code = int(match[1])
        signals = {-9: "was killed (a time or memory limit)", -11: "crashed (segmentation fault: deep recursion?)",
                   -25: "wrote a file larger than the limit", -24: "used more CPU time than the limit",
                   -6: "aborted"}
        return f"the simulator {signals.get(code, f'stopped with status {code}')}"
    if "results file not found" in message:
        return "the simulator stopped before it finished the tests"
    return "the design could not be built for simulation (see the log)"


def run_synthesis(job: dict) -> dict:
    from roofline_flows.synth import DEVICES, ff_count, lut_count, place_and_route  # only a synthesis job needs it

    tools = ("yosys", DEVICES[job["device"]][1])
    missing = [tool for tool in tools if not tool_available(tool)]
    if missing:
        return {"error": f"this group needs {' and '.join(missing)}: pip install -e '.[eda]' (or apt-get install them)"}
    p = ParamSet(**job["param_set"])
    folder = Path(job["folder"])
    folder.mkdir(parents=True, exist_ok=True)
    outcome = place_and_route(job["top"], "grade", p, job["device"], folder, " ".join(f'"{f}"' for f in job["files"]), freq=50)
    if not outcome.ok:
        return {"error": f"synthesis failed: {outcome.problem.replace('/submission/', '')}"}
    return {"fmax_mhz": outcome.fmax_mhz, "luts": lut_count(outcome.cells), "ffs": ff_count(outcome.cells),
            "cells": outcome.cells, "tools": [tool_version(eda_command(tool)) for tool in tools]}


def main() -> int:
    channel = int(os.environ[RESULT_FD_VARIABLE])
    job = json.loads(sys.stdin.read())
    try:
        if job["kind"] == "sim":
            run_sim(job, channel)
        else:
            os.write(channel, json.dumps(run_synthesis(job)).encode())
    except Exception as problem:  # noqa: BLE001 - said on the pipe; the grader outside decides what it means
        note(channel, f"the grader could not run this group: {type(problem).__name__}: {problem}")
    os.close(channel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
