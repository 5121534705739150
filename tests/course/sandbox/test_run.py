"""The grading sandbox's boundary and limits, each shown to be what stopped the probe.

Every test runs a small probe through sandbox.run and asserts the one limit it hits (the errno,
the signal, the exact bytes kept), and beside it a control that the same probe gets through
where the boundary or limit is absent or higher: a check that would pass on any machine, or
for any of several reasons, proves nothing about the sandbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from roofline_course import sandbox

pytestmark = pytest.mark.skipif(sandbox.available() is not None, reason=f"the sandbox needs bubblewrap: {sandbox.available()}")

SLOT = 40 + os.getpid() % 50  # a sandbox user of this worker's own (run() takes the next free one if busy)
MIB = 1 << 20


def sandboxed(code: str, limits: sandbox.Limits | None = None, timeout_s: float = 30) -> sandbox.Outcome:
    return sandbox.run([sys.executable, "-c", code], submission=None, timeout_s=timeout_s, limits=limits, slot=SLOT)


# ---------------------------------------------------------------- the network


@dataclass
class Listeners:
    """A TCP server on the host's loopback and an abstract Unix socket, recording what reaches them."""

    port: int
    unix_name: str
    received: list[bytes] = field(default_factory=list)


def _serve(server: socket.socket, received: list[bytes]) -> None:
    while True:
        try:
            connection, _ = server.accept()
        except OSError:  # closed at the end of the test
            return
        with connection:
            received.append(connection.recv(100))


@pytest.fixture
def listeners() -> Iterator[Listeners]:
    tcp = socket.create_server(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX)
    name = f"roofline-sandbox-test-{os.getpid()}-{random.randrange(1 << 30)}"
    unix.bind("\0" + name)  # abstract: reachable from the host's network namespace only, whatever the files
    unix.listen()
    found = Listeners(tcp.getsockname()[1], name)
    threads = [threading.Thread(target=_serve, args=(server, found.received), daemon=True) for server in (tcp, unix)]
    for thread in threads:
        thread.start()
    yield found
    for server in (tcp, unix):
        with contextlib.suppress(OSError):
            server.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        server.close()


def received(where: Listeners, count: int, seconds: float = 10) -> list[bytes]:
    """What reached the listeners, once `count` messages have (or the time is up)."""
    deadline = time.monotonic() + seconds
    while len(where.received) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return sorted(where.received)


def network_probe(where: Listeners, token: str) -> str:
    """Connect to both listeners and send the token; one line per listener: connected, or the errno's name."""
    return f"""
import errno, socket
for family, address in ((socket.AF_INET, ("127.0.0.1", {where.port})), (socket.AF_UNIX, "\\0{where.unix_name}")):
    s = socket.socket(family)
    s.settimeout(5)
    try:
        s.connect(address)
        s.sendall(b"{token}")
        print("connected")
    except OSError as problem:
        print(errno.errorcode.get(problem.errno, str(problem)))
    finally:
        s.close()
"""


def test_a_server_on_the_hosts_loopback_is_out_of_reach(listeners: Listeners) -> None:
    inside = sandboxed(network_probe(listeners, "from-the-sandbox"))
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.splitlines() == ["ECONNREFUSED", "ECONNREFUSED"], inside.stdout
    # The control: the same probe, not sandboxed, reaches both (so the refusal above is the sandbox's).
    outside = subprocess.run([sys.executable, "-c", network_probe(listeners, "from-the-host")], capture_output=True,
                             text=True, timeout=60)
    assert outside.stdout.splitlines() == ["connected", "connected"], outside.stdout + outside.stderr
    assert received(listeners, 2) == [b"from-the-host", b"from-the-host"]  # and nothing from the sandbox


# ---------------------------------------------------------------- memory, CPU time, processes


MEMORY_PROBE = """
import resource
print("limit", resource.getrlimit(resource.RLIMIT_AS)[0] >> 20)
for mib in (128, 768):
    try:
        block = bytearray(mib << 20)  # address space is what the limit counts, touched or not
        print(mib, "allocated")
        del block
    except MemoryError:
        print(mib, "MemoryError")
"""


def test_the_memory_limit_refuses_an_allocation_above_it_and_grants_one_below() -> None:
    held = sandboxed(MEMORY_PROBE, sandbox.Limits(memory_mib=512))
    assert held.returncode == 0, held.stderr
    assert held.stdout.splitlines() == ["limit 512", "128 allocated", "768 MemoryError"], held.stdout + held.stderr
    roomier = sandboxed(MEMORY_PROBE, sandbox.Limits(memory_mib=2048))  # the control: it was the limit, not the machine
    assert roomier.stdout.splitlines() == ["limit 2048", "128 allocated", "768 allocated"], roomier.stdout + roomier.stderr


CPU_PROBE = """
import time
mark = 0.0
while (used := time.process_time()) < 3:
    if used >= mark:
        print(f"{used:.1f}", flush=True)
        mark += 0.1
print("finished")
"""


@pytest.mark.parametrize(("code", "crashed"), [("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", True),
                                                ("import sys; sys.exit(3)", False), ("pass", False)])
