"""One step in the sandbox: started, fed its input, read on capped pipes, stopped at its time limit.

Output comes back on pipes the grader reads with a cap: stdout and stderr, and the result on a
third pipe (its fd in ROOFLINE_RESULT_FD) that only the trusted grading process holds.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
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
COMMAND_FD_VARIABLE = "ROOFLINE_COMMAND_FD"  # with converse: the trusted process reads the grader's commands from this fd
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
    killed_by: int = 0  # the signal that ended the step, 0 if none (bubblewrap exits with 128 + it)

    @property
    def crashed(self) -> bool:
        """Stopped by a signal (a limit, a crash) rather than exiting, in every isolation: a negative
        status, or the signal run read from bubblewrap's 128 + it (killed_by)."""
        return self.returncode is not None and (self.returncode < 0 or self.killed_by > 0)


@dataclass
class Heard:
    """When a pipe last brought bytes (None: not yet)."""

    last: float | None = None


def _drain(stream: object, cap: int, sink: list[bytes], truncated: list[bool], heard: Heard | None = None) -> None:
    """Keep the first `cap` bytes of a pipe and read the rest away, so the writer never blocks; truncated
    says that bytes past the cap came (a stream of exactly `cap` bytes is whole)."""
    kept = 0
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        if heard is not None:
            heard.last = time.monotonic()
        room = chunk[: cap - kept]  # kept never passes cap: b"" once it is reached
        if room:
            sink.append(room)
            kept += len(room)
        if len(room) < len(chunk):
            truncated[0] = True


