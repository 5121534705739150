"""How long a step is waited on, on a clock of the test's own, so that each limit is shown at its time,
to the tick, whatever the machine's load.

_wait, a step on its own: it ends by itself, or at its time limit, or (with a stall limit) once its
result pipe, having begun, falls silent for longer than the stall limit.

_Conversation.wait, a step that converses with its grader (lab 6's relay): until the step ends, its
time limit passes, or the conversation stops it:
- a conversation that stops the step as "stalled" times it out as stalled, at once;
- one that stops it for another reason ("void", "error") stops it at once, not as timed out;
- one that is over ("") leaves the step to end by itself or at its limit;
- a step still running at its time limit is timed out then, not a poll earlier or a second later.

And a grader's own failure inside the conversation is raised again in the grader, not lost."""

from __future__ import annotations

import importlib
import os
import subprocess
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from roofline_course.sandbox.run import STALL_POLL_S, Heard, _Conversation, _wait

run_module = importlib.import_module("roofline_course.sandbox.run")  # the package's `run` is the function


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class Step:
    """A step that ends by itself at `ends` on the clock (None: never), as Popen.wait shows it."""

    def __init__(self, clock: Clock, ends: float | None) -> None:
        self.clock, self.ends, self.waits = clock, ends, 0

    def wait(self, timeout: float) -> int:
        self.waits += 1
        assert self.waits < 1000, "waited on without end"
        if self.ends is not None and self.clock.now + timeout >= self.ends:
            self.clock.now = max(self.clock.now, self.ends)
            return 0
        self.clock.now += timeout
        raise subprocess.TimeoutExpired("step", timeout)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    ticking = Clock()
    monkeypatch.setattr(run_module, "time", SimpleNamespace(monotonic=ticking.monotonic))
    return ticking


@pytest.fixture
def pipes() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield write_end, read_end
    for fd in (read_end, write_end):
        try:
            os.close(fd)
        except OSError:
            pass  # closed by the conversation


def conversation(how: str | None, pipes: tuple[int, int]) -> _Conversation:
    """A conversation already over with `how`, or (None) one still going."""
    talk = _Conversation(lambda commands, answers: how or "", *pipes)
    if how is not None:
        talk.run()  # in this thread: over before the wait begins
    return talk


@pytest.mark.parametrize(("how", "verdict"), [("stalled", (True, True)), ("void", (False, False)),
                                               ("error", (False, False))])
def test_a_conversation_that_stops_the_step_stops_it_at_once(clock: Clock, pipes: tuple[int, int], how: str,
                                                              verdict: tuple[bool, bool]) -> None:
    step = Step(clock, ends=None)
    assert conversation(how, pipes).wait(step, deadline=10.0) == verdict
    assert (clock.now, step.waits) == (0.0, 0)


def test_a_conversation_that_is_over_leaves_the_step_to_end_by_itself(clock: Clock, pipes: tuple[int, int]) -> None:
    step = Step(clock, ends=0.55)
    assert conversation("", pipes).wait(step, deadline=10.0) == (False, False)
    assert clock.now == 0.55


@pytest.mark.parametrize("how", ["", None])
def test_a_step_still_running_at_its_limit_is_timed_out_then(clock: Clock, pipes: tuple[int, int],
                                                             how: str | None) -> None:
    step = Step(clock, ends=5.0)
    assert conversation(how, pipes).wait(step, deadline=1.0) == (True, False)
    assert 1.0 <= clock.now < 1.0 + 1.5 * STALL_POLL_S


@pytest.mark.parametrize("ends", [0.95, 1.0])
def test_a_step_that_ends_by_its_limit_is_not_timed_out(clock: Clock, pipes: tuple[int, int], ends: float) -> None:
    step = Step(clock, ends=ends)
    assert conversation(None, pipes).wait(step, deadline=1.0) == (False, False)
    assert clock.now == ends


def test_a_failure_of_the_graders_own_in_the_conversation_is_raised_in_the_grader(pipes: tuple[int, int]) -> None:
    def converse(commands: int, answers: int) -> str:
        raise LookupError("the grader's own bug")

    talk = _Conversation(converse, *pipes)
    talk.start()
    assert talk.ended.wait(10) and talk.how == "error"
    with pytest.raises(LookupError, match="the grader's own bug"):
        talk.close()
    assert not any(thread is talk for thread in threading.enumerate())


# ---------------------------------------------------------------- a step on its own


@pytest.mark.parametrize(("ends", "verdict", "at"), [(0.3, (False, False), 0.3), (0.5, (False, False), 0.5),
                                                     (5.0, (True, False), 0.5)])
def test_a_step_ends_by_itself_or_at_its_limit(clock: Clock, ends: float, verdict: tuple[bool, bool],
                                                at: float) -> None:
    assert _wait(Step(clock, ends), 0.5, Heard(), None) == verdict
    assert clock.now == at


def test_a_reply_that_falls_silent_is_stalled_at_the_first_poll_past_the_stall_limit(clock: Clock) -> None:
    heard = Heard(last=0.0)  # its first bytes came at once, then nothing
    assert _wait(Step(clock, ends=None), 20.0, heard, 0.6) == (True, True)
    assert 0.6 < clock.now <= 0.6 + STALL_POLL_S + 1e-9


@pytest.mark.parametrize("ends", [1.0, None])
def test_a_reply_not_yet_begun_is_bound_by_the_time_limit_only(clock: Clock, ends: float | None) -> None:
    assert _wait(Step(clock, ends), 2.0, Heard(), 0.6) == ((False, False) if ends else (True, False))
    assert clock.now == pytest.approx(ends or 2.0)
