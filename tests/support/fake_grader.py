"""A stand-in for `python -m roofline_course.grade` in grade-all's tests: the same command line and
the same result.json keys, in a fraction of a second, with no simulator.

It stages the submission with the grader's own intake, the lab's (a design's, or a testbench lab's:
so a zip is unpacked, a one-file entry taken or refused as the grader does, and the staged copy
lands at <out>/submission as the grader leaves it), then writes the result the submission asks
for in a comment of its files, `// fake-result: {json}` (`# fake-result: {json}` in Python): a partial result merged over full
marks, or {"exit": n} (exit without a result), {"raw": text} (that text as result.json),
{"deep": n} (JSON nested n deep). Without the comment (the reference in rtl/), full marks.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from roofline_course.intake import submission as intake
from roofline_course.intake import testbench
from roofline_course.labs.definitions import TESTBENCH_KINDS

VERDICT = re.compile(r"(?://|#)\s*fake-result:\s*(\{.*\})\s*$", re.M)
SECONDS_PER_GROUP = 1.5
TEMPLATE = "FAKE_GRADER_TEMPLATE"  # a file holding full_marks(lab): saves each run importing the labs


def full_marks(lab_number: int) -> dict[str, Any]:
    """A result.json as reports.canonical writes it, for full marks in the lab."""
    from roofline_course.labs.definitions import load_lab  # only here: a grader run reads this from TEMPLATE, which is faster

    lab = load_lab(lab_number)
    groups = [{"name": group.name, "hidden": group.hidden, "kind": group.kind, "covers": group.covers,
               "weight": group.weight, "score": group.weight, "status": "pass", "scoring": group.scoring, "detail": [],
               "failing": [], "rerun": "", "log": "", "seconds": SECONDS_PER_GROUP} for group in lab.groups]
    return {"schema": 1, "lab": lab.number, "title": lab.title, "top": lab.top, "submission": "", "sim": "icarus",
            "status": "graded", "gradable": True, "score": lab.max_score, "max_score": lab.max_score, "stage": "ok",
            "problems": [], "warnings": [], "notes": [], "groups": groups, "seconds": SECONDS_PER_GROUP * len(groups)}


def result_document(template: dict[str, Any], verdict: dict[str, Any] | None = None) -> dict[str, Any]:
    """Full marks (the template), then the verdict's changes: groups by name, "zero" for a refusal, other keys."""
    verdict = dict(verdict or {})
    changes = verdict.pop("groups", {})
    zero = verdict.pop("zero", False)
    groups = [{**group, **({"score": 0.0, "status": "not run"} if zero else {}), **changes.get(group["name"], {})}
              for group in template["groups"]]
    document = {**template, "groups": groups, "gradable": not zero, "score": sum(g["score"] for g in groups)}
    return {**document, **verdict}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lab", type=int)
    parser.add_argument("--rtl")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--timeout", type=float, default=None)
    args, _ = parser.parse_known_args()
    template = json.loads(Path(os.environ[TEMPLATE]).read_text()) if TEMPLATE in os.environ else full_marks(args.lab)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "argv.json").write_text(json.dumps({"timeout": args.timeout}))
    testbench_lab = all(group["kind"] in TESTBENCH_KINDS for group in template["groups"])  # as the lab's result says
    try:
        staging = args.out / "submission"
        staged = testbench.stage(args.rtl, staging).root if testbench_lab else intake.stage(args.rtl, staging).root
        texts = [p.read_text(errors="replace") for p in sorted(staged.rglob("*.py" if testbench_lab else "*.sv"))]
    except (intake.IntakeError, OSError) as problem:
        document = result_document(template, {"zero": True, "status": "no files", "problems": [str(problem)]})
        (args.out / "result.json").write_text(json.dumps(document))
        return 2
    found = next((m for text in texts if (m := VERDICT.search(text))), None)
    verdict = json.loads(found[1]) if found else {}
    if "exit" in verdict:
        print("the fake grader stops as asked", file=sys.stderr)
        return int(verdict["exit"])
    if "raw" in verdict:
        (args.out / "result.json").write_text(verdict["raw"])
        return 1
    if "deep" in verdict:
        (args.out / "result.json").write_text("[" * verdict["deep"] + "]" * verdict["deep"])
        return 1
    document = result_document(template, verdict)
    (args.out / "result.json").write_text(json.dumps(document))
    return 0 if document["score"] >= document["max_score"] else 1


if __name__ == "__main__":
    sys.exit(main())
