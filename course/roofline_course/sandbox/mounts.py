"""What a step sees under bubblewrap: the system read-only, the harness, the submission, two scratch folders."""

from __future__ import annotations

import ast
import compileall
import functools
import os
import re
import sys
from pathlib import Path

from roofline_core.paths import REPO_ROOT
from roofline_course.sandbox.limits import MIB, Limits
from roofline_course.sandbox.users import as_the_sandbox_user

# The parts of the checkout a grading step needs; everything else (labs/, rtl/, tests/, .git) stays out.
HARNESS_PARTS = ("core", "tb", "model", "course", "flows")  # the harness's code a step imports (each on PYTHONPATH)
# What a step sees of each part, where it is not the whole part: of flows/, its code, without the
# formal reference (flows/formal) and the mutant list (flows/mutants).
HARNESS_SEEN = {"flows": "flows/roofline_flows"}
# What no step may see, whoever asks for it: the labs (hidden groups), the reference RTL, the tests
# (the drop-in solution), the history, the formal reference and the mutant list. A bind that
# reaches one of them is the grader's bug, and no step runs.
NEVER_SEEN = tuple(REPO_ROOT / part for part in ("labs", "rtl", "tests", ".git", "flows/formal", "flows/mutants"))
SYSTEM_LINKS = {"/bin": "usr/bin", "/sbin": "usr/sbin", "/lib": "usr/lib", "/lib64": "usr/lib64"}
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
SUBMISSION = Path("/submission")  # where a step sees the submission (a bubblewrap mount, else moved: relocate)
WORK = Path("/run")  # a step's working folder

def compile_bytecode() -> None:
    """Write the harness's bytecode beside it, readable by a step. A step cannot write it (its view
    of the checkout is read-only), so without it each of a submission's Python processes (about
    eight in lab 1) compiles the harness from source again: a tenth of a grade's CPU time. A
    checkout that cannot be written to is graded as before, only slower."""
    for folder in HARNESS_PARTS:
        compileall.compile_dir(REPO_ROOT / folder, quiet=2)


def interpreter_paths() -> list[Path]:
    """The Python installation and venv a sandboxed step runs, and wherever the venv's own links
    lead (a venv whose bin/ or lib/ is a link to another's, as a copy of the checkout may have)."""
    paths = [Path(sys.base_prefix), Path(sys.prefix)]
    for part in ("bin", "lib", "lib64", "pyvenv.cfg"):
        linked = Path(sys.prefix) / part
        if linked.is_symlink():
            paths.append(linked.resolve())
    return paths


def step_paths(harness: tuple[Path, ...] | None = None) -> list[Path]:
    """What a step reads and runs: the Python installation and venv, and the harness (all of it, or
    the files `harness` names)."""
    parts = harness if harness is not None else tuple(REPO_ROOT / HARNESS_SEEN.get(part, part) for part in HARNESS_PARTS)
    return [path.resolve() for path in (*interpreter_paths(), *parts)]


@functools.cache
def harness_files(*entries: str) -> tuple[Path, ...]:
    """The harness a step needs to run these modules: each module the entries import at module level,
    and so on, with its packages' __init__.py and the bytecode the grader compiled (compile_bytecode).
    A function's own imports are not followed: they belong to what the step does not run."""
    found: dict[str, Path] = {}
    todo = list(entries)
    while todo:
        name = todo.pop()
        if name in found or not (path := _module_file(name)):
            continue
        found[name] = path
        todo += _module_imports(path, name)
        todo += [".".join(name.split(".")[:cut]) for cut in range(1, name.count(".") + 1)]
    files = []
    for path in found.values():
        files.append(path)
        files += sorted(path.parent.glob(f"__pycache__/{path.stem}.*.pyc"))
    return tuple(dict.fromkeys(files))