def test_a_step_a_signal_ended_is_a_crash_and_one_that_exited_is_not(code: str, crashed: bool) -> None:
    outcome = sandboxed(code)
    assert outcome.crashed is crashed and outcome.killed_by == (signal.SIGSEGV if crashed else 0), outcome


def test_the_cpu_limit_kills_a_busy_loop_at_its_cpu_seconds() -> None:
    outcome = sandboxed(CPU_PROBE, sandbox.Limits(cpu_s=1), timeout_s=60)
    lines = outcome.stdout.splitlines()
    assert not outcome.timed_out and "finished" not in lines, outcome
    # RLIMIT_CPU with soft = hard ends in SIGKILL; bwrap reports its child's signal as 128 + the signal.
    assert outcome.returncode == 128 + signal.SIGKILL and outcome.crashed and outcome.killed_by == signal.SIGKILL, outcome
    # killed as its CPU time reached 1 s, not before or after (printed to one decimal: 0.95 s reads 1.0)
    assert 0.8 <= float(lines[-1]) <= 1.0, lines[-3:]


PROCESS_PROBE = """
import errno, os, time
children = []
try:
    while len(children) < 500:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    print("no limit")
except OSError as problem:
    print(len(children), errno.errorcode[problem.errno])
for pid in children:
    os.kill(pid, 9)
"""


@pytest.mark.parametrize("processes", [16, 32])
def test_the_process_limit_refuses_the_fork_past_it(processes: int) -> None:
    """The probe itself is one of the user's processes: it may start processes - 1 more, and no more."""
    outcome = sandboxed(PROCESS_PROBE, sandbox.Limits(processes=processes))
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.splitlines() == [f"{processes - 1} EAGAIN"], outcome.stdout + outcome.stderr


# ---------------------------------------------------------------- files and scratch folders


def pattern(size: int) -> bytes:
    return random.Random(2026).randbytes(size)


def file_probe(path: str, size: int) -> str:
    """Write `size` bytes of the pattern in 64 KiB writes until one fails; print what stopped it and what the file holds."""
    return f"""
import errno, hashlib, os, random
data = random.Random(2026).randbytes({size})
stopped = "complete"
with open({path!r}, "wb", buffering=0) as handle:
    for start in range(0, len(data), 65536):
        try:
            handle.write(data[start:start + 65536])
        except OSError as problem:
            stopped = errno.errorcode[problem.errno]
            break
kept = open({path!r}, "rb").read()
print(stopped, len(kept), hashlib.sha256(kept).hexdigest())
"""


def test_the_file_size_limit_keeps_exactly_its_size_of_what_was_written() -> None:
    outcome = sandboxed(file_probe("/run/big", 2 * MIB), sandbox.Limits(file_mib=1))
    assert outcome.returncode == 0, outcome.stderr
    stopped, length, digest = outcome.stdout.split()
    assert stopped == "EFBIG" and int(length) == MIB, outcome.stdout  # the file limit, not a full folder (ENOSPC)
    assert digest == hashlib.sha256(pattern(2 * MIB)[:MIB]).hexdigest(), "the file does not hold what was written"


@pytest.mark.parametrize(("folder", "limits"), [
    pytest.param("/tmp", sandbox.Limits(tmp_mib=2, file_mib=20), id="tmp"),
    pytest.param("/run", sandbox.Limits(work_mib=2, file_mib=20), id="run"),
])
def test_a_scratch_folder_fills_at_its_own_size(folder: str, limits: sandbox.Limits) -> None:
    outcome = sandboxed(file_probe(f"{folder}/big", 4 * MIB), limits)
    assert outcome.returncode == 0, outcome.stderr
    stopped, length, digest = outcome.stdout.split()
    assert stopped == "ENOSPC" and MIB < int(length) <= 2 * MIB, outcome.stdout  # the folder's size, not the file limit
    assert digest == hashlib.sha256(pattern(4 * MIB)[: int(length)]).hexdigest(), "the file does not hold what was written"


