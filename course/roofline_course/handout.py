"""`make handout`: the student copy of the repository, with no answers in it.

It is the committed tree (`git archive HEAD`) less every file that implements a lab's module
or solves one: all of rtl/ (the reference design and its building blocks), the independent
drop-in solution (tests/dropin/), the formal reference and properties (flows/formal/: its
roofline_spec.sv states the contract in synthesizable SystemVerilog, so six lines around it
would pass lab 1), the mutant catalogue (a list of the bugs the benches look for) and every
lab's hidden groups. tests/course/test_student_copy.py grades every module the copy still holds,
wrapped to each lab's ports where it fits, against the starter. Each lab's starter takes its module's place in rtl/, so
`make sim` and `make check` work in the copy as they do here. The copy's README is the students'
own (labs/STUDENTS.md): what to run and what the output means.

A testbench lab (lab 6) also keeps its answers out: its solution testbench (labs/lab6/solution/)
and its own mutants (labs/lab6/mutants.toml). Its starter is a testbench, not a module, so it
stays in the lab's folder; its visible groups need no RTL (their designs are models).
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from roofline_core.paths import BUILD_ROOT, REPO_ROOT
from roofline_course.labs.definitions import available, load_lab

PREFIX = "roofline-hw"
LEFT_OUT = ("rtl", "tests/dropin", "flows/formal", "flows/mutants/catalogue.toml", "labs/*/hidden.toml")
TESTBENCH_LAB_ANSWERS = ("solution", "mutants.toml")  # in each testbench lab's folder
NOTE = """# rtl/ in the student copy

This folder holds the labs' starters, not the reference design: each lab's starter stands
where its module's solution would be. Replace a starter with your own design, or hand your
folder to `make check LAB=<n> RTL=<folder>`.
"""


FORMAL_NOTE = """# flows/formal/ in the student copy

The proofs' properties and the formal reference they compare a design with stay with your
instructor: the reference states the contract in synthesizable SystemVerilog, an answer to
several labs. `make check` and `make sim` need neither.
"""


def unpack(tar: tarfile.TarFile, folder: Path) -> None:
    """Extract a tree this repository wrote (`git archive`, the student copy), refusing any member
    that is not a file or folder inside `folder` (tarfile.TarError). Python 3.11.4 added tarfile's
    extraction filters (PEP 706), which do this and more; on 3.11.0-3.11.3 (Debian 12's Python is
    3.11.2), which the Makefile accepts, the members are checked here before extracting."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, filter="data")
        return
    root = folder.resolve()
    for member in tar.getmembers():
        if not (member.isfile() or member.isdir()) or not (root / member.name).resolve().is_relative_to(root):
            raise tarfile.TarError(f"{member.name}: not a file or folder inside {folder}")
    tar.extractall(folder)


def build(archive: Path, ref: str = "HEAD") -> list[str]:
    """Write the student archive; returns the paths (inside the archive) of the starters placed in rtl/."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / PREFIX
        tree.mkdir()
        listing = subprocess.run(["git", "archive", "--format=tar", ref], cwd=REPO_ROOT, capture_output=True, check=True)
        with tarfile.open(fileobj=io.BytesIO(listing.stdout)) as tar:
            unpack(tar, tree)
        for pattern in LEFT_OUT:
            for path in tree.glob(pattern):
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        shutil.copyfile(tree / "labs" / "STUDENTS.md", tree / "README.md")
        rtl = tree / "rtl"
        rtl.mkdir()
        (rtl / "README.md").write_text(NOTE)
        (tree / "flows" / "formal").mkdir(parents=True, exist_ok=True)
        (tree / "flows" / "formal" / "README.md").write_text(FORMAL_NOTE)
        placed = []
        for number in available():
            lab = load_lab(number, with_hidden=False)
            if lab.kind == "testbench":
                for name in TESTBENCH_LAB_ANSWERS:
                    answer = tree / lab.folder.relative_to(REPO_ROOT) / name
                    shutil.rmtree(answer) if answer.is_dir() else answer.unlink(missing_ok=True)
                continue
            target = rtl / f"{lab.top}.sv"
            if not target.exists():
                shutil.copyfile(lab.starter / f"{lab.top}.sv", target)
                placed.append(f"rtl/{lab.top}.sv (from labs/lab{number}/starter)")
        archive.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(tree, arcname=PREFIX)
    return placed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make handout", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=BUILD_ROOT / "handout" / f"{PREFIX}-student.tar.gz")
    args = parser.parse_args(argv)
    try:
        placed = build(args.out)
    except subprocess.CalledProcessError as problem:
        print(f"error: git archive failed (make handout archives the committed tree): {problem.stderr.decode().strip()}",
              file=sys.stderr)
        return 2
    left_out = ", ".join([*LEFT_OUT, *(f"labs/<testbench lab>/{name}" for name in TESTBENCH_LAB_ANSWERS)])
    print(f"student copy: {args.out}\n  left out: {left_out}\n  starters in rtl/: {'; '.join(placed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
