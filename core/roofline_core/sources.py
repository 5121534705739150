"""The RTL file list for a build, with the drop-in rule applied.

Every file given (a file, or each .sv/.v file of a folder) replaces the project's rtl/ file
of the same module name; files with new names are added; the rest of rtl/ stays.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from roofline_core.paths import RTL_DIR

HDL_SUFFIXES = (".sv", ".v")


class DropInError(ValueError):
    """A drop-in path that does not exist or holds no Verilog."""


def drop_in_files(spec: str) -> list[Path]:
    """Files named by RTL= / ROOFLINE_RTL: paths separated by spaces or the path separator."""
    files: list[Path] = []
    for word in spec.replace(os.pathsep, " ").split():
        path = Path(word).expanduser().resolve()
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in HDL_SUFFIXES)
            if not found:
                raise DropInError(f"RTL={word}: the folder holds no .sv or .v file")
            files += found
        elif path.is_file():
            if path.suffix not in HDL_SUFFIXES:
                raise DropInError(f"RTL={word}: not a .sv or .v file")
            files.append(path)
        else:
            raise DropInError(f"RTL={word}: no such file or folder")
    return files


def rtl_sources(drop_in: str | None = None) -> list[Path]:
    by_module = {path.stem: path for path in sorted(RTL_DIR.glob("*.sv"))}
    if drop_in:
        for path in drop_in_files(drop_in):
            by_module[path.stem] = path
    return list(by_module.values())


def sources_digest(sources: list[Path]) -> str:
    """Names the build folder, so a drop-in never reuses the project's build."""
    return hashlib.sha1("\n".join(str(p) for p in sources).encode()).hexdigest()[:8]
