"""Inside the sandbox: run the student's cocotb testbench on the port shell, and send back its claim.

The grader runs this file's text as `python -I -c <text> <job>`: the harness is not importable in
the sandbox (its folders are hidden there), so this uses the standard library only. It starts
the simulator (Icarus with cocotb) as a child that does not inherit the result pipe, then reads
the results.xml cocotb wrote and sends each test's outcome on the pipe. This process is no more
trusted than the testbench once that has run: what it sends is only the testbench's claim that
it passed or failed this one design, which is the testbench's to make.
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

MAX_TESTS = 500
MAX_MESSAGE = 2000


def outcomes(path: str) -> list[dict[str, object]] | None:
    """Each test's name, outcome (passed, failed, skipped), failure (its exception's type and text, without the
    traceback, whose frames name the grading machine's files) and stop time; None without a results file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    found = []
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        outcome = "skipped" if case.find("skipped") is not None else ("failed" if problem is not None else "passed")
        message = "" if problem is None else ": ".join(part for part in (problem.get("type"), problem.get("message")) if part)
        stop = next((p.get("value") for p in case.iter("property") if p.get("name") == "sim_time_stop"), None)
        try:
            stop_ns = float(stop) if stop is not None else None
        except ValueError:
            stop_ns = None
        found.append({"name": f"{case.get('classname', '')}.{case.get('name', '')}"[:200], "outcome": outcome,
                      "message": message.strip()[:MAX_MESSAGE], "stop_ns": stop_ns})
        if len(found) >= MAX_TESTS:
            break
    return found


def main() -> int:
    job = json.loads(sys.argv[1])
    channel = int(os.environ.pop("ROOFLINE_RESULT_FD"))
    run = subprocess.run(job["argv"], env={**os.environ, **job["env"]}, cwd=job["cwd"], stdin=subprocess.DEVNULL)
    reply = {"returncode": run.returncode, "tests": outcomes(job["results"])}
    os.write(channel, json.dumps(reply).encode())
    os.close(channel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
