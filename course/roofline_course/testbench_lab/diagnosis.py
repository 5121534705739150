"""Why a testbench failed a design that behaved correctly: a wrong check, or a verdict that is not a function of the ports.

Two runs whose transcripts have one digest exchanged the same vectors and the same answers: at the
ports they were the same run. So among the runs that behaved correctly at one format:
- the same exchange failed every time, and the correct design among them: the testbench's own
  check is wrong there. The feedback names, for each failing test, the last vector it applied
  before it failed (from the test's stop time and the transcript), the correct design's outputs
  on it, in units, the contract's clause there, and the test's own message (its expected value);
- the same exchange passed on one run and failed on another: the verdict depends on something
  besides the ports (nondeterminism);
- a failure on an exchange no run of the correct design had: the vectors themselves depend on
  something besides the ports.
A test's message is the student's own text, shown from runs of the correct design only; it is
cleaned of tracebacks and of paths outside the testbench's own folder (the grading machine's).
"""

from __future__ import annotations

import re

from roofline_core.contract import PORT_UNITS
from roofline_course.testbench_lab.port_channel import RECORDED_STEPS, read_query
from roofline_course.testbench_lab.port_shell import SHELL_INPUTS, SHELL_OUTPUTS
from roofline_course.testbench_lab.run import RanTest, RunResult
from roofline_golden import QFormat, fixed

SHOWN_FAILURES = 3
MESSAGE_LINES = 4
LINE_CHARS = 240
NONDETERMINISM = "an unseeded random choice, the time, a file?"
FRAME = re.compile(r'^\s*(Traceback \(most recent call last\):|File "|During handling of the above exception|'
                   r"The above exception was the direct cause)")
PATH = re.compile(r"(?<![\w.~-])/(?:[^\s/'\"():,;<>]+/)*[^\s/'\"():,;<>]*")
OWN_FOLDER = "/submission/"  # where the sandbox shows the testbench's own files


def describe_format(run: RunResult) -> str:
    fmt = run.design.param_set
    return f"UQ{fmt.int_bits}.{fmt.frac_bits}"


def student_message(text: str) -> list[str]:
    """A test's failure message as a student may see it: no traceback frames, no path of the grading machine
    (a path into the testbench's own folder keeps its name there), at most MESSAGE_LINES lines."""
    lines, skip_code = [], False
    for line in text.splitlines():
        if FRAME.match(line):
            skip_code = line.lstrip().startswith("File ")  # the frame's source line follows it
            continue
        if skip_code and line.startswith("    "):
            skip_code = False
            continue
        skip_code = False
        shown = PATH.sub(_path, line).rstrip()
        if shown.strip():
            lines.append(shown[:LINE_CHARS])
    return lines[:MESSAGE_LINES]


def _path(match: re.Match[str]) -> str:
    path = match.group(0)
    if path.startswith(OWN_FOLDER):
        return path[len(OWN_FOLDER):]
    return path if path == "/" or path.count("/") < 2 else "<path>"


def contract_clause(fmt: QFormat, peak: int, bw: int, ai: int) -> str:
    """What the contract says of this vector's region, in the handout's words."""
    f = fmt.frac_bits
    product, scaled_peak = ai * bw, peak << f
    if peak == 0:
        return "peak = 0 gives cap 0, compute-bound (mem_bound_o = 0), whatever ai and bw"
    if ai == 0 or bw == 0:
        return "ai = 0 or bw = 0 gives cap 0, memory-bound (mem_bound_o = 1)"
    if product > fmt.max_raw << f:
        return "a product wider than W bits is compute-bound: mem_bound_o = 0, cap_o = peak"
    if product == scaled_peak:
        return "at the ridge (ai x bw == peak exactly) the compute roof binds: mem_bound_o = 0, cap_o = peak"
    if product + 1 == scaled_peak:
        return "one full-precision step below the ridge is memory-bound: mem_bound_o = 1, and its cap (rounded) may be peak"
    if product < scaled_peak:
        tie = " (this one is a tie: exactly half an LSB, so it rounds up)" if product & ((1 << f) - 1) == 1 << (f - 1) else ""
        return ("memory-bound (ai x bw < peak at full precision): mem_bound_o = 1, cap_o = the product rounded to "
                f"nearest, ties up (add 1 << (FRAC_BITS-1), drop the low FRAC_BITS bits){tie}")
    return "compute-bound (ai x bw > peak): mem_bound_o = 0, cap_o = peak"


