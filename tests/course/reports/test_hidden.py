"""Hidden means hidden in every student-facing report of a real grading; a broken upload costs no
PrairieLearn attempt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_grading import SLOT, grade, needs_sandbox  # noqa: F401

from roofline_core.paths import LABS_DIR
from roofline_course.reports import platforms

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all



@needs_sandbox
@pytest.mark.sim
def test_hidden_means_hidden_in_every_student_facing_report(tmp_path: Path) -> None:
    starter = LABS_DIR / "lab1" / "starter"
    code, result, stdout = grade(starter, tmp_path / "out", "--student-view")
    hidden = [g for g in result["groups"] if g["hidden"]]
    assert hidden and all(g["detail"] for g in hidden)  # the instructor's result has them
    assert "SEED=4242" not in stdout and "random sweep (" not in stdout and "(after the due date)" in stdout
    gradescope = json.loads((tmp_path / "out" / "gradescope.json").read_text())
    assert "score" not in gradescope  # Gradescope sums the tests, applying each one's visibility
    for test in gradescope["tests"]:
        hidden_group = any(g["name"] == test["name"] and g["hidden"] for g in result["groups"])
        assert test["visibility"] == ("after_due_date" if hidden_group else "visible")
    prairie = json.loads((tmp_path / "out" / "prairielearn.json").read_text())
    assert prairie["gradable"] and 0 <= prairie["score"] < 1
    assert all("SEED=4242" not in t["output"] for t in prairie["tests"])


def test_a_broken_upload_costs_no_prairielearn_attempt() -> None:
    result = {"gradable": False, "problems": ["roofline_attainable.sv:2: syntax error"], "score": 0, "max_score": 100}
    assert platforms.prairielearn(result) == {
        "gradable": False,
        "format_errors": ["roofline_attainable.sv:2: syntax error"],
    }
