"""Run a command where no namespace can be created, as in a container whose seccomp profile refuses
them (Docker's default does, for a container without CAP_SYS_ADMIN; Gradescope and PrairieLearn
grade in such containers): `python tests/support/no_namespaces.py <command> ...`.

A seccomp filter makes unshare(2), and clone(2) with any CLONE_NEW* flag, fail with EPERM, and
clone3(2) fail with ENOSYS (so that the C library falls back to clone, which the filter sees).
Everything else, fork and exec included, works. x86_64 only.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
AUDIT_ARCH_X86_64 = 0xC000003E
SYSCALLS = {"clone": 56, "unshare": 272, "clone3": 435}  # x86_64 numbers
CLONE_NEW = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
RET_ALLOW, RET_ERRNO, RET_KILL = 0x7FFF0000, 0x00050000, 0x00000000
EPERM, ENOSYS = 1, 38
LOAD, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JSET|K, BPF_RET|K


def program() -> list[tuple[int, int, int, int]]:
    """(code, jump if true, jump if false, k) for each instruction."""
    return [
        (LOAD, 0, 0, 4),  # seccomp_data.arch
        (JEQ, 1, 0, AUDIT_ARCH_X86_64),
        (RET, 0, 0, RET_KILL),
        (LOAD, 0, 0, 0),  # seccomp_data.nr
        (JEQ, 0, 1, SYSCALLS["unshare"]),
        (RET, 0, 0, RET_ERRNO | EPERM),
        (JEQ, 0, 1, SYSCALLS["clone3"]),
        (RET, 0, 0, RET_ERRNO | ENOSYS),
        (JEQ, 0, 3, SYSCALLS["clone"]),
        (LOAD, 0, 0, 16),  # the low word of clone's flags (args[0])
        (JSET, 0, 1, CLONE_NEW),
        (RET, 0, 0, RET_ERRNO | EPERM),
        (RET, 0, 0, RET_ALLOW),
    ]


def refuse_namespaces() -> None:
    if platform.machine() != "x86_64":
        raise SystemExit("no_namespaces.py knows only x86_64's system call numbers")
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program())
    buffer = ctypes.create_string_buffer(code)
    prog = struct.pack("HL", len(program()), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) or libc.prctl(
            PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(prog), 0, 0):
        raise SystemExit(f"could not install the seccomp filter: {os.strerror(ctypes.get_errno())}")


if __name__ == "__main__":
    refuse_namespaces()
    os.execvp(sys.argv[1], sys.argv[1:])
