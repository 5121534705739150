"""A synthesis group's score: the tools' figures for an iCE40, held against the lab's target clock rate."""

from __future__ import annotations

import json

from roofline_course import sandbox
from roofline_course.labs.definitions import Group
from roofline_course.results import GroupScore
from roofline_flows.synth import DEVICE_NAMES, DEVICES

SYNTH_TIMEOUT_FACTOR = 3  # place and route takes longer than a simulation


def synthesis_tools(group: Group) -> tuple[str, str]:
    return "yosys", DEVICES[group.device][1]


def score_synthesis(group: Group, outcome: sandbox.Outcome, log: str) -> GroupScore:
    """Synthesis runs no design code: its figures come from the tools, read in the sandbox by the
    grader's own job. The log stays in the report folder (the terminal names it; a student's
    platform, which cannot open it, is not sent its path)."""
    if outcome.timed_out:
        return GroupScore(group, 0.0, "timeout", ["TIMEOUT: synthesis did not finish in time"], outcome.seconds, log=log)
    try:
        result = json.loads(outcome.result)
        fmax, luts, ffs = float(result.get("fmax_mhz") or 0.0), int(result["luts"]), int(result["ffs"])
    except (ValueError, KeyError, TypeError, AttributeError):
        why = result.get("error") if isinstance(locals().get("result"), dict) else None
        return GroupScore(group, 0.0, "error", [why or "synthesis gave no result"], outcome.seconds, log=log)
    ratio = min(1.0, fmax / group.min_fmax_mhz) if group.min_fmax_mhz else 1.0
    tools = f"; ran on {' and '.join(result['tools'])}" if result.get("tools") else ""
    line = (f"{DEVICE_NAMES[group.device]}: {luts:,} LUT4, {ffs:,} flip-flops, "
            f"Fmax {fmax:.1f} MHz (target {group.min_fmax_mhz:.0f} MHz){tools}")
    status = "pass" if ratio >= 1.0 else "partial"
    detail = [line] + ([] if ratio >= 1.0 else ["below the target clock rate: scored in proportion; "
                                               "register the long paths (the products and the binding search)"])
    return GroupScore(group, group.weight * ratio, status, detail, outcome.seconds, log=log)
