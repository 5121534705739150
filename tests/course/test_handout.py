"""The student copy (make handout): no answer in it, and make check works inside it.

An answer is any module the copy holds that a student could put behind a lab's ports and score
more than the starter with: every module of every file is found (tests/support/answers.py),
wrapped to each lab's ports where it fits, and graded against the starter (the full tier); the
everyday tier checks that the finder sees the answer the copy once shipped, the formal reference,
and that it is gone."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import answers
import pytest
from commands import command_env
from real_grading import SLOT, needs_sandbox

from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_course import handout
from roofline_course.labs.definitions import available, load_lab

DESIGN_LABS = [n for n in available() if load_lab(n).kind == "design"]



@pytest.mark.full
@needs_sandbox
@pytest.mark.sim
def test_the_student_copy_holds_no_answer_and_make_check_works_in_it(tmp_path: Path) -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = tmp_path / "student.tar.gz"
    subprocess.run(
        [sys.executable, "-m", "roofline_course.handout", "--out", str(archive)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        handout.unpack(tar, tmp_path)
    copy = tmp_path / "roofline-hw"
    assert not [n for n in names if n.endswith("hidden.toml") or "/dropin/" in n or n.endswith("catalogue.toml")]
    readme = (copy / "README.md").read_text()
    assert readme == (LABS_DIR / "STUDENTS.md").read_text() and "make test" not in readme and "make check LAB=" in readme
    reference = {p.name for p in RTL_DIR.glob("*.sv")}
    for name in reference & {p.name for p in (copy / "rtl").glob("*.sv")}:
        assert (copy / "rtl" / name).read_text() != (RTL_DIR / name).read_text(), f"rtl/{name} is the reference"
    # The copy borrows this checkout's interpreter without touching its install: a .venv whose bin/
    # is ours and whose stamp is fresh, so make installs nothing; PYTHONPATH puts the copy's code first.
    (copy / ".venv").mkdir()
    for part in ("bin", "lib", "pyvenv.cfg"):
        (copy / ".venv" / part).symlink_to(REPO_ROOT / ".venv" / part)
    (copy / ".venv" / ".installed").touch()
    python_path = os.pathsep.join(str(copy / part) for part in ("model", "core", "tb", "course", "flows", "cli"))
    env = {**command_env(), "PYTHONPATH": python_path, "ROOFLINE_BUILD": str(tmp_path / "build")}
    run = subprocess.run(
        ["make", "-s", "check", "LAB=1", "RTL=labs/lab1/starter"], cwd=copy, capture_output=True, text=True, env=env
    )
    assert "could not grade" not in run.stdout and "graded:" in run.stdout, run.stdout + run.stderr
    for number in (1, 2, 3, 4, 5):
        lab = load_lab(number, with_hidden=False)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "roofline_course.grade",
                "--lab",
                str(number),
                "--rtl",
                "rtl",
                "--visible-only",
                "--timeout",
                "20",
                "--out",
                str(tmp_path / f"g{number}"),
            ],
            cwd=copy,
            capture_output=True,
            text=True,
            env=env,
        )
        assert run.returncode != 0, f"lab {number}: the student copy's rtl/ passes:\n{run.stdout}"
        assert lab.top


def student_copy(folder: Path) -> Path:
    """The copy `make handout` writes, unpacked under `folder`."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = folder / "student.tar.gz"
    handout.build(archive)
    with tarfile.open(archive) as tar:
        handout.unpack(tar, folder)
    return folder / handout.PREFIX


def archive_with(tmp_path: Path, name: str) -> Path:
    """A tar holding one file under `name`, as given (tarfile's add would strip a leading /)."""
    archive = tmp_path / "one.tar"
    payload = b"payload\n"
    member = tarfile.TarInfo(name)
    member.size = len(payload)
    with tarfile.open(archive, "w") as tar:
        tar.addfile(member, io.BytesIO(payload))
    return archive


def on_a_python_without_extraction_filters(monkeypatch: pytest.MonkeyPatch) -> None:
    """tarfile as Python 3.11.0-3.11.3 has it (Debian 12 ships 3.11.2): no data_filter, and an extractall
    that takes no filter argument. Nothing to change on such a Python."""
    if not hasattr(tarfile, "data_filter"):
        return
    original = tarfile.TarFile.extractall

    def extractall_of_3_11_2(self: tarfile.TarFile, path: str | Path = ".", members: object = None, *,
                             numeric_owner: bool = False) -> None:
        original(self, path, members, numeric_owner=numeric_owner, filter="fully_trusted")

    monkeypatch.delattr(tarfile, "data_filter")
    monkeypatch.setattr(tarfile.TarFile, "extractall", extractall_of_3_11_2)


# tarfile with its extraction filters and, emulated, without them; on a Python that has none, only the latter.
FILTER_MODES = [pytest.param(True, id="extraction filters")] if hasattr(tarfile, "data_filter") else []
FILTER_MODES.append(pytest.param(False, id="no extraction filters"))
ABSOLUTE = "<tmp_path>/absolute.txt"  # an absolute name, outside the folder it is unpacked into