def vector_lines(run: RunResult, test: RanTest) -> list[str]:
    """Where the test failed: the last vector it applied, the correct design's outputs there and the contract's clause."""
    if test.stop_ps is None:
        return []
    at = f"{test.stop_ps / 1000:g} ns"
    found = run.transcript.vector_before(test.stop_ps)
    if found is None:
        if run.transcript.dropped_from is not None and test.stop_ps > run.transcript.dropped_from:
            return [f"it failed at {at}, after the first {RECORDED_STEPS:,} time steps (the ones the grader records)"]
        return [f"it failed at {at}, before it applied any vector"]
    fmt = run.design.param_set.params.fmt
    query = read_query(" ".join([*found[1], str(found[0])]).encode(), fmt)
    if query.values is None:
        shown = ", ".join(f"{name} {text}" for name, text in zip(SHELL_INPUTS, query.vector, strict=True))
        return [f"it failed at {at}; the last vector it applied holds an X or Z ({shown}): the grader answers every "
                "output X there (the contract covers known inputs only), so drive known values before you check"]
    out = fixed.attainable(fmt, *query.values)
    inputs = ", ".join(f"{name} {fmt.describe(value, PORT_UNITS[name])}"
                       for name, value in zip(SHELL_INPUTS, query.values, strict=True))
    cap_name, mem_bound_name = SHELL_OUTPUTS
    return [f"it failed at {at}, on the last vector it applied: {inputs}",
            f"the correct design gives {cap_name} {fmt.describe(out.cap, PORT_UNITS[cap_name])} and {mem_bound_name} "
            f"{int(out.mem_bound)} ({'memory' if out.mem_bound else 'compute'}-bound)",
            f"the contract there: {contract_clause(fmt, *query.values)}"]


def failure_lines(run: RunResult) -> list[str]:
    """The student's own failing tests on this run (of the correct design only): where each failed and its message."""
    assert run.design.correct, "a faulty design's run never shows the student's messages"
    lines = []
    for test in run.failed_tests[:SHOWN_FAILURES]:
        lines.append(f"  {test.name} failed:")
        lines += [f"    {line}" for line in vector_lines(run, test)]
        said = student_message(test.message) or ["(no message)"]
        lines += [f"    your test said: {said[0]}", *(f"      {line}" for line in said[1:])]
    if len(run.failed_tests) > SHOWN_FAILURES:
        lines.append(f"  ... and {len(run.failed_tests) - SHOWN_FAILURES} more failing test(s)")
    return lines


def looked_alike(run: RunResult) -> tuple[object, str]:
    return run.design.param_set, run.transcript.digest


def wrong_verdicts(failed: list[RunResult], every: list[RunResult]) -> list[str]:
    """The feedback for runs the testbench failed though the design behaved correctly on them, compared with
    `every` run of the grading so far."""
    lines: list[str] = []
    for key in dict.fromkeys(looked_alike(run) for run in failed):
        own = [run for run in failed if looked_alike(run) == key]
        alike = [run for run in every if run.behaved_correctly and not run.timed_out and looked_alike(run) == key]
        passed = [run for run in alike if run.claim == "pass"]
        correct = [run for run in own if run.design.correct]
        fmt = describe_format(own[0])
        if passed:
            lines.append(f"your testbench judged the same vectors two ways ({fmt}): on {len(alike)} runs the design "
                         f"answered every vector alike, and your testbench failed {len(own)} of them and passed "
                         f"{len(passed)}: its verdict depends on something besides the ports ({NONDETERMINISM})")
        elif correct:
            runs = f", {len(correct)} runs" if len(correct) > 1 else ""
            lines.append(f"FALSE ALARM: your testbench failed the correct design ({fmt}{runs}): its check is wrong "
                         "there, not the design")
            if faulty := len(own) - len(correct):
                lines.append(f"  (and {faulty} faulty design(s) whose answers to your vectors were the correct design's: "
                             "the same check)")
        else:
            lines.append(f"your testbench failed {len(own)} faulty design(s) whose answers to every vector it applied were "
                         f"the correct design's ({fmt}), on vectors it never applied to the correct design: its vectors "
                         f"depend on something besides the ports ({NONDETERMINISM})")
        if correct:
            lines += failure_lines(correct[0])
    return lines