def _module_file(name: str) -> Path | None:
    for part in HARNESS_PARTS:
        base = REPO_ROOT / part / Path(*name.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _module_imports(path: Path, name: str) -> list[str]:
    names = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If):  # `if __name__ == "__main__":` and the like: run at import too
            nodes = [child for child in node.body if isinstance(child, ast.Import | ast.ImportFrom)]
        else:
            nodes = [node]
        for child in nodes:
            if isinstance(child, ast.Import):
                names += [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                names += [child.module, *(f"{child.module}.{alias.name}" for alias in child.names)]
    return names


def _binds(submission: Path | None, extra_ro: list[tuple[Path, str]], harness: tuple[Path, ...] | None = None) -> list[str]:
    args: list[str] = ["--ro-bind", "/usr", "/usr"]
    for link, target in SYSTEM_LINKS.items():
        args += ["--symlink", target, link]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in SYSTEM_FILES:
        if Path(path).exists():
            args += ["--ro-bind", path, path]
    for path in dict.fromkeys(step_paths(harness)):
        for parent in reversed(path.parents[:-1]):  # bwrap would make these 0700: the sandbox user must pass
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(path), str(path)]
    if submission is not None:
        args += ["--ro-bind", str(submission), "/submission"]
    for source, target in extra_ro:
        args += ["--ro-bind", str(source), target]
    bound = [Path(args[at + 1]) for at, word in enumerate(args) if word == "--ro-bind"]
    if reached := [str(path) for path in NEVER_SEEN for source in bound if _overlap(source, path)]:
        raise ValueError(f"the sandbox would see {', '.join(dict.fromkeys(reached))}: no step runs with it")
    return args


def _overlap(source: Path, secret: Path) -> bool:
    """The bind of source shows secret (it is inside it, or holds it)."""
    source, secret = source.resolve(), secret.resolve()
    return source.is_relative_to(secret) or secret.is_relative_to(source)


def environment(home: Path, tmp: Path, env: dict[str, str]) -> dict[str, str]:
    """A step's whole environment (bubblewrap's --clearenv and --setenv; the uid isolation's, with its
    real folders). PYTHONPATH names the harness this grader runs from, whatever the installed package
    points at. ccache is off unless env names a cache, which is the grader's read-only one (object_cache)."""
    return {"HOME": str(home), "TMPDIR": str(tmp), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "PYTHONPATH": os.pathsep.join(str(REPO_ROOT / part) for part in HARNESS_PARTS), "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", **({} if "CCACHE_DIR" in env else {"CCACHE_DISABLE": "1"}), **env}


def command(argv: list[str], submission: Path | None, limits: Limits, slot: int = 0,
            extra_ro: list[tuple[Path, str]] | None = None, env: dict[str, str] | None = None, proc: bool = False,
            harness: tuple[Path, ...] | None = None) -> list[str]:
    """The bwrap command line that runs argv inside the sandbox, as the unprivileged user."""
    setenv = [word for name, value in environment(WORK, Path("/tmp"), env or {}).items() for word in ("--setenv", name, value)]
    return [
        "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--clearenv", *setenv,
        # The scratch folders first: a checkout that lives under /tmp is bound on top of them.
        "--size", str(limits.tmp_mib * MIB), "--perms", "01777", "--tmpfs", "/tmp",
        "--size", str(limits.work_mib * MIB), "--perms", "01777", "--tmpfs", "/run",
        *_binds(submission, extra_ro or [], harness),
        "--dev", "/dev", *(["--proc", "/proc"] if proc else []), "--chdir", "/run",
        *as_the_sandbox_user(argv, slot),
    ]


def relocate(text: str, places: dict[Path, Path]) -> str:
    """A command word or a job with the step's logical folders (/submission, /run) where they really
    are, when no mount put them there. Only a whole path is moved: '/autograder/submission' stays."""
    for logical, real in places.items():
        text = re.sub(rf"(?<![\w/.-]){re.escape(str(logical))}(?=/|\b|$)", str(real).replace("\\", "\\\\"), text)
    return text
