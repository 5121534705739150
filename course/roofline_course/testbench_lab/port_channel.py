"""The grader's end of the port channel: answers the shell's queries from the bank and keeps the transcript.

One server serves one run of a student's testbench: it reads each line the shell writes to the
`query` FIFO (the design's inputs, as %h prints them), asks the bank for every design's outputs,
writes back the served design's, and records what the run did to the design: how many vectors,
whether the inputs ever changed, the first vector on which the served design's outputs differed
from the correct design's (the run *exposed* the bug), a digest of the whole sequence, and the
functional coverage of the vectors. The transcript is recorded here, outside the sandbox, so the
testbench cannot change it; the testbench's own verdict is only its claim.

Anything on the channel that is not a vector of the right width (the testbench writing to the
FIFO itself) is a violation: recorded, dropped, and the run counts for nothing.
"""

from __future__ import annotations

import hashlib
import os
import re
import select
import shutil
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from roofline_bench.coverage import Coverage
from roofline_course.testbench_lab.design_bank import DesignBank
from roofline_course.testbench_lab.port_shell import SHELL_OUTPUTS, GraderSideError, digits

POLL_S = 0.05
CHUNK = 1 << 16


@dataclass
class Transcript:
    """What one run did to the design, as the grader saw it."""

    queries: int = 0
    known: int = 0  # vectors with no X or Z input
    first: tuple[str, str, str] | None = None  # the first known vector
    toggled: bool = False  # a known vector other than the first was applied
    exposed_at: int | None = None  # the first query whose answer differs from the correct design's
    differs: set[str] = field(default_factory=set)  # the outputs that differed, on any query
    digest: str = ""  # of every query, in order
    violation: str = ""
    coverage: Counter[str] = field(default_factory=Counter)

    @property
    def exposed(self) -> bool:
        return self.exposed_at is not None


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

    def __init__(self, channel: Channel, bank: DesignBank, served: str, against: str, sample_coverage: bool) -> None:
        super().__init__(daemon=True)
        self.channel, self.bank, self.served, self.against = channel, bank, served, against
        self.sample_coverage = sample_coverage
        self.transcript = Transcript()
        self.error = ""  # the grader's own failure (the bank), never the testbench's
        self._stop_serving = threading.Event()
        width = digits(bank.fmt)
        self._vector = re.compile(rb"([0-9a-fA-FxXzZ]{%d}) ([0-9a-fA-FxXzZ]{%d}) ([0-9a-fA-FxXzZ]{%d})" % (width, width, width))
        self._longest = 3 * width + 2
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
                    self._violate("a line longer than a vector")
                    pending = b""
        except GraderSideError as problem:
            self.error = str(problem)
        except Exception as problem:  # noqa: BLE001 - the grader's own failure: the run is the grader's error, not a hang
            self.error = f"the server stopped: {type(problem).__name__}: {problem}"
        finally:
            bank.close()
            self.transcript.digest = self._digest.hexdigest()
            self.transcript.coverage = Counter(self._coverage.hits)

    def _serve(self, line: bytes, answers: Callable[[tuple[str, str, str]], dict[str, tuple[str, str]]]) -> None:
        match = self._vector.fullmatch(line)
        if not match:
            self._violate("something that is not a vector of the design's inputs")
            return
        vector = tuple(part.decode() for part in match.groups())
        t = self.transcript
        t.queries += 1
        self._digest.update(line + b"\n")
        found = answers(vector)
        served, correct = found[self.served], found[self.against]
        # The contract says nothing of X and Z inputs: only a vector of known inputs can expose a bug.
        if self._record(vector) and served != correct:
            if t.exposed_at is None:
                t.exposed_at = t.queries - 1
            t.differs |= {name for name, a, b in zip(SHELL_OUTPUTS, served, correct, strict=True) if a != b}
        try:
            os.write(self._answer, f"{served[0]} {served[1]}\n".encode())
        except BlockingIOError:
            self._violate("answers that were never read")

    def _record(self, vector: tuple[str, str, str]) -> bool:
        """Count a vector of known inputs (returns whether it is one) and sample its coverage."""
        try:
            peak, bw, ai = (int(value, 16) for value in vector)
        except ValueError:
            return False
        t = self.transcript
        t.known += 1
        if t.first is None:
            t.first = vector
        elif vector != t.first:
            t.toggled = True
        if self.sample_coverage:
            self._coverage.sample_rates(self.bank.fmt, peak, (bw,), (ai,))
        return True

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
