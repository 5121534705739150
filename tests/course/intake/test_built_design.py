"""What every step after the design check is given: the canonical design, alone in its folder,
and the walls on the tools' outputs wired in (the precheck and a group's job, with the sandbox
replaced by a recorder that answers as each tool would: no tool runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_core.contract import ParamSet
from roofline_course import sandbox
from roofline_course.design_lab import grade
from roofline_course.intake import canonical, precheck
from roofline_course.labs.definitions import load_lab

TOP = "roofline_attainable"
STUDENT = f"""module {TOP} #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic mem_bound_o
);
  (* note = "*) initial $system(C); (* note = " *)
  assign cap_o = '0;
  assign mem_bound_o = 1'b0;
endmodule
"""
DESIGN = canonical.Canonical("module roofline_attainable ;\nassign cap_o = '0 ;\nendmodule\n",
                             [(f"{TOP}.sv", 1), (f"{TOP}.sv", 7), (f"{TOP}.sv", 9)])
VVP = '#! /usr/bin/vvp\n:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/system.vpi";\n'
PORTS = {name: {"direction": direction, "bits": list(range(width))}
         for name, (direction, width) in precheck.expected_ports(TOP, ParamSet()).items()}


class Recorder:
    """Stands in for sandbox.run: records what each step mounts and runs, answers as the tool would."""

    def __init__(self, vvp: str = VVP, cells: dict[str, str] | None = None) -> None:
        self.calls: list[tuple[Path | None, list[str], str]] = []
        self.vvp, self.cells = vvp, cells or {"a": "$add"}

    def __call__(self, argv: list[str], *, submission: Path | None, stdin: bytes = b"", **_: object) -> sandbox.Outcome:
        self.calls.append((submission, argv, stdin.decode()))
        if "roofline_course.intake.design_check" in argv:
            reply = {"problems": [], "notes": [], "canonical": DESIGN.to_json()}
            return sandbox.Outcome(0, json.dumps(reply), "", b"", 0.1)
        if any("iverilog" in word for word in argv):
            return sandbox.Outcome(0, self.vvp, "", b"", 0.1)
        if any("yosys" in word for word in argv):
            cells = {name: {"type": kind, "parameters": {}} for name, kind in self.cells.items()}
            netlist = {"modules": {TOP: {"parameter_default_values": {"INT_BITS": "", "FRAC_BITS": ""},
                                         "ports": PORTS, "cells": cells}}}
            return sandbox.Outcome(0, json.dumps(netlist), "", b"", 0.1)
        return sandbox.Outcome(0, "", "", b"", 0.1)


@pytest.fixture
def student(tmp_path: Path) -> Path:
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / f"{TOP}.sv").write_text(STUDENT)
    return folder


def checked(student: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorder: Recorder) -> precheck.Precheck:
    monkeypatch.setattr(sandbox, "run", recorder)
    monkeypatch.setattr(sandbox, "mode", lambda: "bwrap")
    monkeypatch.setattr(precheck, "yosys_available", lambda: True)
    return precheck.precheck(TOP, str(student), [ParamSet(), ParamSet(16, 12)], tmp_path / "out")


def test_after_the_design_check_every_step_mounts_the_canonical_design_alone(student: Path, tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    check = checked(student, tmp_path, monkeypatch, recorder)
    assert check.ok, check.problems
    design_folder = tmp_path / "out" / precheck.DESIGN_FOLDER
    assert check.design is not None and check.design.root == design_folder
    assert [p.name for p in design_folder.iterdir()] == [canonical.NAME]
    assert (design_folder / canonical.NAME).read_text() == DESIGN.text
    (first, _, job), *later = recorder.calls
    assert first == tmp_path / "out" / "submission" and json.loads(job)["root"] == str(sandbox.SUBMISSION)
    assert later and all(mount == design_folder for mount, _, _ in later)
    built = f"{sandbox.SUBMISSION}/{canonical.NAME}"
    assert all(built in " ".join(argv) and f"{TOP}.sv" not in " ".join(argv) for _, argv, _ in later)
    compiles = " ".join(recorder.calls[1][1])
    assert f"-P{TOP}.INT_BITS=24" in compiles and f"-P{TOP}.INT_BITS=16" in compiles  # every graded parameter set


def test_a_group_runs_on_the_canonical_design_and_its_log_names_the_students_lines(student: Path, tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    check = checked(student, tmp_path, monkeypatch, Recorder())
    jobs: list[tuple[Path | None, dict]] = []

    def group_sandbox(argv: list[str], *, submission: Path | None, stdin: bytes = b"", **_: object) -> sandbox.Outcome:
        jobs.append((submission, json.loads(stdin)))
        return sandbox.Outcome(0, f"%Warning-WIDTH: {sandbox.SUBMISSION}/{canonical.NAME}:2:8: too wide", "", b"", 0.1)

    monkeypatch.setattr(sandbox, "run", group_sandbox)
    lab, built = load_lab(1, with_hidden=False), f"{sandbox.SUBMISSION}/{canonical.NAME}"
    outcome, _ = grade.run_simulation(lab, lab.groups[0], check, str(student), grade.Settings(), tmp_path / "sim", 10.0, 5.0)
    mount, job = jobs[-1]
    assert mount == tmp_path / "out" / precheck.DESIGN_FOLDER
    assert job["build"]["sources"] == [built] and job["build"]["includes"] == [str(sandbox.SUBMISSION)]
    assert outcome.stdout == f"%Warning-WIDTH: {TOP}.sv:7: too wide"
    synthesis = next(g for g in load_lab(5, with_hidden=False).groups if g.kind == "synthesis")
    outcome = grade.run_synthesis(lab, synthesis, check, grade.Settings(), tmp_path / "synth", 10.0)
    mount, job = jobs[-1]
    assert mount == tmp_path / "out" / precheck.DESIGN_FOLDER
    assert job["files"] == [built] and job["includes"] == [str(sandbox.SUBMISSION)]
    assert outcome.stdout == f"%Warning-WIDTH: {TOP}.sv:7: too wide"


@pytest.mark.parametrize(("vvp", "cells", "named"), [
    (VVP + '    %vpi_call/w 3 2 "$system", v0x1_0 {0 0 0};\n', None, f"{TOP}.sv:7: Icarus compiled a call to $system"),
    (VVP, {"free": "$anyconst"}, f"Yosys built a $anyconst cell in {TOP}"),
])
def test_a_forbidden_call_in_a_tools_output_refuses_the_design_naming_the_tool(
        vvp: str, cells: dict[str, str] | None, named: str, student: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    check = checked(student, tmp_path, monkeypatch, Recorder(vvp, cells))
    assert check.stage == "forbidden" and check.problems[0].startswith(named), check.problems
    assert check.problems[-1].startswith("not built") and not check.ok  # no group runs
