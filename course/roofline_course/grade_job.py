"""One graded group, run inside the sandbox: `python -m roofline_course.grade_job < job.json`.

It builds and runs the group's cocotb tests on the staged submission (/submission) in the
sandbox's /run, streams the simulator's output to stdout (which the grader keeps, capped), and
writes its result as JSON to the pipe named by ROOFLINE_RESULT_FD, which the simulator does
not inherit. cocotb writes its results under a random name the design cannot guess, and a
simulator that stops abnormally (a crash, a signal, a limit) fails the group whatever files it
left behind.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from pathlib import Path

from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.runner import SimulatorStopped, exact_build, run_build
from roofline_core.tools import eda_command, tool_available, tool_version
from roofline_flows.synth import DEVICES, ff_count, lut_count, place_and_route

from .sandbox import RESULT_FD_VARIABLE

WORK = Path("/run")
LOG_LIMIT = 8 << 20


def run_sim(job: dict) -> dict:
    p = ParamSet(**job["param_set"])
    cfg = BenchConfig(job["top"], job["sim"], p, job["seed"], sweep=job["sweep"], rtl=job["rtl"])
    build = exact_build(cfg, [Path(f) for f in job["files"]], Path(job["folder"]), includes=tuple(job["includes"]))
    testcase = r"(^|\.)(" + "|".join(job["tests"]) + ")$"  # cocotb matches "module.test"
    try:
        result = run_build(build, testcase=testcase, log_stream=sys.stdout, log_limit=LOG_LIMIT,
                           results_name=f"results-{secrets.token_hex(16)}.xml")
    except SimulatorStopped as stop:
        return {"stopped": _why_stopped(str(stop))}
    return {"passed": result.passed, "passed_tests": list(result.passed_tests), "failures": list(result.failures)}


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
    result_fd = int(os.environ[RESULT_FD_VARIABLE])
    os.set_inheritable(result_fd, False)  # the simulator this process starts must not hold it
    job = json.loads(sys.stdin.read())
    try:
        result = run_sim(job) if job["kind"] == "sim" else run_synthesis(job)
    except Exception as problem:  # noqa: BLE001 - a crash is reported as this group's result, never lost
        result = {"error": f"the grader could not run this group: {type(problem).__name__}: {problem}"}
    with os.fdopen(result_fd, "w") as channel:
        channel.write(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
