"""The grader's end of the port channel: answers the shell's queries from the bank and keeps the transcript.

One server serves one run of a student's testbench: it reads each line the shell writes to the
`query` FIFO (the design's inputs as %h prints them, and the time), and answers it:

- a vector of known inputs (exactly the port's width in lower-case hex digits, nothing else) with
  the served design's outputs, from the bank, which evaluates every design on it;
- a vector with an X or Z in any input with `X_ANSWER` (every output X), decided here and the
  same whichever design is served: no design is asked, so no design's X propagation shows;
- anything else (a prefix, a sign, an underscore, upper-case digits, another width, a value wider
  than the port, a time running backwards) with nothing at all, and it is a violation of the run.

The shell never sends anything but the first two: a malformed line is the testbench writing to
the FIFO itself, and the run counts for nothing. The transcript records, out of the testbench's
reach, what the run did to the design: how many vectors, whether the inputs ever changed, the
first vector of known inputs on which the served design's outputs differed from the correct
design's (the run *exposed* the bug; an X or Z vector never does), a digest of the exchange (each
vector and its answer, in order: two runs with one digest looked the same at the ports), the
functional coverage (sampled on every run alike, so no run's answers cost more), and the vector
at each time step (to name the vector a failing test was checking).
"""

from __future__ import annotations

import hashlib
import os
import re
import select
import shutil
import tempfile
import threading
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from roofline_bench.coverage import Coverage
from roofline_course.testbench_lab.design_bank import DesignBank
from roofline_course.testbench_lab.port_shell import SHELL_INPUTS, SHELL_OUTPUTS, GraderSideError, Query, digits
from roofline_golden import QFormat

POLL_S = 0.05
CHUNK = 1 << 16
TIME_DIGITS = 20  # a 64-bit $time in decimal
RECORDED_STEPS = 1 << 19  # time steps whose vector the transcript keeps (about 20 MB at UQ24.16)
INPUTS = len(SHELL_INPUTS)


class Malformed(ValueError):
    """A line that is not a query the shell writes; the message says what is wrong, never echoes it."""


def x_answer(fmt: QFormat) -> tuple[str, str]:
    """The answer to every vector with an X or Z input: every output X, whatever design is served."""
    return "x" * digits(fmt), "x"


def read_query(line: bytes, fmt: QFormat, after_ps: int = 0) -> Query:
    """One line of the shell, read strictly (raises Malformed): three inputs as Icarus's %h prints a
    W-bit value, and the time in picoseconds, not before `after_ps`."""
    width = digits(fmt)
    parts = line.split(b" ")
    if len(parts) != INPUTS + 1:
        raise Malformed(f"a line that is not {INPUTS} inputs and a time")
    *fields, time = parts
    if not re.fullmatch(rb"[0-9]{1,%d}" % TIME_DIGITS, time):
        raise Malformed("a time that is not a decimal count of picoseconds")
    values: list[int] = []
    for text in fields:
        if not re.fullmatch(rb"[0-9a-fxXzZ]{%d}" % width, text):
            raise Malformed(f"an input that is not {width} hex digits as %h prints them")
        if int(re.sub(rb"[xXzZ]", b"0", text), 16) >> fmt.width:
            raise Malformed(f"an input wider than the port's {fmt.width} bits")
        if re.fullmatch(rb"[0-9a-f]+", text):
            values.append(int(text, 16))
    if int(time) < after_ps:
        raise Malformed("a time earlier than the query before it")
    vector = tuple(text.decode("ascii") for text in fields)
    return Query(vector, tuple(values) if len(values) == INPUTS else None, int(time))  # type: ignore[arg-type]


@dataclass
class Transcript:
    """What one run did to the design, as the grader saw it."""

    queries: int = 0
    known: int = 0  # vectors with no X or Z input
    first: tuple[str, str, str] | None = None  # the first known vector
    toggled: bool = False  # a known vector other than the first was applied
    exposed_at: int | None = None  # the first query whose answer differs from the correct design's
    differs: set[str] = field(default_factory=set)  # the outputs that differed, on any query
    digest: str = ""  # of the exchange: every vector and its answer, in order
    violation: str = ""
    coverage: Counter[str] = field(default_factory=Counter)
    times: array = field(default_factory=lambda: array("q"))  # each recorded time step, in ps
    steps: bytearray = field(default_factory=bytearray)  # the last vector of each recorded time step, as sent
    step_size: int = 0  # bytes of one vector in `steps` (every vector of a run has the same length)
    dropped_from: int | None = None  # the first time step not recorded (beyond RECORDED_STEPS), in ps

    @property
    def exposed(self) -> bool:
        return self.exposed_at is not None

    def record(self, query: Query) -> None:
        text = " ".join(query.vector).encode("ascii")
        self.step_size = len(text)
        if self.times and self.times[-1] == query.time_ps:
            self.steps[-len(text):] = text
        elif len(self.times) < RECORDED_STEPS:
            self.times.append(query.time_ps)
            self.steps += text
        elif self.dropped_from is None:
            self.dropped_from = query.time_ps

    def vector_before(self, time_ps: int) -> tuple[int, tuple[str, str, str]] | None:
        """The last vector applied strictly before `time_ps`, with its time; None if there was none or it was not recorded."""
        index = bisect_left(self.times, time_ps) - 1
        if index < 0 or (self.dropped_from is not None and time_ps > self.dropped_from):
            return None
        text = self.steps[index * self.step_size:(index + 1) * self.step_size].decode("ascii")
        peak, bw, ai = text.split(" ")
        return self.times[index], (peak, bw, ai)


