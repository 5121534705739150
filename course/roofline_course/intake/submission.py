"""A submission as the grader takes it: found, unpacked, copied, and cut down to the lab's design.

A submission is a .sv/.v file, a folder (sub-folders included: the usual download from a
course site) or one .zip. Its Verilog files are copied into a staging folder the sandbox reads;
symbolic links, files outside the submission and oversized archives are refused with a note.
Only the modules reachable from the lab's top are the design: a file holding none of them (a
student's own testbench, say) is listed as ignored. Two definitions of one module are an error
that names both files.
"""

from __future__ import annotations

import bisect
import errno
import os
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

HDL_SUFFIXES = (".sv", ".v")
INCLUDE_SUFFIXES = (".svh", ".vh")
SKIPPED_FOLDERS = ("__MACOSX",)
MAX_FILES = 200
MAX_BYTES = 20 << 20  # all Verilog files together
MAX_ARCHIVE_BYTES = 100 << 20  # everything in a .zip, unpacked
# Each alternative always matches once it has begun (an unclosed comment or string runs to the end
# of the text or line), so the scan is linear in the text whatever it holds.
COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:\\.|[^"\\\n])*(?:"|(?=\n)|\Z)', re.S)
MODULE = re.compile(r"\b(?:module|macromodule)\s+(?:automatic\s+|static\s+)?([A-Za-z_][\w$]*)")
ENDMODULE = re.compile(r"endmodule")
IDENTIFIER = re.compile(r"[A-Za-z_][\w$]*")
UNSAFE_CHARACTERS = re.compile(r"[^A-Za-z0-9_.-]")


class IntakeError(ValueError):
    """The submission cannot be graded as handed in; the message says why, in one line."""


@dataclass
class Submission:
    root: Path  # the staging folder: what the sandbox mounts at /submission
    files: list[Path] = field(default_factory=list)  # the design: files holding a module reachable from the top
    ignored: list[str] = field(default_factory=list)  # files (relative names) left out, each with why
    notes: list[str] = field(default_factory=list)

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    @property
    def folders(self) -> list[Path]:
        """Every folder of the submission, where an `include is looked for."""
        return [self.root, *sorted(p for p in self.root.rglob("*") if p.is_dir())]


def strip_comments(text: str) -> str:
    """Comments and string literals blanked (kept as spaces, so line numbers stay right)."""
    return COMMENT_OR_STRING.sub(lambda m: _blank(m.group(0)), text)


def _blank(text: str) -> str:
    return " " * len(text) if "\n" not in text else re.sub(r"[^\n]", " ", text)


def modules_in(text: str) -> dict[str, str]:
    """Module name -> its body (the text up to its endmodule, or to the next module when that comes
    first), comments and strings removed. The bodies do not overlap: linear in the text."""
    code = strip_comments(text)
    starts = list(MODULE.finditer(code))
    ends = [match.start() for match in ENDMODULE.finditer(code)]
    found: dict[str, str] = {}
    for index, match in enumerate(starts):
        after = bisect.bisect_left(ends, match.end())
        end = min(ends[after] if after < len(ends) else len(code),
                  starts[index + 1].start() if index + 1 < len(starts) else len(code))
        found[match.group(1)] = code[match.end(): end]
    return found


def safe_relative(relative: Path, notes: list[str]) -> Path:
    """A staged name the tools' command lines take as it is: letters, digits, _ . - only."""
    safe = Path(*(UNSAFE_CHARACTERS.sub("_", part) for part in relative.parts))
    if safe != relative:
        notes.append(f"{relative}: staged as {safe} (the tools take no spaces or punctuation in file names)")
    return safe


def _safe_name(name: str) -> PurePosixPath | None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return path


@dataclass(frozen=True)
class Wanted:
    """Which files a tree's intake stages, and its limits (holder and kind name them in messages)."""

    suffixes: tuple[str, ...]
    holder: str  # "the submission"
    kind: str  # "Verilog files"
    one: str  # "a Verilog file"
    max_files: int
    max_bytes: int
    skipped: tuple[str, ...] = SKIPPED_FOLDERS


def copy_tree(source: Path, target: Path, notes: list[str], wanted: Wanted, ignored: list[str] | None = None) -> None:
    """Regular files with a wanted suffix, never following a link, within the limits; the others
    are listed in `ignored` when it is given."""
    count = size = 0
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if any(part.startswith(".") or part in wanted.skipped for part in relative.parts):
            continue
        if path.is_symlink():
            notes.append(f"{relative}: a symbolic link, not followed")
            continue
        if not path.is_file():
            continue
        if path.suffix.lower() not in wanted.suffixes:
            if ignored is not None:
                ignored.append(f"{relative} (not {wanted.one})")
            continue
        count += 1
        size += path.stat().st_size
        if count > wanted.max_files or size > wanted.max_bytes:
            raise IntakeError(f"{wanted.holder} holds more than {wanted.max_files} {wanted.kind} "
                              f"or {wanted.max_bytes >> 20} MiB")
        destination = target / safe_relative(relative, notes)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if not copy_regular(path, destination):
            notes.append(f"{relative}: a symbolic link, not followed")


