"""The sandbox's limits as documented, and each reaching the process (roofline_course.sandbox.limits).
Fast: make mutation runs it per mutant."""

from __future__ import annotations

import subprocess
import sys

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course import sandbox
from roofline_course.sandbox.limits import WASM_ADDRESS_SPACE
from roofline_course.sandbox.mounts import command

MAP = """
import mmap, sys
from roofline_course.sandbox.limits import Limits, apply_limits
apply_limits(Limits(), wasm=False)
try:
    mmap.mmap(-1, int(sys.argv[1]) << 20)
except OSError:
    print("refused")
else:
    print("granted")
"""


@pytest.mark.parametrize(("mib", "answer"), [(1024, "granted"), (4 * 1024 + 64, "refused"), (400 * 1024, "refused")])
def test_the_default_memory_limit_is_four_gib_of_address_space(mib: int, answer: str) -> None:
    """The default (4096 MiB per process, docs/threat-model.md; sandbox.Limits, said by every
    grade's `describe` line) refuses a mapping just above it and grants one well below it. A
    mapping reserves address space without touching memory, so the control costs nothing."""
    run = subprocess.run([sys.executable, "-c", MAP, str(mib)], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == answer, run.stdout + run.stderr

DOCUMENTED_LIMITS = ("4096 MiB address space and 300 s CPU per process, 20 MiB per file, 64 processes, /tmp 256 MiB, "
                     "/run 768 MiB, output kept up to 20 MiB per stream, no network, no /proc")  # docs/threat-model.md

MIB = 1 << 20

RLIMITS = """
import resource
from roofline_course.sandbox.limits import Limits, apply_limits
apply_limits(Limits(), wasm={wasm})
print([resource.getrlimit(getattr(resource, name)) for name in ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_FSIZE",
                                                                 "RLIMIT_NPROC", "RLIMIT_CORE")])
"""


def test_the_default_limits_are_the_documented_ones() -> None:
    threat_model = " ".join((REPO_ROOT / "docs" / "threat-model.md").read_text().split())
    assert DOCUMENTED_LIMITS in threat_model
    assert sandbox.Limits().describe() == DOCUMENTED_LIMITS
    assert sandbox.Limits().step_s == 60.0 and "gets 60 s of wall-clock time" in threat_model


@pytest.mark.parametrize("wasm", [False, True])
def test_every_limit_reaches_the_process(wasm: bool) -> None:
    run = subprocess.run([sys.executable, "-c", RLIMITS.format(wasm=wasm)], capture_output=True, text=True, timeout=60)
    address_space = WASM_ADDRESS_SPACE if wasm else 4096 * MIB  # a WebAssembly runtime reserves more, and says so
    expected = [address_space, 4096 * MIB, 300, 20 * MIB, 64, 0]
    assert run.stdout.strip() == str([(value, value) for value in expected]), run.stdout + run.stderr


def test_the_scratch_folders_have_their_documented_sizes() -> None:
    line = command(["true"], None, sandbox.Limits())
    mounts = {line[i + 1]: line[i - 4:i] for i, word in enumerate(line) if word == "--tmpfs"}
    assert mounts == {"/tmp": ["--size", str(256 * MIB), "--perms", "01777"],
                      "/run": ["--size", str(768 * MIB), "--perms", "01777"]}
    assert "--unshare-net" in line
