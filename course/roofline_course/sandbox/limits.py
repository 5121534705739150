"""The limits every process of a sandbox inherits: address space, CPU time, file size, processes."""

from __future__ import annotations

import resource
from dataclasses import dataclass

MIB = 1 << 20
WASM_ADDRESS_SPACE = 1 << 40  # wasmtime reserves over 4 GiB up front (4.06 GiB for Yosys); RLIMIT_DATA bounds what it uses


@dataclass(frozen=True)
class Limits:
    memory_mib: int = 4096  # address space of each process
    cpu_s: int = 300  # CPU seconds of each process
    file_mib: int = 20  # the largest file any process may write (logs, waveforms)
    processes: int = 64  # processes and threads of the sandbox's user
    tmp_mib: int = 256  # /tmp
    work_mib: int = 768  # /run: builds and whatever the design writes
    output_mib: int = 20  # stdout and stderr, each, as the grader keeps them
    step_s: float = 60.0  # wall-clock time of one check before the tests (compile, ports)

    def describe(self) -> str:
        return (f"{self.memory_mib} MiB address space and {self.cpu_s} s CPU per process, {self.file_mib} MiB per file, "
                f"{self.processes} processes, /tmp {self.tmp_mib} MiB, /run {self.work_mib} MiB, output kept up to "
                f"{self.output_mib} MiB per stream, no network, no /proc")


def apply_limits(limits: Limits, wasm: bool) -> None:
    """In the child before exec: limits every process of the sandbox inherits."""
    resource.setrlimit(resource.RLIMIT_AS, ((WASM_ADDRESS_SPACE if wasm else limits.memory_mib * MIB),) * 2)
    resource.setrlimit(resource.RLIMIT_DATA, (limits.memory_mib * MIB,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mib * MIB,) * 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