def test_a_file_within_every_limit_is_written_whole() -> None:
    """The control for the two above: the same probe, under the limits, completes."""
    outcome = sandboxed(file_probe("/run/small", MIB // 2), sandbox.Limits(file_mib=1, work_mib=2))
    assert outcome.stdout.split() == ["complete", str(MIB // 2), hashlib.sha256(pattern(MIB // 2)).hexdigest()]


# ---------------------------------------------------------------- time and output


def test_the_wall_clock_limit_kills_the_whole_sandbox_and_nothing_outlives_it() -> None:
    token = f"{random.randrange(1000, 2000)}.{random.randrange(10 ** 6):06d}"  # names this run's sleeps
    outcome = sandbox.run(["sh", "-c", f"sleep {token} & sleep {token}; echo survived"], submission=None, timeout_s=2,
                          slot=SLOT)
    assert outcome.timed_out and outcome.returncode is None and "survived" not in outcome.stdout, outcome
    assert 2 <= outcome.seconds < 10, outcome.seconds
    running = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout.splitlines()
    assert not [line for line in running if token in line], "a sandboxed process outlived the time limit"


STALL_PROBE = """
import os, sys, time
channel = int(os.environ["ROOFLINE_RESULT_FD"])
time.sleep(float(sys.argv[1]))  # silent before the reply begins
for beat in range(int(sys.argv[2])):
    os.write(channel, b"beat %d\\n" % beat)
    time.sleep(float(sys.argv[3]))
print("finished")
"""


def stall_probe(before_s: float, beats: int, every_s: float) -> sandbox.Outcome:
    return sandbox.run([sys.executable, "-c", STALL_PROBE, str(before_s), str(beats), str(every_s)], submission=None,
                       timeout_s=20, slot=SLOT, result_pipe=True, stall_s=0.6)


def test_a_reply_that_falls_silent_is_stopped_at_the_stall_limit_with_what_it_sent() -> None:
    outcome = stall_probe(0.0, 1, 30.0)  # a beat, then silence past the 20 s limit
    assert outcome.timed_out and outcome.stalled and outcome.returncode is None, outcome
    assert outcome.result == b"beat 0\n" and "finished" not in outcome.stdout
    assert outcome.seconds < 15, outcome.seconds


def test_a_reply_that_keeps_coming_or_has_not_begun_is_not_stalled() -> None:
    """Beats closer than the stall limit run to the end; silence before the first byte is the
    start (a build, the simulator loading) and only the time limit bounds it."""
    steady = stall_probe(0.0, 12, 0.15)
    late = stall_probe(1.5, 1, 0.0)
    for outcome in (steady, late):
        assert outcome.returncode == 0 and not outcome.timed_out and not outcome.stalled, outcome
        assert "finished" in outcome.stdout
    assert len(steady.result.splitlines()) == 12 and late.result == b"beat 0\n"


def test_output_past_the_cap_is_cut_at_the_cap_and_the_writer_never_blocks() -> None:
    line = "flood, every line the same\n"
    outcome = sandbox.run(["sh", "-c", f"yes '{line.strip()}' | head -c {3 * MIB}; echo done >&2"], submission=None,
                          timeout_s=30, limits=sandbox.Limits(output_mib=1), slot=SLOT)
    assert outcome.returncode == 0 and not outcome.timed_out, outcome.stderr
    assert outcome.output_truncated == ["stdout"]
    assert outcome.stdout == (line * (MIB // len(line) + 1))[:MIB]  # the first MiB, byte for byte
    assert outcome.stderr == "done\n"


# ---------------------------------------------------------------- the harness's bytecode

BYTECODE_PROBE = """
import importlib.util, os, struct, roofline_course.design_lab.sandbox_job as job
with open(job.__cached__, "rb") as pyc:
    magic, flags, mtime, size = struct.unpack("<4sIII", pyc.read(16))
source = os.stat(job.__file__)
fresh = magic == importlib.util.MAGIC_NUMBER and flags == 0 and mtime == int(source.st_mtime) & 0xFFFFFFFF
print("fresh" if fresh and size == source.st_size & 0xFFFFFFFF else "stale")
"""


def test_a_step_reads_the_bytecode_the_grader_compiled_as_current() -> None:
    """A step cannot write bytecode; without the grader's, each of its Python processes compiles the
    harness from source again. The step sees the grade job's bytecode, readable and matching its source."""
    sandbox.compile_bytecode()
    outcome = sandboxed(BYTECODE_PROBE)
    assert outcome.returncode == 0, outcome.stderr
    assert outcome.stdout.split() == ["fresh"]


# ---------------------------------------------------------------- what a step is given

CHANNELS_PROBE = """
import os, stat
fd = os.environ.get("ROOFLINE_RESULT_FD")
print("result fd", fd, fd is not None and stat.S_ISFIFO(os.fstat(int(fd)).st_mode))
print("proc", os.path.exists("/proc/self/status"))
"""


def test_a_step_gets_a_result_pipe_only_when_its_grader_reads_one() -> None:
    """A step whose result nothing reads has no channel to write one on: neither the variable nor the fd."""
    plain = sandboxed(CHANNELS_PROBE)
    piped = sandbox.run([sys.executable, "-c", CHANNELS_PROBE], submission=None, timeout_s=30, slot=SLOT,
                        result_pipe=True)
    assert plain.returncode == 0 and piped.returncode == 0, (plain.stderr, piped.stderr)
    assert plain.stdout.splitlines()[0] == "result fd None False"
    assert piped.stdout.splitlines()[0].endswith(" True")


def test_a_synthesis_step_gets_a_proc_of_its_own_and_a_simulation_step_none() -> None:
    """Yosys and nextpnr read /proc (a /proc of the sandbox's own PID namespace); a simulation, where
    the design runs, gets none: it would reach the result pipe through /proc."""
    simulation = sandboxed(CHANNELS_PROBE)
    synthesis = sandbox.run([sys.executable, "-c", CHANNELS_PROBE], submission=None, timeout_s=30, slot=SLOT,
                            eda=("yosys",))
    assert simulation.returncode == 0 and synthesis.returncode == 0, (simulation.stderr, synthesis.stderr)
    assert simulation.stdout.splitlines()[1] == "proc False"
    assert synthesis.stdout.splitlines()[1] == "proc True"
