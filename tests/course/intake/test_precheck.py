"""The precheck's port check on every design style, native and pip Yosys, and the memory limit it runs under;
on Verilator, C code refused before any build."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_grading import LAB1_FILES, SLOT, grade, needs_sandbox, reference_copy, sandbox_processes  # noqa: F401

from roofline_core.contract import ParamSet
from roofline_core.paths import RTL_DIR
from roofline_core.tools import tool_available
from roofline_course import sandbox
from roofline_course.intake import submission as intake
from roofline_course.intake.canonical import Canonical
from roofline_course.intake.precheck import Built, Runner, port_check, precheck

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all


ALWAYS_COMB = """module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic mem_bound_o
);
  always_comb begin
    mem_bound_o = 1'b0;
    cap_o = '0;  // computes nothing: the student copy holds it (cap_o = peak_i would be half of lab 1)
  end
endmodule
"""


def use_eda(monkeypatch: pytest.MonkeyPatch, eda: str) -> None:
    """Yosys and nextpnr from apt (native) or from pip (yowasp) for this test, or skip it."""
    monkeypatch.setenv("ROOFLINE_EDA", eda)
    if not tool_available("yosys"):
        pytest.skip(f"no {eda} Yosys here")

EDA_PATHS = ["native", "yowasp"]


@needs_sandbox
@pytest.mark.parametrize("eda", EDA_PATHS)
@pytest.mark.parametrize("style", ["always_comb", "always_ff"])
def test_the_port_check_reads_every_design_style(style: str, eda: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    use_eda(monkeypatch, eda)
    if style == "always_comb":
        top, text, files = "roofline_attainable", ALWAYS_COMB, {}
        misnamed = ALWAYS_COMB.replace("cap_o", "cap_out")
        sets = [ParamSet()]
    else:
        top, files = (
            "roofline_intensity",
            {n: (RTL_DIR / n).read_text() for n in ("roofline_param_check.sv", "roofline_div_step.sv")},
        )
        text = (RTL_DIR / "roofline_intensity.sv").read_text()
        misnamed = text.replace("done_o", "finished_o")
        sets = [ParamSet(), ParamSet(8, 8, 1, 16)]
    for variant, body in (("correct", text), ("misnamed", misnamed)):
        folder = tmp_path / variant
        folder.mkdir()
        (folder / f"{top}.sv").write_text(body)
        for name, other in files.items():
            (folder / name).write_text(other)
        check = precheck(top, str(folder), sets, tmp_path / f"pre-{variant}")
        if variant == "correct":
            assert check.ok and not [w for w in check.warnings if "could not read" in w], check.warnings
        else:
            assert check.stage == "ports" and any("is missing" in p for p in check.problems), check.problems


@needs_sandbox
@pytest.mark.parametrize("eda", EDA_PATHS)
def test_a_design_too_big_for_yosys_stops_at_the_memory_limit(eda: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    use_eda(monkeypatch, eda)
    folder = tmp_path / "hog"
    folder.mkdir()
    (folder / "roofline_attainable.sv").write_text(ALWAYS_COMB.replace("endmodule", """
  logic [7:0] chain [0:4000000];
  for (genvar i = 0; i < 4000000; i++) begin : g
    assign chain[i + 1] = chain[i] + 8'd1;
  end
endmodule"""))
    submission = intake.select_design(intake.stage(str(folder), tmp_path / "staged"), "roofline_attainable")
    runner = Runner(submission, sandbox.Limits(memory_mib=512), slot=SLOT)
    built = Built(submission, Canonical(""), submission, runner)  # Yosys reads the file as it is: its limit is tested
    stage, problems, _ = port_check("roofline_attainable", built, [ParamSet()])
    assert stage == "resources" and problems[0].startswith("Yosys ran out of its limits (512 MiB"), problems
    assert not sandbox_processes()


@needs_sandbox
@pytest.mark.sim
def test_grading_on_verilator_runs_in_the_sandbox_and_refuses_c_code(tmp_path: Path) -> None:
    code, result, stdout = grade(RTL_DIR, tmp_path / "out", "--visible-only", "--sim", "verilator")
    assert code == 0 and result["score"] == result["max_score"], stdout
    folder = reference_copy(
        tmp_path / "c_code", ("roofline_attainable.sv", "endmodule", '  initial $c("system(\\"id\\");");\nendmodule')
    )
    check = precheck("roofline_attainable", str(folder), [ParamSet()], tmp_path / "pre", verilator=True)
    assert check.stage == "forbidden" and any("$c" in problem for problem in check.problems), check.problems