def copy_regular(path: Path, destination: Path) -> bool:
    """Copy the file at path, never through a symbolic link: False, and nothing copied, when path is
    one now (a file swapped for a link after the checks before the copy is refused here)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as problem:
        if problem.errno == errno.ELOOP:
            return False
        raise
    with os.fdopen(descriptor, "rb") as reader, destination.open("wb") as writer:
        shutil.copyfileobj(reader, writer)
    return True


HDL = Wanted((*HDL_SUFFIXES, *INCLUDE_SUFFIXES), "the submission", "Verilog files", "a Verilog file", MAX_FILES, MAX_BYTES)


def _unzip(archive: Path, target: Path, notes: list[str]) -> None:
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            if len(members) > 10 * MAX_FILES or sum(m.file_size for m in members) > MAX_ARCHIVE_BYTES:
                raise IntakeError(f"{archive.name}: the archive is too large to unpack")
            for member in members:
                name = _safe_name(member.filename)
                if member.is_dir():
                    continue
                if name is None:
                    notes.append(f"{member.filename}: a path outside the archive, not unpacked")
                    continue
                if stat.S_ISLNK(member.external_attr >> 16):
                    notes.append(f"{name}: a symbolic link, not unpacked")
                    continue
                destination = target / name
                destination.parent.mkdir(parents=True, exist_ok=True)
                with bundle.open(member) as reader, destination.open("wb") as writer:
                    shutil.copyfileobj(reader, writer, 1 << 20)
    except (zipfile.BadZipFile, OSError, RuntimeError) as problem:
        raise IntakeError(f"{archive.name}: not a readable .zip ({problem})") from None


def stage(spec: str, staging: Path) -> Submission:
    """Copy the submission (file, folder or .zip) into `staging`, readable by the sandbox user."""
    try:
        return _stage(spec, staging)
    except OSError as problem:  # a name too long for the system, an unreadable file: this entry's problem
        raise IntakeError(f"the submission cannot be read: {problem.strerror or problem}") from None


def _stage(spec: str, staging: Path) -> Submission:
    source = Path(spec).expanduser()
    if staging.exists():
        shutil.rmtree(staging)
    unpacked = staging.with_name(staging.name + "-unpacked")
    if unpacked.exists():
        shutil.rmtree(unpacked)
    staging.mkdir(parents=True)
    notes: list[str] = []
    if source.is_symlink():
        raise IntakeError(f"{source.name}: a symbolic link; hand in the file itself")
    if source.is_dir():
        archives = sorted(p for p in source.iterdir() if p.suffix.lower() == ".zip" and p.is_file())
        hdl = [p for p in source.rglob("*") if p.suffix in HDL_SUFFIXES]
        if archives and not hdl:
            if len(archives) > 1:
                raise IntakeError(f"the submission holds {len(archives)} .zip files; hand in one")
            _unzip(archives[0], unpacked, notes)
            copy_tree(unpacked, staging, notes, HDL)
        else:
            copy_tree(source, staging, notes, HDL)
    elif source.is_file() and source.suffix.lower() == ".zip":
        _unzip(source, unpacked, notes)
        copy_tree(unpacked, staging, notes, HDL)
    elif source.is_file() and source.suffix in HDL_SUFFIXES:
        if not copy_regular(source, staging / safe_relative(Path(source.name), notes)):
            raise IntakeError(f"{source.name}: a symbolic link; hand in the file itself")
    elif source.exists():
        raise IntakeError(f"{source.name}: not a .sv, .v or .zip file")
    else:
        raise IntakeError("no such file or folder")
    if unpacked.exists():
        shutil.rmtree(unpacked)
    for path in [staging, *staging.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return Submission(staging, notes=notes)


def reachable(bodies: dict[str, str], top: str) -> set[str]:
    """The modules `top` uses, directly or through others, itself included (bodies: from modules_in)."""
    found, frontier = {top}, [top]
    while frontier:
        used = set(IDENTIFIER.findall(bodies.get(frontier.pop(), "")))
        for name in sorted(used & set(bodies) - found):
            found.add(name)
            frontier.append(name)
    return found


def select_design(submission: Submission, top: str) -> Submission:
    """The files that hold a module reachable from `top`; the others are listed as ignored."""
    defined: dict[str, Path] = {}
    bodies: dict[str, str] = {}
    files = sorted(p for p in submission.root.rglob("*") if p.suffix in HDL_SUFFIXES)
    if not files:
        raise IntakeError("no .sv or .v file in the submission")
    for path in files:
        for name, body in modules_in(path.read_text(errors="replace")).items():
            if name in defined:
                raise IntakeError(f"module {name} is defined twice: in {submission.relative(defined[name])} "
                                  f"and in {submission.relative(path)}; keep one")
            defined[name] = path
            bodies[name] = body
    if top not in defined:
        found = ", ".join(sorted(defined)) or "no module at all"
        raise IntakeError(f"no module named {top} in your files (found: {found}); the file must declare 'module {top}'")
    design = sorted({defined[name] for name in reachable(bodies, top)})
    ignored = [f"{submission.relative(p)} (defines no module that {top} uses: left out, as a testbench would be)"
               for p in files if p not in design]
    return Submission(submission.root, design, submission.ignored + ignored, submission.notes)
