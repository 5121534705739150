"""One graded group, run inside the sandbox: `python -m roofline_course.design_lab.sandbox_job < job.json`.

A simulation job builds the design it is given (a Build, made by the grader) under the puppet
(roofline_cocotb.puppet): the design's ports, worked by the grader's bench from outside. This
process hands the simulator two pipes, the grader's commands (ROOFLINE_COMMAND_FD) and the result
pipe for the puppet's answers (ROOFLINE_RESULT_FD), and forwards the simulator's output to stdout.
It holds no bench, stimulus, seed or model, and decides nothing: once the design runs, this process
is no more trusted than the design, and the grader holds every answer to its protocol. A synthesis
job (no design code runs in it) returns the tools' figures on the result pipe.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

from roofline_core import cocotb_stand_in

if __name__ == "__main__":  # a grading step, which runs no test itself; never a process that imports this
    cocotb_stand_in.install()  # before the runner imports cocotb-test

from roofline_cocotb.puppet import ANSWERS_FD, COMMANDS_FD  # noqa: E402
from roofline_core.simulator import Build, SimulatorStopped, run_build  # noqa: E402
from roofline_core.tools import eda_command, tool_available, tool_version  # noqa: E402
from roofline_course.sandbox.run import COMMAND_FD_VARIABLE, RESULT_FD_VARIABLE  # noqa: E402

LOG_LIMIT = 8 << 20


def note(channel: int, text: str) -> None:
    os.write(channel, (json.dumps({"job": text}) + "\n").encode())


def run_sim(job: dict, channel: int) -> None:
    commands = int(os.environ[COMMAND_FD_VARIABLE])
    build = Build.from_json(job["build"])
    build = replace(build, env={**build.env, COMMANDS_FD: str(commands), ANSWERS_FD: str(channel)},
                    pass_fds=(commands, channel))
    try:
        run_build(build, testcase=r"(^|\.)serve$", log_stream=sys.stdout, log_limit=LOG_LIMIT)
    except SimulatorStopped as stop:
        note(channel, _why_stopped(str(stop)))


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
    from roofline_core.contract import ParamSet  # only a synthesis job needs these: a simulation's sandbox lacks them
    from roofline_flows.synth import DEVICES, ff_count, lut_count, place_and_route

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