@pytest.mark.parametrize("filters", FILTER_MODES)
@pytest.mark.parametrize("name", ["../escaped.txt", "inside/../../escaped.txt", ABSOLUTE])
def test_unpack_puts_nothing_outside_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filters: bool,
                                                name: str) -> None:
    """A member that climbs out is refused; an absolute one is refused, or (the data filter) lands inside with
    its leading / stripped. A plain member is extracted either way."""
    if not filters:
        on_a_python_without_extraction_filters(monkeypatch)
    name = name.replace("<tmp_path>", str(tmp_path))
    folder = tmp_path / "out"
    folder.mkdir()
    refused = False
    with tarfile.open(archive_with(tmp_path, name)) as tar:
        try:
            handout.unpack(tar, folder)
        except tarfile.TarError:
            refused = True
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "absolute.txt").exists()
    if name.startswith("/") and not refused:
        assert filters and (folder / name.lstrip("/")).read_bytes() == b"payload\n"
    else:
        assert refused and not any(folder.iterdir())
    with tarfile.open(archive_with(tmp_path, "inside/kept.txt")) as tar:
        handout.unpack(tar, folder)
    assert (folder / "inside" / "kept.txt").read_bytes() == b"payload\n"


def test_the_student_copy_is_built_on_a_python_without_extraction_filters(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """make handout built nothing there (a TypeError) before unpack."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    on_a_python_without_extraction_filters(monkeypatch)
    archive = tmp_path / "student.tar.gz"
    handout.build(archive)
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert f"{handout.PREFIX}/README.md" in names and f"{handout.PREFIX}/rtl/README.md" in names
    assert not [n for n in names if n.endswith("hidden.toml") or n.startswith(f"{handout.PREFIX}/flows/formal/props")]


def test_the_finder_sees_the_formal_reference_as_an_answer_and_the_copy_leaves_it_out(tmp_path: Path) -> None:
    """flows/formal/roofline_spec.sv states the contract in synthesizable SystemVerilog: it fits labs 1, 2,
    4 and (behind a pipe) 5. The copy holds no file of flows/formal, and no module that fits a lab outside
    the starters and the test suite's own designs (tests/, benchmark/: attacks and stubs, which the full
    tier grades below, and tests/hostile's cases, which test_hostile.py grades)."""
    reference = answers.modules(REPO_ROOT / "flows" / "formal")
    spec = {c.name: c for c in reference.candidates}
    labs = {n: load_lab(n) for n in DESIGN_LABS}
    for name in ("roofline_spec_round", "roofline_spec_hierarchy"):
        assert [n for n, lab in labs.items() if answers.submissions(lab, spec[name], tmp_path / name)] == [1, 2, 4, 5]
    copy = student_copy(tmp_path)
    assert not (copy / "flows" / "formal" / "roofline_spec.sv").exists()
    assert [p.name for p in (copy / "flows" / "formal").iterdir()] == ["README.md"]
    found = answers.modules(copy)
    fitting = {c.path for c in found.candidates for lab in labs.values() if answers.wrap(lab, c) is not None}
    shipped = sorted(path for path in fitting if not path.startswith(("labs/", "rtl/", "tests/", "benchmark/")))
    assert not shipped, f"modules of the student copy that fit a lab's ports: {shipped}"
    assert any(path.startswith("tests/hostile/") for path in fitting)  # the finder reads the copy's designs


def visible_score(number: int, rtl: Path, out: Path) -> float:
    subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(number), "--rtl", str(rtl),
                          "--visible-only", "--timeout", "20", "--out", str(out), "--slot", str(SLOT)],
                         cwd=REPO_ROOT, capture_output=True, text=True, timeout=900)
    result = out / "result.json"
    return json.loads(result.read_text())["score"] if result.exists() else 0.0


@pytest.mark.full
@needs_sandbox
@pytest.mark.sim
def test_no_module_of_the_student_copy_wrapped_to_a_labs_ports_scores_more_than_the_starter(tmp_path: Path) -> None:
    """Every module the copy holds outside the starters and the hostile submissions, wrapped to every
    lab's ports where it fits (lab 5: also behind a pipe), graded as make check grades it; first the
    finder's own check: the formal reference the copy once shipped, wrapped in a few lines, scores
    above the starter on lab 1 (it scored 65/65)."""
    labs = {n: load_lab(n) for n in DESIGN_LABS}
    starter = {n: visible_score(n, lab.starter, tmp_path / f"starter{n}") for n, lab in labs.items()}
    spec = next(c for c in answers.modules(REPO_ROOT / "flows" / "formal").candidates if c.name == "roofline_spec_round")
    (control,) = answers.submissions(labs[1], spec, tmp_path / "control")[:1]
    assert visible_score(1, control, tmp_path / "control-out") > starter[1] == 10.0
    copy = student_copy(tmp_path / "copy")
    found = answers.modules(copy, skip=("labs/", "rtl/", "tests/hostile/"))
    graded: dict[str, float] = {}
    seen: set[tuple[int, str]] = set()
    for candidate in found.candidates:
        for number, lab in labs.items():
            for folder in answers.submissions(lab, candidate, tmp_path / "answers" / candidate.path.replace("/", "_")):
                key = (number, folder.name + candidate.text)
                if key in seen:
                    continue
                seen.add(key)
                what = f"lab {number}: {candidate.path} {folder.name}"
                graded[what] = visible_score(number, folder, folder.with_suffix(".out"))
    assert graded, "nothing of the copy fits a lab: the finder found nothing to grade"
    above = {what: score for what, score in graded.items() if score > starter[int(what.split()[1].rstrip(":"))]}
    print(f"graded {len(graded)} wrapped modules of the copy; starters {starter}; unreadable: {found.unreadable}")
    assert not above, f"answers in the student copy (the starters score {starter}): {above}"
