"""Hostile submissions against the whole grader: each is stopped and leaks nothing (tests/hostile/cases.toml),
and what intake does with links, folders, zips, caps and duplicate modules."""

from __future__ import annotations

import re
import tomllib
import zipfile
from pathlib import Path

import pytest
from places import HOSTILE_DIR
from real_grading import LAB1_FILES, SLOT, grade, needs_sandbox, reference_copy, sandbox_processes  # noqa: F401

from roofline_core.paths import LABS_DIR, RTL_DIR
from roofline_course.intake import submission as intake
from roofline_course.intake import testbench as testbench_intake
from roofline_course.labs.definitions import load_lab

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all


HOSTILE = HOSTILE_DIR
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
HIDDEN = re.compile(r"\(\*|\*\)|//|/\*|\$(?!display|clog2)\w+|verilator|translate|full_case|parallel_case|blackbox|anyconst")

CASES = tomllib.loads((HOSTILE / "cases.toml").read_text())


def secrets() -> list[str]:
    """Lines that must never reach any output: the hidden groups' files and the machine's passwords."""
    lines = []
    for path in [*LABS_DIR.glob("lab*/hidden.toml"), Path("/etc/passwd")]:
        if path.exists():
            lines += [
                line.strip()
                for line in path.read_text().splitlines()
                if len(line.strip()) >= 10 and not line.strip().startswith("#")
            ]
    return lines

SECRETS = secrets()


def all_output(out: Path, *texts: str) -> str:
    files = [
        p.read_text(errors="replace")
        for p in out.rglob("*")
        if p.is_file() and p.suffix in (".json", ".txt", ".xml", ".log")
    ]
    return "\n".join([*texts, *files])


def ports_group(lab: int) -> float:
    """The most a design that computes nothing may score: the weight of the lab's port groups."""
    return sum(g.weight for g in load_lab(lab).groups if all(t.startswith("port_widths") for t in g.tests))


@needs_sandbox
@pytest.mark.sim
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_submission_is_stopped_and_leaks_nothing(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    lab = case.get("lab", 1)
    code, result, stdout = grade(HOSTILE / name, tmp_path / "out", "--sim", case.get("sim", "icarus"),
                                 timeout=case.get("timeout", 20), lab=lab)
    assert result, stdout
    assert result["status"] == case["status"], stdout
    assert result["score"] <= ports_group(lab), stdout  # each one computes nothing
    if "problem" in case:
        assert case["problem"] in result["problems"][0], result["problems"]
    if case["status"] == "graded":  # built: the canonical design holds none of what it hid
        assert code == 1 and result["problems"] == [], stdout
        code_only = STRING.sub('""', (tmp_path / "out" / "design" / "canonical.sv").read_text())
        assert not HIDDEN.search(code_only), code_only
    elif not case.get("limits"):
        assert code == 2 and "could not grade" in stdout.splitlines()[-1]
    text = all_output(tmp_path / "out", stdout)
    leaked = [line for line in SECRETS if line in text]
    assert not leaked, f"{name} leaked {leaked[:3]}"
    for log in (tmp_path / "out").rglob("sim.log"):
        assert log.stat().st_size < 25 << 20
    assert not sandbox_processes(), "a sandboxed process outlived its grading run"


@needs_sandbox
def test_symbolic_links_out_of_the_submission_are_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "roofline_attainable.sv").symlink_to("/etc/passwd")
    (folder / "hidden.sv").symlink_to(LABS_DIR / "lab1" / "hidden.toml")
    code, result, stdout = grade(folder, tmp_path / "out")
    assert code == 2 and result["status"] == "no files"
    assert not [line for line in SECRETS if line in all_output(tmp_path / "out", stdout)]


def test_intake_takes_sub_folders_and_one_zip_and_ignores_a_testbench(tmp_path: Path) -> None:
    nested = tmp_path / "download" / "student" / "src"
    reference_copy(nested)
    (nested.parent / "tb_mine.sv").write_text('module tb_mine; integer f; initial f = $fopen("x"); endmodule\n')
    submission = intake.select_design(intake.stage(str(tmp_path / "download"), tmp_path / "s1"), "roofline_attainable")
    assert sorted(p.name for p in submission.files) == sorted(LAB1_FILES)
    assert any("tb_mine.sv" in line for line in submission.ignored)
    archive = tmp_path / "hand_in.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for name in LAB1_FILES:
            bundle.write(RTL_DIR / name, f"lab1/{name}")
        bundle.writestr("../escape.sv", "module escape; endmodule")
    zipped = intake.select_design(intake.stage(str(archive), tmp_path / "s2"), "roofline_attainable")
    assert len(zipped.files) == 4 and any("outside the archive" in note for note in zipped.notes)
    assert not (tmp_path / "escape.sv").exists()


@pytest.mark.parametrize(("suffix", "count", "size", "refused"), [
    (".sv", 200, 1, False), (".sv", 201, 1, True), (".sv", 2, 10 << 20, False), (".sv", 2, (10 << 20) + 1, True),
    (".py", 50, 1, False), (".py", 51, 1, True), (".py", 2, 1 << 20, False), (".py", 2, (1 << 20) + 1, True),
])
def test_intake_caps_the_files_and_bytes_labs_readme_states(tmp_path: Path, suffix: str, count: int, size: int,
                                                            refused: bool) -> None:
    """labs/README.md: at most 200 Verilog files, 20 MiB together; a lab 6 testbench 50 Python files, 2 MiB."""
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(count):
        (folder / f"test_{index}{suffix}").write_text("#" * size)
    stage = intake.stage if suffix == ".sv" else testbench_intake.stage
    if refused:
        with pytest.raises(intake.IntakeError, match=r"holds more than (200 Verilog files or 20|50 Python files or 2) MiB"):
            stage(str(folder), tmp_path / "staged")
    else:
        stage(str(folder), tmp_path / "staged")


def test_two_definitions_of_one_module_name_both_files(tmp_path: Path) -> None:
    folder = reference_copy(tmp_path / "twice")
    (folder / "copy.sv").write_text((RTL_DIR / "roofline_level.sv").read_text())
    with pytest.raises(
        intake.IntakeError, match=r"roofline_level is defined twice: in copy.sv and in roofline_level.sv"
    ):
        intake.select_design(intake.stage(str(folder), tmp_path / "s"), "roofline_attainable")


def test_zip_members_cannot_escape_and_bombs_are_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("big.sv", "0" * (intake.MAX_ARCHIVE_BYTES + 1))
    with pytest.raises(intake.IntakeError, match="too large"):
        intake.stage(str(bomb), tmp_path / "s")
