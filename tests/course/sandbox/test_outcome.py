"""A step's outcome read from its exit status alike in every isolation: a signal that ended it is a
crash (a limit, a segmentation fault), whether the step's own status says so (negative, as Python
gives it) or bubblewrap's does (128 + the signal: bubblewrap is the step's parent); an exit, of any
status, is none, and a step stopped at its time limit has no status. tests/course/sandbox/test_run.py
shows bubblewrap's status for a killed step. A stream of the step's is kept up to its cap, whichever read
of the pipe brings the byte at the cap."""

from __future__ import annotations

import pytest

from roofline_course.sandbox.run import Outcome, _drain, killed_by


@pytest.mark.parametrize(("code", "isolation", "signal"), [
    (-9, "uid", 9), (-11, "bwrap", 11), (-9, "unsafe", 9), (-1, "uid", 1), (-1, "bwrap", 1),
    (137, "bwrap", 9), (139, "bwrap", 11), (129, "bwrap", 1), (192, "bwrap", 64),
    (128, "bwrap", 0), (193, "bwrap", 0), (255, "bwrap", 0),  # beyond the signals: an exit status
    (137, "uid", 0), (139, "unsafe", 0),  # setpriv execs the step: 137 there is the step's own exit
    (0, "bwrap", 0), (1, "uid", 0), (None, "bwrap", 0),
])
def test_the_signal_that_ended_a_step_is_read_as_its_isolation_reports_it(code: int | None, isolation: str,
                                                                         signal: int) -> None:
    assert killed_by(code, isolation) == signal


@pytest.mark.parametrize(("code", "signal", "crashed"), [
    (-9, 9, True), (-1, 1, True), (137, 9, True), (129, 1, True), (0, 0, False), (1, 0, False), (137, 0, False),
    (None, 0, False),
    (-9, 0, True), (-1, 0, True),  # an outcome made without killed_by (as a test's): its negative status alone
])
def test_a_crash_is_a_step_a_signal_ended(code: int | None, signal: int, crashed: bool) -> None:
    assert Outcome(code, "", "", b"", 1.0, code is None, killed_by=signal).crashed is crashed


class Pipe:
    """A pipe's reads as the step's writes arrive: one chunk per read, then the end."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = list(chunks)

    def read1(self, size: int) -> bytes:
        return self.chunks.pop(0)[:size] if self.chunks else b""


@pytest.mark.parametrize(("chunks", "kept", "truncated"), [
    ((b"a" * 40, b"b" * 60), b"a" * 40 + b"b" * 60, False),            # exactly the cap, in two reads
    ((b"a" * 40, b"b" * 61), b"a" * 40 + b"b" * 60, True),             # one byte past it, cut in the second read
    ((b"a" * 40, b"b" * 30, b"c" * 50), b"a" * 40 + b"b" * 30 + b"c" * 30, True),  # cut in the third
    ((b"a" * 100, b"b"), b"a" * 100, True),                            # the cap reached, then more comes
    ((b"a" * 99,), b"a" * 99, False),
])
def test_a_stream_keeps_its_first_cap_bytes_however_they_arrive(chunks: tuple[bytes, ...], kept: bytes,
                                                                   truncated: bool) -> None:
    """What is kept of a stream is its first 100 bytes (the cap here), whichever read brings them."""
    sink: list[bytes] = []
    cut = [False]
    _drain(Pipe(*chunks), 100, sink, cut)
    assert (b"".join(sink), cut) == (kept, [truncated])