class Channel:
    """A fresh folder holding the two FIFOs and the shell for one run, and an empty one; removed with close()."""

    def __init__(self, shell: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="roofline-channel-"))
        self.folder.chmod(0o711)  # the sandbox user may pass, not list (the uid isolation has no mount)
        self.empty = Path(tempfile.mkdtemp(prefix="roofline-empty-"))  # bound over what a run must not see
        self.empty.chmod(0o755)
        for name in ("query", "answer"):
            os.mkfifo(self.folder / name)
            (self.folder / name).chmod(0o666)
        shutil.copyfile(shell, self.folder / "shell.vvp")
        (self.folder / "shell.vvp").chmod(0o644)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.empty, ignore_errors=True)


class ChannelServer(threading.Thread):
    """Serves `served` (a bank column) for one run and compares it with `against`, the correct design."""

    def __init__(self, channel: Channel, bank: DesignBank, served: str, against: str) -> None:
        super().__init__(daemon=True)
        self.channel, self.bank, self.served, self.against = channel, bank, served, against
        self.transcript = Transcript()
        self.error = ""  # the grader's own failure (the bank), never the testbench's
        self._stop_serving = threading.Event()
        self._longest = INPUTS * (digits(bank.fmt) + 1) + TIME_DIGITS
        self._last_ps = 0
        self._x_answer = x_answer(bank.fmt)
        self._digest = hashlib.blake2b(digest_size=16)
        self._coverage = Coverage()
        # Both ends of both FIFOs open here, read-write and non-blocking: no open waits for the shell,
        # and a shell that goes away is never an EOF to wait out; the run's end is stop().
        self._query = os.open(channel.folder / "query", os.O_RDWR | os.O_NONBLOCK)
        self._answer = os.open(channel.folder / "answer", os.O_RDWR | os.O_NONBLOCK)

    def run(self) -> None:
        bank = self.bank.start()
        pending = b""
        try:
            while not self._stop_serving.is_set():
                ready, _, _ = select.select([self._query], [], [], POLL_S)
                try:
                    pending += os.read(self._query, CHUNK) if ready else b""
                except BlockingIOError:
                    continue
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    self._serve(line, bank.answers)
                if len(pending) > self._longest:
                    self._violate("something that is not a vector of the design's inputs (a line longer than a query)")
                    pending = b""
        except GraderSideError as problem:
            self.error = str(problem)
        except Exception as problem:  # noqa: BLE001 - the grader's own failure: the run is the grader's error, not a hang
            self.error = f"the server stopped: {type(problem).__name__}: {problem}"
        finally:
            bank.close()
            self.transcript.digest = self._digest.hexdigest()
            self.transcript.coverage = Counter(self._coverage.hits)

    def _serve(self, line: bytes, answers: Callable[[Query], dict[str, tuple[str, str]]]) -> None:
        try:
            query = read_query(line, self.bank.fmt, self._last_ps)
        except Malformed as problem:
            self._violate(f"something that is not a vector of the design's inputs ({problem})")
            return
        self._last_ps = query.time_ps
        t = self.transcript
        t.queries += 1
        t.record(query)
        if query.values is None:  # the contract says nothing of X and Z inputs: the grader answers, no design
            served = self._x_answer
        else:
            found = answers(query)
            served, correct = found[self.served], found[self.against]
            self._count_known(query)
            if served != correct:
                if t.exposed_at is None:
                    t.exposed_at = t.queries - 1
                t.differs |= {name for name, a, b in zip(SHELL_OUTPUTS, served, correct, strict=True) if a != b}
        self._digest.update(f"{' '.join(query.vector)} {served[0]} {served[1]}\n".encode())
        try:
            os.write(self._answer, f"{served[0]} {served[1]}\n".encode())
        except BlockingIOError:
            self._violate("answers that were never read")

    def _count_known(self, query: Query) -> None:
        """Count a vector of known inputs and sample its coverage (on every run: the work is the same for every design)."""
        assert query.values is not None
        t = self.transcript
        t.known += 1
        if t.first is None:
            t.first = query.vector
        elif query.vector != t.first:
            t.toggled = True
        peak, bw, ai = query.values
        self._coverage.sample_rates(self.bank.fmt, peak, (bw,), (ai,))

    def _violate(self, what: str) -> None:
        if not self.transcript.violation:
            self.transcript.violation = f"the grader's port channel received {what}"

    def stop(self) -> Transcript:
        """End the run's service (its sandbox is gone) and return the transcript."""
        self._stop_serving.set()
        self.join()
        os.close(self._query)
        os.close(self._answer)
        return self.transcript