def run(argv: list[str], *, submission: Path | None, timeout_s: float, limits: Limits | None = None,
        stdin: bytes = b"", slot: int = 0, extra_ro: list[tuple[Path, str]] | None = None,
        env: dict[str, str] | None = None, result_pipe: bool = False, unsafe: bool = False,
        eda: tuple[str, ...] = (), stall_s: float | None = None,
        converse: Callable[[int, int], str] | None = None, harness: tuple[Path, ...] | None = None) -> Outcome:
    """Run argv in the sandbox (or, with unsafe, as a plain child: for a machine without bubblewrap).

    converse (with result_pipe): a conversation with the step, held while it runs, in a thread of
    this process: it gets the write end of a command pipe (the step reads it from the fd named by
    ROOFLINE_COMMAND_FD) and the read end of the result pipe, and returns "" when it is done, or
    "stalled" or "void" when the step must be stopped now (an answer that did not come in time, an
    answer against the protocol). Its result pipe is then not kept in the Outcome.

    harness: the files of the checkout the step may see (bubblewrap), instead of the whole harness.

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
                    result_pipe, unsafe, step, stall_s, converse, harness)


def _run(argv: list[str], submission: Path | None, timeout_s: float, limits: Limits, stdin: bytes, slot: int,
         extra_ro: list[tuple[Path, str]], env: dict[str, str], result_pipe: bool, unsafe: bool,
         step: EdaStep, stall_s: float | None = None, converse: Callable[[int, int], str] | None = None,
         harness: tuple[Path, ...] | None = None) -> Outcome:
    read_end = write_end = command_read = command_write = -1
    if result_pipe:
        read_end, write_end = os.pipe()
        env = {**(env or {}), RESULT_FD_VARIABLE: str(write_end)}
    if converse is not None:
        command_read, command_write = os.pipe()
        env = {**env, COMMAND_FD_VARIABLE: str(command_read)}
    inherited = tuple(fd for fd in (write_end, command_read) if fd >= 0)
    isolation = "unsafe" if unsafe else mode()
    if isolation is None:
        raise SandboxUnavailable(available() or "no sandbox")
    work = private_folder(slot, unsafe) if isolation != "bwrap" else WORK
    if isolation == "bwrap":
        full, cwd, step_env = command(argv, submission, limits, slot, extra_ro, env, step.proc, harness), None, None
    else:
        places = {SUBMISSION: submission or work, WORK: work}
        full, stdin = [relocate(word, places) for word in argv], relocate(stdin.decode(), places).encode()
        env = {name: relocate(value, places) for name, value in env.items()}
        full = full if unsafe else as_the_sandbox_user(full, slot)
        cwd, step_env = str(work), {**os.environ, **env} if unsafe else environment(work, work / "tmp", env)
    started = time.monotonic()
    process = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               pass_fds=inherited, start_new_session=True, cwd=cwd,
                               preexec_fn=None if unsafe else lambda: apply_limits(limits, step.wasm),  # noqa: PLW1509
                               env=step_env)
    for fd in inherited:
        os.close(fd)
    cap = limits.output_mib * MIB
    out: list[bytes] = []
    err: list[bytes] = []
    out_cut, err_cut = [False], [False]
    readers = [threading.Thread(target=_drain, args=(process.stdout, cap, out, out_cut), daemon=True),
               threading.Thread(target=_drain, args=(process.stderr, cap, err, err_cut), daemon=True)]
    result_chunks: list[bytes] = []
    heard = Heard()
    talk = _Conversation(converse, command_write, read_end) if converse is not None else None
    if result_pipe and talk is None:
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
    if talk is not None:
        talk.start()
        timed_out, stalled = talk.wait(process, started + timeout_s)
    else:
        timed_out, stalled = _wait(process, started + timeout_s, heard, stall_s if result_pipe else None)
    if timed_out or process.returncode is None:
        _kill_group(process)
    if talk is not None:
        talk.close()
    if not unsafe:
        wait_until_gone(SANDBOX_UID + slot)
    if isolation == "uid":
        shutil.rmtree(work, ignore_errors=True)
        remove_leftovers(SANDBOX_UID + slot)
    for reader in readers:
        reader.join(timeout=10)
    truncated = [name for name, cut in (("stdout", out_cut), ("stderr", err_cut)) if cut[0]]
    code = None if timed_out else process.returncode
    return Outcome(code, b"".join(out).decode(errors="replace"), b"".join(err).decode(errors="replace"),
                   b"".join(result_chunks), time.monotonic() - started, timed_out, truncated, stalled,
                   killed_by(code, isolation))


def killed_by(code: int | None, isolation: str) -> int:
    """The signal a step's exit status says ended it: a negative status is a signal wherever the step ran;
    bubblewrap, whose child it was, exits with 128 + the signal instead."""
    if code is None:
        return 0
    if code < 0:
        return -code
    return code - 128 if isolation == "bwrap" and 128 < code <= 128 + signal.SIGRTMAX else 0


class _Conversation(threading.Thread):
    """converse, in its own thread, with the pipes it holds closed once it is over."""

    def __init__(self, converse: Callable[[int, int], str], commands: int, answers: int) -> None:
        super().__init__(daemon=True)
        self.converse, self.commands, self.answers = converse, commands, answers
        self.ended, self.how = threading.Event(), ""
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.how = self.converse(self.commands, self.answers)
        except BaseException as problem:  # noqa: BLE001 - the grader's own failure: raised again in the caller
            self.how, self.error = "error", problem
        finally:
            self.ended.set()

    def wait(self, process: subprocess.Popen[bytes], deadline: float) -> tuple[bool, bool]:
        """Until the step ends, the deadline passes, or the conversation stops it: (timed out, stalled)."""
        while True:
            if self.ended.is_set() and self.how:
                return self.how == "stalled", self.how == "stalled"  # "void", "error": stopped, not timed out
            left = deadline - time.monotonic()
            if left <= 0:
                return True, False
            try:
                process.wait(timeout=min(left, STALL_POLL_S))
                return False, False
            except subprocess.TimeoutExpired:
                continue

    def close(self) -> None:
        self.join(timeout=10)
        for fd in (self.commands, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.error is not None:
            raise self.error


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
