"""A testbench as the grader takes it: a .py file, a folder (sub-folders too) or one .zip of Python files.

Its Python files are copied into a staging folder the sandbox reads (links never followed,
names made safe, sizes capped). The cocotb test modules are the files named `test_*.py`; they
must sit in one folder, which is put on the testbench's import path, so helper modules beside
them import as usual. Any other file is listed as ignored.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from roofline_course.intake.submission import (
    SKIPPED_FOLDERS,
    IntakeError,
    Submission,
    Wanted,
    _unzip,
    copy_regular,
    copy_tree,
    safe_relative,
)

FILE_SUFFIXES = (".py",)  # one file handed in alone: the test module itself (a folder or a .zip holds more)
MAX_FILES = 50
MAX_BYTES = 2 << 20  # every Python file together
PYTHON = Wanted((".py",), "the testbench", "Python files", "a Python file", MAX_FILES, MAX_BYTES,
                (*SKIPPED_FOLDERS, "__pycache__"))


@dataclass
class Testbench:
    root: Path  # the staging folder: what the sandbox mounts at /submission
    folder: str  # the test modules' folder, relative to root ("" for the root)
    modules: list[str] = field(default_factory=list)  # the cocotb test modules, by import name
    files: list[Path] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_submission(self) -> Submission:
        return Submission(self.root, self.files, self.ignored, self.notes)


def stage(spec: str, staging: Path) -> Testbench:
    """Copy the testbench into `staging`; raises IntakeError with a one-line reason."""
    source = Path(spec).expanduser()
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    notes: list[str] = []
    ignored: list[str] = []
    try:
        if source.is_symlink():
            raise IntakeError(f"{source.name}: a symbolic link; hand in the file itself")
        if source.is_file() and source.suffix.lower() == ".zip":
            with tempfile.TemporaryDirectory() as unpacked:
                _unzip(source, Path(unpacked), notes)
                copy_tree(Path(unpacked), staging, notes, PYTHON, ignored)
        elif source.is_dir():
            archives = [p for p in source.iterdir() if p.suffix.lower() == ".zip" and p.is_file()]
            if len(archives) == 1 and not any(source.rglob("*.py")):
                return stage(str(archives[0]), staging)
            copy_tree(source, staging, notes, PYTHON, ignored)
        elif source.is_file() and source.suffix in FILE_SUFFIXES:
            if not copy_regular(source, staging / safe_relative(Path(source.name), notes)):
                raise IntakeError(f"{source.name}: a symbolic link; hand in the file itself")
        elif source.exists():
            raise IntakeError(f"{source.name}: not a .py file, a folder or a .zip")
        else:
            raise IntakeError("no such file or folder")
    except OSError as problem:
        raise IntakeError(f"the testbench cannot be read: {problem.strerror or problem}") from None
    for path in [staging, *staging.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return _find_tests(staging, notes, ignored)


def _find_tests(root: Path, notes: list[str], ignored: list[str]) -> Testbench:
    files = sorted(root.rglob("*.py"))
    tests = [path for path in files if path.name.startswith("test_")]
    if not tests:
        found = ", ".join(str(p.relative_to(root)) for p in files[:5]) or "no Python file at all"
        raise IntakeError(f"no test module: name the file with your cocotb tests test_<something>.py (found: {found})")
    folders = sorted({path.parent for path in tests})
    if len(folders) > 1:
        raise IntakeError("test modules in more than one folder (" + ", ".join(str(f.relative_to(root)) or "."
                                                                          for f in folders) + "): keep them in one")
    modules = [path.stem for path in tests]
    if bad := [name for name in modules if not name.isidentifier()]:
        raise IntakeError(f"{bad[0]}.py: a test module's name must be a Python name (letters, digits, _)")
    folder = str(folders[0].relative_to(root)) if folders[0] != root else ""
    return Testbench(root, folder, modules, files, ignored, notes)
