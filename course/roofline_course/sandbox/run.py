"""One step in the sandbox: started, fed its input, read on capped pipes, stopped at its time limit.

Output comes back on pipes the grader reads with a cap: stdout and stderr, and the result on a
third pipe (its fd in ROOFLINE_RESULT_FD) that only the trusted grading process holds.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from roofline_course.sandbox.eda import EdaStep, eda_step
from roofline_course.sandbox.isolation import SandboxUnavailable, available, mode
from roofline_course.sandbox.limits import MIB, Limits, apply_limits
from roofline_course.sandbox.mounts import SUBMISSION, WORK, command, environment, relocate
from roofline_course.sandbox.users import (
    SANDBOX_UID,
    as_the_sandbox_user,
    claim,
    private_folder,
    remove_leftovers,
    wait_until_gone,
)

RESULT_FD_VARIABLE = "ROOFLINE_RESULT_FD"  # the trusted process writes its result to this fd
STALL_POLL_S = 0.1  # how often a run with a stall limit looks at its result pipe


@dataclass
class Outcome:
    returncode: int | None  # None: killed at the time limit
    stdout: str
    stderr: str
    result: bytes  # what the trusted process wrote on the result pipe
    seconds: float
    timed_out: bool = False
    output_truncated: list[str] = field(default_factory=list)  # "stdout", "stderr": the cap was hit
    stalled: bool = False  # timed out by the stall limit: the result pipe fell silent once it had begun

    @property
    def crashed(self) -> bool:
        """Stopped by a signal (a limit, a crash) rather than exiting."""
        return self.returncode is not None and self.returncode < 0


@dataclass
class Heard:
    """When a pipe last brought bytes (None: not yet)."""

    last: float | None = None


def _drain(stream: object, cap: int, sink: list[bytes], truncated: list[bool], heard: Heard | None = None) -> None:
    """Keep the first `cap` bytes of a pipe and read the rest away, so the writer never blocks."""
    kept = 0
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        if heard is not None:
            heard.last = time.monotonic()
        if kept < cap:
            sink.append(chunk[: cap - kept])
            kept += len(sink[-1])
        if kept >= cap and len(chunk):
            truncated[0] = True


def run(argv: list[str], *, submission: Path | None, timeout_s: float, limits: Limits | None = None,
        stdin: bytes = b"", slot: int = 0, extra_ro: list[tuple[Path, str]] | None = None,
        env: dict[str, str] | None = None, result_pipe: bool = False, unsafe: bool = False,
        eda: tuple[str, ...] = (), stall_s: float | None = None) -> Outcome:
    """Run argv in the sandbox (or, with unsafe, as a plain child: for a machine without bubblewrap).

    stall_s (with result_pipe): stop the run, as timed out and stalled, once the result pipe has
    brought nothing for stall_s seconds after its first bytes. A simulation's tape grows many
    times a second while the simulation runs; one that falls silent is stuck where simulated time
    cannot pass (logic that never settles), and would spin until its time limit.

    eda: the Yosys and nextpnr tools the step runs (see eda_step). A native one gets a /proc of
    the sandbox's own PID namespace; never a simulation, where the design runs: it would reach
    the result pipe through /proc.
    """
    limits = limits or Limits()
    step = EdaStep() if unsafe else eda_step(eda)
    env = {**step.env, **(env or {})}
    with claim(slot) as slot:
        return _run(argv, submission, timeout_s, limits, stdin, slot, [*(extra_ro or []), *step.extra_ro], env,
                    result_pipe, unsafe, step, stall_s)


def _run(argv: list[str], submission: Path | None, timeout_s: float, limits: Limits, stdin: bytes, slot: int,
         extra_ro: list[tuple[Path, str]], env: dict[str, str], result_pipe: bool, unsafe: bool,
         step: EdaStep, stall_s: float | None = None) -> Outcome:
    read_end = write_end = -1
    if result_pipe:
        read_end, write_end = os.pipe()
        env = {**(env or {}), RESULT_FD_VARIABLE: str(write_end)}
    isolation = "unsafe" if unsafe else mode()
    if isolation is None:
        raise SandboxUnavailable(available() or "no sandbox")
    work = private_folder(slot, unsafe) if isolation != "bwrap" else WORK
    if isolation == "bwrap":
        full, cwd, step_env = command(argv, submission, limits, slot, extra_ro, env, step.proc), None, None
    else:
        places = {SUBMISSION: submission or work, WORK: work}
        full, stdin = [relocate(word, places) for word in argv], relocate(stdin.decode(), places).encode()
        env = {name: relocate(value, places) for name, value in env.items()}
        full = full if unsafe else as_the_sandbox_user(full, slot)
        cwd, step_env = str(work), {**os.environ, **env} if unsafe else environment(work, work / "tmp", env)
    started = time.monotonic()
    process = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               pass_fds=(write_end,) if result_pipe else (), start_new_session=True, cwd=cwd,
                               preexec_fn=None if unsafe else lambda: apply_limits(limits, step.wasm),  # noqa: PLW1509
                               env=step_env)
    if result_pipe:
        os.close(write_end)
    cap = limits.output_mib * MIB
    out: list[bytes] = []
    err: list[bytes] = []
    out_cut, err_cut = [False], [False]
    readers = [threading.Thread(target=_drain, args=(process.stdout, cap, out, out_cut), daemon=True),
               threading.Thread(target=_drain, args=(process.stderr, cap, err, err_cut), daemon=True)]
    result_chunks: list[bytes] = []
    heard = Heard()
    if result_pipe:
        result_file = os.fdopen(read_end, "rb")
        readers.append(threading.Thread(target=_drain, args=(result_file, 16 * MIB, result_chunks, [False], heard),
                                        daemon=True))
    for reader in readers:
        reader.start()
    try:
        process.stdin.write(stdin)  # type: ignore[union-attr]
        process.stdin.close()  # type: ignore[union-attr]
    except BrokenPipeError:
        pass
    timed_out, stalled = _wait(process, started + timeout_s, heard, stall_s if result_pipe else None)
    if timed_out or process.returncode is None:
        _kill_group(process)
    if not unsafe:
        wait_until_gone(SANDBOX_UID + slot)
    if isolation == "uid":
        shutil.rmtree(work, ignore_errors=True)
        remove_leftovers(SANDBOX_UID + slot)
    for reader in readers:
        reader.join(timeout=10)
    truncated = [name for name, cut in (("stdout", out_cut), ("stderr", err_cut)) if cut[0]]
    return Outcome(None if timed_out else process.returncode, b"".join(out).decode(errors="replace"),
                   b"".join(err).decode(errors="replace"), b"".join(result_chunks), time.monotonic() - started,
                   timed_out, truncated, stalled)


def _wait(process: subprocess.Popen[bytes], deadline: float, heard: Heard, stall_s: float | None) -> tuple[bool, bool]:
    """Wait for the step to end: (timed out, stalled). With a stall limit, look at the pipe every STALL_POLL_S."""
    while True:
        now = time.monotonic()
        if stall_s is not None and heard.last is not None and now - heard.last > stall_s:
            return True, True
        left = max(0.0, deadline - now)
        try:
            process.wait(timeout=left if stall_s is None else min(left, STALL_POLL_S))
            return False, False
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                return True, False


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """The sandbox is its own session: killing the group kills bwrap, and with it its PID namespace."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
