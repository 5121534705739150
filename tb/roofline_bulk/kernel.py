"""The bulk stimulus's C kernel (stimulus_kernel.c), compiled once per source and loaded with ctypes.

The shared library lives in the build folder under the source's digest, so an edited kernel is
compiled again and never mixed with an old one; it is written under a temporary name and renamed,
so processes that start together (a sweep's helpers, test workers) never load half a file.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from roofline_core.paths import BUILD_ROOT
from roofline_core.tools import ToolError

SOURCE = Path(__file__).resolve().parent / "stimulus_kernel.c"
KERNEL_DIR = BUILD_ROOT / "kernels"
_U64_POINTER = ctypes.POINTER(ctypes.c_uint64)


def compiler() -> str:
    """The C compiler: $CC, else cc, gcc or clang on PATH (Verilator's builds need one too)."""
    named = os.environ.get("CC")
    found = shutil.which(named) if named else next(filter(None, map(shutil.which, ("cc", "gcc", "clang"))), None)
    if not found:
        raise ToolError(f"bulk sweeps compile their stimulus with a C compiler, and {named or 'cc, gcc or clang'} "
                        "was not found: install gcc (Verilator needs it too) or set CC=")
    return found


def library_path(source: Path = SOURCE) -> Path:
    return KERNEL_DIR / f"{source.stem}-{hashlib.sha256(source.read_bytes()).hexdigest()[:16]}.so"


def build(source: Path = SOURCE) -> Path:
    """The compiled kernel of `source`, compiled now if it is not there yet."""
    target = library_path(source)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        partial = Path(scratch) / target.name
        built = subprocess.run([compiler(), "-O2", "-std=gnu11", "-shared", "-fPIC", "-Wall", "-Werror",
                                "-o", str(partial), str(source)], capture_output=True, text=True)
        if built.returncode:
            raise ToolError(f"the bulk stimulus kernel ({source.name}) did not compile:\n{built.stderr.strip()}")
        os.replace(partial, target)
    return target


@cache
def stimulus() -> ctypes.CDLL:
    """The loaded kernel, its one function typed."""
    library = ctypes.CDLL(str(build()))
    library.roofline_random_block.restype = ctypes.c_int
    library.roofline_random_block.argtypes = [*(ctypes.c_uint64,) * 4, *(ctypes.c_int,) * 4, ctypes.c_size_t,
                                              *(_U64_POINTER,) * 3]
    return library


def pointer(array: NDArray[np.uint64]) -> ctypes._Pointer[ctypes.c_uint64]:
    """A C-contiguous uint64 numpy array's data, as the kernel takes it."""
    return array.ctypes.data_as(_U64_POINTER)
