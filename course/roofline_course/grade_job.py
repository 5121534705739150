"""One graded group, run in its own process so that a hung design can be killed with its simulator.

The grader writes a job file (JSON), runs `python -m roofline_tb.grade_job JOB OUT`, and reads
OUT; when the process outlives its time, the grader kills its whole process group.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

from roofline_flows.synth import ff_count, ice40, lut_count
from roofline_tb.config import BenchConfig
from roofline_tb.contract import ParamSet
from roofline_tb.runner import exact_build, run_build


def run_sim(job: dict) -> dict:
    p = ParamSet(**job["param_set"])
    cfg = BenchConfig(job["top"], job["sim"], p, job["seed"], sweep=job["sweep"], rtl=job["rtl"])
    build = exact_build(cfg, [Path(f) for f in job["files"]], Path(job["folder"]))
    testcase = r"(^|\.)(" + "|".join(job["tests"]) + ")$"  # cocotb matches "module.test"
    try:
        result = run_build(build, testcase=testcase, quiet=True)
    except SystemExit:
        log = Path(job["folder"]) / "sim.log"
        return {"error": f"the simulator could not build or run the design (log: {log})"}
    log = Path(job["folder"]) / "sim.log"
    failures = list(result.failures)
    stop = simulator_stop(log)
    if stop and failures:
        failures[0] = f"{failures[0]}\n\n{stop}"
    return {"passed": result.passed, "failures": failures, "log": str(log)}


def simulator_stop(log: Path) -> str:
    """Why the simulator itself stopped, when its log says: Verilator names a combinational loop."""
    text = log.read_text(errors="replace") if log.exists() else ""
    match = re.search(r"%Error-DIDNOTCONVERGE: (\S+?):(\d+): .*", text)
    if match:
        return (f"the simulator stopped: the logic did not settle ({Path(match[1]).name}:{match[2]}): a "
                "combinational loop, a signal that depends on itself through assign or always @*")
    return ""


def run_synthesis(job: dict) -> dict:
    missing = [tool for tool in ("yosys", "nextpnr-ice40") if shutil.which(tool) is None]
    if missing:
        return {"error": f"this group needs {' and '.join(missing)}: apt-get install yosys nextpnr-ice40 fpga-icestorm"}
    p = ParamSet(**job["param_set"])
    folder = Path(job["folder"])
    folder.mkdir(parents=True, exist_ok=True)
    outcome = ice40(job["top"], "grade", p, job["device"], folder, " ".join(job["files"]), freq=50)
    if not outcome.ok:
        return {"error": f"synthesis failed: {outcome.problem}"}
    return {"fmax_mhz": outcome.fmax_mhz, "luts": lut_count(outcome.cells), "ffs": ff_count(outcome.cells),
            "cells": outcome.cells}


def main(argv: list[str]) -> int:
    job_file, out_file = Path(argv[0]), Path(argv[1])
    job = json.loads(job_file.read_text())
    try:
        result = run_sim(job) if job["kind"] == "sim" else run_synthesis(job)
    except Exception as problem:  # noqa: BLE001 - a crash is reported as this group's result, never lost
        result = {"error": f"the grader could not run this group: {type(problem).__name__}: {problem}"}
    out_file.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

