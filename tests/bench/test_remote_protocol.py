"""The grader's side of the puppet protocol (roofline_bench.remote), rule by rule, with no simulator.

A Channel is driven over real os.pipe() pairs whose far end is the test itself: it writes the
sandbox's answers (ahead of time, or late from a timer thread) and reads back, byte for byte, the
commands the grader sent. Each rule is pinned on both sides of its boundary: a line of exactly
MAX_LINE bytes and one byte more, a value exactly as wide as its port and one bit wider, every
character a simulator prints for a bit and one it does not, a field too many or missing, an answer
out of turn or unasked, a line that is not JSON or not an object, the job's note that ends the
answers, the stall and the deadline, X/Z values where a bench reads them, and answers that stop
mid-line. Expected values are written out here (or come from the protocol's documented limits).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from roofline_bench import remote
from roofline_bench.ports import PortError, Unresolved
from roofline_bench.remote import Channel, ChannelClosed, ProtocolError, RemotePorts, Stalled, _value, drive
from roofline_bench.run import BenchTest, Run
from roofline_bench.tape import MAX_LINE, MAX_WIDTH, Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import DEFAULT_SET
from roofline_core.scoreboard import Field

# ---------------------------------------------------------------------------------- the far end


@dataclass
class Sandbox:
    """The sandbox's end of a Channel: it writes answers and reads what the grader sent."""

    channel: Channel
    answers: int  # the write end of the answers pipe
    commands: int  # the read end of the commands pipe
    fds: list[int] = field(default_factory=list)  # every descriptor still open

    def say(self, *lines: Any) -> None:
        """Each line as the sandbox would write it: bytes as they are, anything else as one JSON line."""
        for line in lines:
            data = line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n"
            while data:
                data = data[os.write(self.answers, data):]

    def hang_up(self) -> None:
        """The sandbox ends: its answers pipe closes."""
        self.close(self.answers)

    def deaf(self) -> None:
        """The sandbox stops reading commands (it is gone): the next write is a broken pipe."""
        self.close(self.commands)

    def close(self, fd: int) -> None:
        if fd in self.fds:
            self.fds.remove(fd)
            os.close(fd)

    def sent(self) -> list[bytes]:
        """Every command line the grader sent since the last call, newline included."""
        data = b""
        while True:
            try:
                chunk = os.read(self.commands, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        return data.splitlines(keepends=True)


@contextmanager
def sandbox(deadline_s: float = 1.0, stall_s: float | None = None) -> Iterator[Sandbox]:
    commands_read, commands_write = os.pipe()
    answers_read, answers_write = os.pipe()
    os.set_blocking(commands_read, False)
    channel = Channel(commands_write, answers_read, time.monotonic() + deadline_s, stall_s=stall_s)
    far = Sandbox(channel, answers_write, commands_read, [commands_read, commands_write, answers_read, answers_write])
    try:
        yield far
    finally:
        for fd in list(far.fds):
            far.close(fd)


@contextmanager
def later(seconds: float, far: Sandbox, line: Any) -> Iterator[None]:
    """`line` written by the sandbox `seconds` from now (unless the test is over by then)."""
    timer = threading.Timer(seconds, far.say, (line,))
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()


def unread(fd: int) -> int:
    """Bytes waiting in a pipe, not yet read from its read end."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


@contextmanager
def in_two_parts(far: Sandbox, first: bytes, rest: bytes) -> Iterator[None]:
    """`first` written, and `rest` only once the grader has read all of it: so the grader holds
    exactly `first`, with no newline, before the rest of the line comes."""
    def write() -> None:
        far.say(first)
        while unread(far.channel.answers):
            time.sleep(0.001)
        far.say(rest)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield
    finally:
        writer.join(timeout=5)


def line(document: Any) -> bytes:
    return json.dumps(document).encode() + b"\n"


# ---------------------------------------------------------------------------------- questions and answers


def test_a_question_goes_out_with_what_was_pending_as_one_json_line_and_its_answer_comes_back() -> None:
    with sandbox() as far:
        far.channel.post({"w": ["peak_i", 3]})
        far.say({"n": 0, "v": [5]})
        assert far.channel.ask({"r": ["cap_o"]}, ("v",)) == {"n": 0, "v": [5]}
        assert far.sent() == [b'[{"w":["peak_i",3]},{"r":["cap_o"]}]\n']
        assert far.channel.asked == 1 and far.channel.begun and not far.channel.closed


def test_a_fresh_channel_has_asked_nothing_and_has_not_begun() -> None:
    channel = Channel(10, 11, 0.0)
    assert (channel.asked, channel.begun, channel.closed, channel.stalled) == (0, False, False, False)
    assert (channel.pending, channel.buffer, channel.notes) == ([], b"", [])


def test_answers_are_taken_in_turn_even_when_they_arrive_together() -> None:
    with sandbox() as far:
        far.say(b'{"n": 0, "v": [1]}\n{"n": 1, "v": [2]}\n{"n": 2, "ended": "t"}\n')
        assert far.channel.ask({"r": ["a"]}, ("v",))["v"] == [1]
        assert far.channel.ask({"r": ["b"]}, ("v",))["v"] == [2]
        assert far.channel.ask({"end": "t"}, ("ended",)) == {"n": 2, "ended": "t"}
        assert far.channel.asked == 3
        assert far.sent() == [b'[{"r":["a"]}]\n', b'[{"r":["b"]}]\n', b'[{"end":"t"}]\n']


@pytest.mark.parametrize("answer", [
    {"n": 1, "v": [0]},  # out of turn: the next one's
    {"n": -1, "v": [0]},  # out of turn: before the first
    {"n": "0", "v": [0]},  # a turn that is not a number
    {"n": False, "v": [0]},  # a turn that is a truth value (False == 0 in Python)
    {"n": 0.0, "v": [0]},  # a turn that is not an integer
    {"n": 0, "v": [0], "cheat": 1},  # a field too many
    {"n": 0},  # a field missing
    {"v": [0]},  # its turn missing
    {"n": 0, "ended": "t"},  # another question's field
    ["n", "v"],  # JSON, not an object (though it holds the right names)
    "nv",
    7,
    None,
], ids=["ahead", "behind", "turn-as-text", "turn-as-false", "turn-as-float",
        "field-too-many", "field-missing", "no-turn", "other-field",
        "list", "string", "number", "null"])
def test_an_answer_that_is_not_exactly_the_one_asked_for_is_a_protocol_error(answer: Any) -> None:
    with sandbox() as far:
        far.say(answer)
        with pytest.raises(ProtocolError, match="^answer 0 was not what was asked: "):
            far.channel.ask({"r": ["cap_o"]}, ("v",))
        assert far.channel.asked == 0


def test_the_second_answer_must_carry_turn_one() -> None:
    with sandbox() as far:
        far.say({"n": 0, "v": [1]}, {"n": 0, "v": [2]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(ProtocolError, match="^answer 1 was not what was asked: "):
            far.channel.ask({"r": ["a"]}, ("v",))


def test_a_wrong_answer_is_quoted_in_the_error_cut_to_eighty_characters() -> None:
    with sandbox() as far:
        far.say({"n": 5, "pad": "b" * 100})
        with pytest.raises(ProtocolError) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
    assert str(raised.value) == "answer 0 was not what was asked: {'n': 5, 'pad': '" + "b" * 63


# ---------------------------------------------------------------------------------- lines: JSON, length, and cut short


@pytest.mark.parametrize("data", [b"{not json\n", b"\n", b"[" * 25000 + b"]" * 25000 + b"\n"],
                         ids=["not-json", "empty-line", "nested-too-deep"])
def test_a_line_that_is_not_json_is_a_protocol_error(data: bytes) -> None:
    with sandbox() as far:
        far.say(data)
        with pytest.raises(ProtocolError, match="^an answer that is not JSON$"):
            far.channel.ask({"r": ["a"]}, ("v",))


def padded(size: int) -> bytes:
    """A correct answer to a first question, padded with JSON's own spaces to `size` bytes, no newline."""
    head, tail = b'{"n":0,"v":[0]', b"}"
    return head + b" " * (size - len(head) - len(tail)) + tail


def test_a_line_of_exactly_max_line_bytes_is_an_answer() -> None:
    assert MAX_LINE == 1 << 20 and len(padded(MAX_LINE)) == MAX_LINE
    with sandbox(deadline_s=5.0) as far, in_two_parts(far, padded(MAX_LINE), b"\n"):
        assert far.channel.ask({"r": ["a"]}, ("v",)) == {"n": 0, "v": [0]}


def test_a_line_of_max_line_and_one_bytes_is_a_protocol_error() -> None:
    with sandbox(deadline_s=5.0) as far, in_two_parts(far, padded(MAX_LINE + 1), b"\n"):
        with pytest.raises(ProtocolError, match="^an answer longer than any answer can be$"):
            far.channel.ask({"r": ["a"]}, ("v",))


def test_a_line_longer_than_max_line_by_more_than_one_read_is_a_protocol_error_however_it_arrives() -> None:
    with sandbox(deadline_s=5.0) as far:
        with contextlib.suppress(OSError):  # a pipe as large as an answer may be (Linux), so it comes in large reads
            fcntl.fcntl(far.answers, fcntl.F_SETPIPE_SZ, MAX_LINE)
        with in_two_parts(far, padded(MAX_LINE + 70_000)[:MAX_LINE], padded(MAX_LINE + 70_000)[MAX_LINE:] + b"\n"):
            with pytest.raises(ProtocolError, match="^an answer longer than any answer can be$"):
                far.channel.ask({"r": ["a"]}, ("v",))


def test_a_line_longer_than_max_line_in_one_write_with_its_newline_is_a_protocol_error() -> None:
    with sandbox(deadline_s=5.0) as far:
        with contextlib.suppress(OSError):
            fcntl.fcntl(far.answers, fcntl.F_SETPIPE_SZ, 1 << 20)
        writer = threading.Thread(target=far.say, args=(padded(MAX_LINE + 100) + b"\n",), daemon=True)
        writer.start()
        with pytest.raises(ProtocolError, match="^an answer longer than any answer can be$"):
            far.channel.ask({"r": ["a"]}, ("v",))
        writer.join(timeout=5)


def test_answers_that_end_in_the_middle_of_a_line_are_a_protocol_error() -> None:
    with sandbox() as far:
        far.say(b'{"n": 0, "v"')
        far.hang_up()
        with pytest.raises(ProtocolError, match="^the answers end in the middle of a line$"):
            far.channel.ask({"r": ["a"]}, ("v",))


def test_a_fragment_followed_by_silence_is_a_protocol_error_not_a_stall() -> None:
    with sandbox(deadline_s=0.1, stall_s=0.05) as far:
        far.say(b'{"n": 0, "v": [1]}\n{"n": 1')
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(ProtocolError, match="^an answer cut short$"):
            far.channel.ask({"r": ["a"]}, ("v",))


def test_answers_that_end_between_lines_close_the_channel_without_a_stall() -> None:
    with sandbox() as far:
        far.hang_up()
        with pytest.raises(ChannelClosed) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and (raised.value.cycles, raised.value.values) == (0, 0)
        assert far.channel.closed and not far.channel.stalled
        with pytest.raises(ChannelClosed) as again:  # nothing more is sent
            far.channel.flush()
        assert type(again.value) is ChannelClosed
        assert far.sent() == [b'[{"r":["a"]}]\n']


def test_a_sandbox_that_stopped_reading_commands_closes_the_channel() -> None:
    with sandbox() as far:
        far.deaf()
        far.channel.post({"fall": 1})
        with pytest.raises(ChannelClosed) as raised:
            far.channel.flush()
        assert type(raised.value) is ChannelClosed and far.channel.closed and not far.channel.stalled
        assert far.channel.pending == []


def test_a_sandbox_that_stops_reading_commands_without_closing_them_cannot_hold_the_grader() -> None:
    """Its commands pipe fills: the write waits only until the deadline, as an answer would."""
    with sandbox(deadline_s=0.5) as far:
        started = time.monotonic()
        far.channel.post({"w": "a" * (1 << 20)})  # far more than any pipe holds
        with pytest.raises(ChannelClosed):
            far.channel.flush()
        assert far.channel.closed and time.monotonic() - started < 30  # not forever (the limit is far above 0.5 s)


# ---------------------------------------------------------------------------------- the job's notes


def test_the_jobs_note_where_an_answer_was_due_ends_the_answers_and_is_kept() -> None:
    with sandbox() as far:
        far.say({"n": 0, "v": [1]}, {"job": "the simulator stopped with status 3"})
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(ChannelClosed) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and far.channel.closed and not far.channel.stalled
        assert far.channel.notes == ["the simulator stopped with status 3"]


def test_every_note_after_the_first_is_kept_in_order_and_blank_lines_between_them_are_nothing() -> None:
    with sandbox() as far:
        far.say(b'{"job": "one"}\n\n   \n{"job": "two"}\n{"job": "three"}\n\n')
        with pytest.raises(ChannelClosed):
            far.channel.ask({"r": ["a"]}, ("v",))
        assert far.channel.notes == ["one", "two", "three"] and far.channel.buffer == b""


def test_many_notes_written_together_are_all_kept() -> None:
    with sandbox() as far:
        far.say(*({"job": f"{number:02} " + "n" * 1997} for number in range(20)))  # 40 kB, all there at once
        with pytest.raises(ChannelClosed):
            far.channel.ask({"r": ["a"]}, ("v",))
        assert far.channel.notes == [f"{number:02} " + "n" * 1997 for number in range(20)]


def test_a_note_is_kept_to_two_thousand_characters() -> None:
    with sandbox() as far:
        far.say({"job": "a" * 2500}, {"job": "b" * 2001}, {"job": "c" * 2000})
        with pytest.raises(ChannelClosed):
            far.channel.ask({"r": ["a"]}, ("v",))
        assert far.channel.notes == ["a" * 2000, "b" * 2000, "c" * 2000]


@pytest.mark.parametrize("document", [{"job": 5}, {"job": "x", "n": 0}, {"job": ["x"]}],
                         ids=["not-text", "with-a-turn", "a-list"])
def test_a_line_that_is_almost_a_note_is_an_answer_and_a_wrong_one(document: dict[str, Any]) -> None:
    with sandbox() as far:
        far.say(document)
        with pytest.raises(ProtocolError, match="^answer 0 was not what was asked"):
            far.channel.ask({"r": ["a"]}, ("v",))
        assert far.channel.notes == []


@pytest.mark.parametrize(("after", "problem"), [
    (line({"n": 1, "v": [0]}), "an answer after the simulation ended"),
    (line({"job": 1}), "an answer after the simulation ended"),
    (line({"job": "x", "n": 1}), "an answer after the simulation ended"),
    (line(["job"]), "an answer after the simulation ended"),
    (b"{not json\n", "a line after the job's note that is not JSON"),
    (b"[" * 25000 + b"]" * 25000 + b"\n", "a line after the job's note that is not JSON"),
], ids=["an-answer", "a-note-of-a-number", "a-note-with-a-turn", "a-list", "not-json", "nested-too-deep"])
def test_anything_but_a_note_after_the_jobs_note_is_a_protocol_error(after: bytes, problem: str) -> None:
    with sandbox() as far:
        far.say(line({"job": "done"}) + after)
        with pytest.raises(ProtocolError) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert str(raised.value) == problem


# ---------------------------------------------------------------------------------- the end: done, and nothing more


def test_after_the_last_test_the_sandbox_is_told_done_and_may_only_close() -> None:
    with sandbox() as far:
        far.hang_up()
        assert far.channel.finish() is None
        assert far.sent() == [b'[{"done":1}]\n']


def test_after_the_last_test_notes_are_kept_and_the_channel_closes() -> None:
    with sandbox() as far:
        far.say({"job": "exit 0"})
        far.channel.finish()
        assert far.channel.notes == ["exit 0"] and far.channel.closed


def test_an_answer_nobody_asked_for_after_the_last_test_is_a_protocol_error_quoting_eighty_characters() -> None:
    with sandbox() as far:
        far.say({"n": 1, "v": ["a" * 100]})
        with pytest.raises(ProtocolError) as raised:
            far.channel.finish()
    assert str(raised.value) == "an answer nobody asked for: {'n': 1, 'v': ['" + "a" * 64


# ---------------------------------------------------------------------------------- time: the deadline and the stall


def test_before_the_first_answer_only_the_deadline_bounds_the_wait() -> None:
    with sandbox(deadline_s=3.0, stall_s=0.05) as far, later(0.3, far, {"n": 0, "v": [4]}):
        assert far.channel.ask({"r": ["a"]}, ("v",))["v"] == [4]


def test_an_answer_within_the_stall_limit_is_taken() -> None:
    with sandbox(deadline_s=3.0, stall_s=1.0) as far:
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with later(0.1, far, {"n": 1, "v": [2]}):
            assert far.channel.ask({"r": ["a"]}, ("v",))["v"] == [2]


def test_silence_past_the_stall_limit_once_the_simulation_has_begun_is_a_stall() -> None:
    with sandbox(deadline_s=3.0, stall_s=0.1) as far:
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with later(0.8, far, {"n": 1, "v": [2]}):
            started = time.monotonic()
            with pytest.raises(Stalled) as raised:
                far.channel.ask({"r": ["a"]}, ("v",))
            assert time.monotonic() - started < 0.7
        assert (raised.value.cycles, raised.value.values) == (0, 0)
        assert far.channel.stalled and far.channel.closed
        with pytest.raises(Stalled):  # once stalled, every later use says so
            far.channel.flush()


def test_the_deadline_bounds_the_stall_and_reaching_it_is_no_stall() -> None:
    with sandbox(deadline_s=0.15, stall_s=5.0) as far:
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with later(0.8, far, {"n": 1, "v": [2]}):
            with pytest.raises(ChannelClosed) as raised:
                far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and not far.channel.stalled


def test_with_no_stall_limit_a_begun_simulation_is_waited_for_until_the_deadline() -> None:
    with sandbox(deadline_s=0.1, stall_s=None) as far:
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(ChannelClosed) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and not far.channel.stalled


def test_past_the_deadline_what_is_already_there_is_read_and_nothing_more_is_waited_for() -> None:
    with sandbox(deadline_s=-1.0, stall_s=0.5) as far:
        far.say({"n": 0, "v": [1]})
        assert far.channel.ask({"r": ["a"]}, ("v",))["v"] == [1]
        with later(0.3, far, {"n": 1, "v": [2]}):
            with pytest.raises(ChannelClosed) as raised:
                far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and not far.channel.stalled


def frozen_clock(monkeypatch: pytest.MonkeyPatch, now: float) -> None:
    """The channel's clock stands still at `now` (select still waits in real time)."""
    monkeypatch.setattr(remote, "time", SimpleNamespace(monotonic=lambda: now))


def test_silence_before_the_first_answer_is_never_a_stall_even_before_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen_clock(monkeypatch, 100.0)
    with sandbox() as far:
        far.channel.deadline, far.channel.stall_s = 100.05, 0.01
        with pytest.raises(ChannelClosed) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and not far.channel.stalled


def test_silence_at_exactly_the_deadline_is_no_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen_clock(monkeypatch, 100.0)
    with sandbox() as far:
        far.channel.deadline, far.channel.stall_s = 100.0, 0.05
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(ChannelClosed) as raised:
            far.channel.ask({"r": ["a"]}, ("v",))
        assert type(raised.value) is ChannelClosed and not far.channel.stalled


def test_silence_just_before_the_deadline_after_an_answer_is_a_stall(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen_clock(monkeypatch, 100.0)
    with sandbox() as far:
        far.channel.deadline, far.channel.stall_s = 100.5, 0.02
        far.say({"n": 0, "v": [1]})
        far.channel.ask({"r": ["a"]}, ("v",))
        with pytest.raises(Stalled):
            far.channel.ask({"r": ["a"]}, ("v",))


# ---------------------------------------------------------------------------------- a value, held to its port's width

# what a 4-state or a 9-state (std_logic: U X 0 1 Z W L H -) simulator prints for one bit, either case
BITS_PRINTED = "01xzXZuUwWlLhH-"


@pytest.mark.parametrize(("raw", "width", "expected"), [
    (0, 4, 0), (15, 4, 15), (9, 4, 9), (1, 1, 1), (0, 1, 0),
    (["x", "xxxx"], 4, ("x", "xxxx")), (["x", "01x1"], 4, ("x", "01x1")), (["x", "z"], 1, ("x", "z")),
    (["x", "0000000z"], 8, ("x", "0000000z")),
])
def test_a_value_a_port_can_hold_is_taken_as_it_is(raw: Any, width: int, expected: Any) -> None:
    assert _value(raw, width) == expected


@pytest.mark.parametrize(("raw", "width"), [
    (16, 4), (1 << 5, 4), (2, 1), (-1, 4), (True, 4), (False, 4), (3.0, 4), ("3", 4), (None, 4),  # numbers
    (["x", "xxx"], 4), (["x", "xxxxx"], 4), (["x", "0110"], 4), (["x", "0000"], 4), (["x", "1111"], 4),  # X widths, no X
    (["x", "xxx2"], 4), (["x", "?xxx"], 4), (["y", "xxxx"], 4), (["X", "xxxx"], 4), (["x", "xxxx", 0], 4),
    (["x"], 4), ([], 4), (["x", 5], 4), (["x", ["x", "x", "x", "x"]], 4), ("xxxx", 4), ({"x": "xxxx"}, 4),
    (["x", "1"], 1), (["x", "zz"], 1),
])
def test_a_value_a_port_cannot_hold_is_a_protocol_error(raw: Any, width: int) -> None:
    with pytest.raises(ProtocolError, match=f"^a value a {width}-bit port cannot hold: "):
        _value(raw, width)


@pytest.mark.parametrize("bit", list(BITS_PRINTED))
def test_every_character_a_simulator_prints_for_a_bit_is_taken_beside_an_x(bit: str) -> None:
    assert _value(["x", "x" + bit * 3], 4) == ("x", "x" + bit * 3)
    assert _value(["x", bit + "z"], 2) == ("x", bit + "z")


def test_a_value_holding_every_such_character_at_once_is_taken() -> None:
    assert _value(["x", BITS_PRINTED], 15) == ("x", "01xzXZuUwWlLhH-")


@pytest.mark.parametrize("bit", ["2", "a", " ", "?", "\u00d7"])
def test_a_character_no_simulator_prints_for_a_bit_is_a_protocol_error(bit: str) -> None:
    with pytest.raises(ProtocolError):
        _value(["x", "xx" + bit + "x"], 4)


def test_a_refused_value_is_quoted_in_the_error_cut_to_forty_characters() -> None:
    with pytest.raises(ProtocolError) as raised:
        _value(1 << 200, 4)
    assert str(raised.value) == "a value a 4-bit port cannot hold: 1606938044258990275541962092341162602522"


# ---------------------------------------------------------------------------------- the ports, through the channel

WIDTHS: dict[str, int | None] = {"clk_i": 1, "peak_i": 8, "cap_o": 8, "mem_bound_o": 1, "done_o": 1, "busy_o": 1,
                                 "start_i": 1, "ops_i": 8, "absent_o": None}


@contextmanager
def remote_ports(outputs: tuple[str, ...] = ("cap_o", "mem_bound_o", "absent_o"),
                 widths: dict[str, int | None] | None = None) -> Iterator[tuple[Sandbox, RemotePorts]]:
    with sandbox() as far:
        yield far, RemotePorts(far.channel, Tape("t", dict(WIDTHS if widths is None else widths)), outputs)


def test_one_question_asks_for_every_output_the_design_has_and_later_reads_cost_nothing() -> None:
    with remote_ports() as (far, ports):
        assert ports.outputs == ("cap_o", "mem_bound_o")
        far.say({"n": 0, "v": [200, 1]})
        assert ports.read("cap_o") == 200
        assert far.sent() == [b'[{"r":["cap_o","mem_bound_o"]}]\n']
        assert ports.read("mem_bound_o") == 1
        assert ports.read("cap_o") == 200
        assert far.sent() == []
        assert ports.tape.entries == [200, 1, 200]


def test_a_read_of_a_port_that_is_not_an_output_asks_for_it_alone() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [7]})
        assert ports.read("peak_i") == 7
        assert far.sent() == [b'[{"r":["peak_i"]}]\n'] and ports.tape.entries == [7]


def test_a_read_of_a_port_the_design_lacks_asks_nothing() -> None:
    with remote_ports() as (far, ports):
        with pytest.raises(PortError):
            ports.read("absent_o")
        with pytest.raises(PortError):
            ports.read("nowhere_o")
        assert far.sent() == [] and ports.tape.entries == []


def test_writes_are_cut_to_the_ports_width_and_make_the_next_read_ask_again() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [1, 0]}, {"n": 1, "v": [2, 1]})
        assert ports.read("cap_o") == 1
        ports.write("peak_i", 0x3FF)
        ports.write("start_i", 2)
        assert ports.read("cap_o") == 2
        assert far.sent() == [b'[{"r":["cap_o","mem_bound_o"]}]\n',
                              b'[{"w":["peak_i",255]},{"w":["start_i",0]},{"r":["cap_o","mem_bound_o"]}]\n']


def test_a_write_to_a_port_the_design_lacks_is_a_port_error() -> None:
    with remote_ports() as (far, ports):
        with pytest.raises(PortError):
            ports.write("absent_o", 1)
        assert far.channel.pending == []


def test_every_passing_of_time_is_sent_and_makes_the_next_read_ask_again() -> None:
    with remote_ports() as (far, ports):
        far.say(*({"n": turn, "v": [turn, 0]} for turn in range(5)))
        assert ports.read("cap_o") == 0
        ports.start_clock(10)
        assert ports.read("cap_o") == 1
        run_to_end(ports.falling_edge())
        assert ports.read("cap_o") == 2
        run_to_end(ports.rising_edges(3))
        assert ports.read("cap_o") == 3
        run_to_end(ports.wait_ns(7))
        assert ports.read("cap_o") == 4
        assert far.sent() == [b'[{"r":["cap_o","mem_bound_o"]}]\n', b'[{"clock":10},{"r":["cap_o","mem_bound_o"]}]\n',
                              b'[{"fall":1},{"r":["cap_o","mem_bound_o"]}]\n', b'[{"rise":3},{"r":["cap_o","mem_bound_o"]}]\n',
                              b'[{"wait":7},{"r":["cap_o","mem_bound_o"]}]\n']


def test_a_clock_on_a_design_with_no_clock_port_is_a_port_error() -> None:
    with remote_ports(widths={"cap_o": 8}) as (far, ports):
        with pytest.raises(PortError):
            ports.start_clock(10)
        assert far.channel.pending == []


@pytest.mark.parametrize("values", [5, [1], [1, 0, 0], {"cap_o": 1, "mem_bound_o": 0}, None])
def test_an_answer_with_another_number_of_values_than_asked_is_a_protocol_error(values: Any) -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": values})
        with pytest.raises(ProtocolError, match="^an answer with another number of values than asked$"):
            ports.read("cap_o")
        assert ports.tape.entries == []


@pytest.mark.parametrize("values", [[256, 0], [255, 2], [-1, 0], [["x", "xxxxxxxxx"], 0], [0, ["x", "1"]]])
def test_a_read_value_one_bit_too_wide_for_its_port_is_a_protocol_error(values: list[Any]) -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": values})
        with pytest.raises(ProtocolError, match="-bit port cannot hold: "):
            ports.read("cap_o")


def test_a_read_value_exactly_as_wide_as_its_port_is_taken() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [255, 1]})
        assert (ports.read("cap_o"), ports.read("mem_bound_o")) == (255, 1)


def test_an_x_or_z_read_goes_on_the_tape_and_is_unresolved_where_the_bench_reads_it() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [["x", "01xz0101"], 0]})
        with pytest.raises(Unresolved) as raised:
            ports.read("cap_o")
        assert str(raised.value) == "cap_o holds X/Z: 01xz0101"
        assert ports.read("mem_bound_o") == 0  # the other value of the same answer is defined
        assert ports.tape.entries == [("x", "01xz0101"), 0]


def test_a_clocked_wait_sends_its_question_and_puts_the_periods_on_the_tape() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [1, 0]}, {"n": 1, "v": 0}, {"n": 2, "v": 5}, {"n": 3, "v": [2, 0]})
        assert ports.read("cap_o") == 1
        assert run_to_end(ports.periods_until_rise("done_o", 5, 10)) == 0
        assert run_to_end(ports.periods_until_rise("done_o", 5, 10)) == 5
        assert ports.read("cap_o") == 2  # time passed: asked again
        assert ports.tape.entries == [1, 0, 5, 2]
        assert far.sent()[1:] == [b'[{"until":["done_o",5,10]}]\n', b'[{"until":["done_o",5,10]}]\n',
                                  b'[{"r":["cap_o","mem_bound_o"]}]\n']


@pytest.mark.parametrize("elapsed", [6, -1, True, 2.0, None, "3", [1]])
def test_a_clocked_wait_answered_with_periods_it_cannot_have_waited_is_a_protocol_error(elapsed: Any) -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": elapsed})
        with pytest.raises(ProtocolError) as raised:
            run_to_end(ports.periods_until_rise("done_o", 5, 10))
        assert str(raised.value) == f"{elapsed!r} periods, of at most 5"
        assert ports.tape.entries == []


def test_a_clocked_wait_on_a_port_the_design_lacks_asks_nothing() -> None:
    with remote_ports() as (far, ports):
        with pytest.raises(PortError):
            run_to_end(ports.periods_until_rise("absent_o", 5, 10))
        assert far.sent() == []


# ---------------------------------------------------------------------------------- a hold

WATCH = {"done_o": 0, "busy_o": 1}
WRITES = [[("start_i", 3)], [("ops_i", 0x3FF), ("start_i", 0)], []]
HOLD_SENT = b'[{"hold":[["done_o","busy_o"],[0,1],[[["start_i",1]],[["ops_i",255],["start_i",0]],[]]]}]\n'


@pytest.mark.parametrize(("found", "result", "entries"), [
    ([3, None], (3, None), [0, 1, 0, 1, 0, 1]),
    ([0, [1, 0]], (0, {"done_o": 1, "busy_o": 0}), [1, 0]),
    ([2, [1, 1]], (2, {"done_o": 1, "busy_o": 1}), [0, 1, 0, 1, 1, 1]),
    ([1, [0, 0]], (1, {"done_o": 0, "busy_o": 0}), [0, 1, 0, 0]),
])
def test_a_hold_is_one_question_and_the_tape_gets_every_edges_reads(found: list[Any], result: Any, entries: list[int]) -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": found})
        assert run_to_end(ports.hold(dict(WATCH), WRITES)) == result
        assert far.sent() == [HOLD_SENT] and ports.tape.entries == entries


def test_a_hold_forgets_the_values_read_before_it() -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [1, 0]}, {"n": 1, "v": [0, None]}, {"n": 2, "v": [2, 1]})
        assert ports.read("cap_o") == 1
        assert run_to_end(ports.hold(dict(WATCH), [])) == (0, None)
        assert ports.read("cap_o") == 2
        assert ports.tape.entries == [1, 2]


@pytest.mark.parametrize(("found", "problem"), [
    ([4, None], "a hold that held [4, None] edges of 3"),
    ([-1, [1, 0]], "a hold that held [-1, [1, 0]] edges of 3"),
    ([True, None], "a hold that held [True, None] edges of 3"),
    (["a", None], "a hold that held ['a', None] edges of 3"),
    ([1.0, [1, 0]], "a hold that held [1.0, [1, 0]] edges of 3"),
    (5, "a hold that held 5 edges of 3"),
    ([3], "a hold that held [3] edges of 3"),
    ([0, [1, 0], 0], "a hold that held [0, [1, 0], 0] edges of 3"),
    ([4, "a" * 50], "a hold that held [4, '" + "a" * 35 + " edges of 3"),
    ([3, [1, 0]], "a hold that held every edge and stopped too"),
    ([1, None], "a hold that stopped without its values"),
    ([1, 5], "a hold that stopped without its values"),
    ([1, [1]], "a hold that stopped without its values"),
    ([1, [1, 0, 0]], "a hold that stopped without its values"),
    ([1, [0, 1]], "a hold that stopped where its values held"),
    ([1, [2, 0]], "a value a 1-bit port cannot hold: 2"),
    ([1, [0, ["x", "zz"]]], "a value a 1-bit port cannot hold: ['x', 'zz']"),
], ids=lambda value: str(value)[:30])
def test_a_hold_answered_against_what_was_asked_is_a_protocol_error(found: Any, problem: str) -> None:
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": found})
        with pytest.raises(ProtocolError) as raised:
            run_to_end(ports.hold(dict(WATCH), WRITES))
        assert str(raised.value) == problem


@pytest.mark.parametrize(("held", "stopped", "problem", "entries"), [
    (1, [["x", "z"], 0], "done_o holds X/Z: z", [0, 1, ("x", "z")]),
    (1, [0, ["x", "z"]], "busy_o holds X/Z: z", [0, 1, 0, ("x", "z")]),
    (2, [1, ["x", "z"]], "busy_o holds X/Z: z", [0, 1, 0, 1, 1, ("x", "z")]),
])
def test_an_x_or_z_where_a_hold_stopped_goes_on_the_tape_and_is_unresolved(held: int, stopped: list[Any], problem: str,
                                                                           entries: list[Any]) -> None:
    """It also says how many edges held before it and which port read it (a bench that fails each held edge
    needs both: roofline_bench.intensity's stray done_o pulses)."""
    with remote_ports() as (far, ports):
        far.say({"n": 0, "v": [held, stopped]})
        with pytest.raises(Unresolved) as raised:
            run_to_end(ports.hold(dict(WATCH), WRITES))
        assert str(raised.value) == problem and ports.tape.entries == entries
        assert (raised.value.held, raised.value.port) == (held, problem.split()[0])


@pytest.mark.parametrize(("watch", "writes"), [({"absent_o": 0}, []), ({"done_o": 0}, [[("absent_o", 1)]]),
                                               ({"done_o": 0}, [[("nowhere_i", 1)]])])
def test_a_hold_on_a_port_the_design_lacks_asks_nothing(watch: dict[str, int], writes: list[list[tuple[str, int]]]) -> None:
    with remote_ports() as (far, ports):
        with pytest.raises(PortError):
            run_to_end(ports.hold(watch, writes))
        assert far.sent() == [] and far.channel.pending == []


# ---------------------------------------------------------------------------------- drive: a whole reply

CFG = BenchConfig("roofline_attainable", "icarus", DEFAULT_SET, 7, sweep=60)
PORTS = ["peak_i", "bw_i", "ai_i", "cap_o", "mem_bound_o"]  # the contract's ports of roofline_attainable, in order
DESIGN = {"peak_i": 8, "bw_i": 8, "ai_i": 8, "cap_o": 8, "mem_bound_o": 1}
BEGIN_FIRST = b'[{"begin":"first","ports":["peak_i","bw_i","ai_i","cap_o","mem_bound_o"]}]\n'
VOID = "the simulation's answers broke the protocol ({}): every test of the group is void"


async def write_and_read(run: Run) -> None:
    """Writes one input, reads both outputs, and expects cap_o to read 9."""
    run.ports.write("peak_i", 0x105)
    cap = run.ports.read("cap_o")
    run.ports.read("mem_bound_o")
    run.sb.check(0, "cap", [], [Field("cap_o", 9, cap)])


async def touch_nothing(run: Run) -> None:
    pass


def bench(*names: str) -> list[BenchTest]:
    return [BenchTest(name, write_and_read, "") for name in names]


def test_drive_runs_each_test_in_turn_and_writes_its_tape_here() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "v": [9, 1]}, {"n": 2, "ended": "first"},
                {"n": 3, "widths": DESIGN}, {"n": 4, "v": [8, 0]}, {"n": 5, "ended": "second"})
        far.hang_up()
        reply = drive(far.channel, CFG, bench("first", "second"))
        assert far.sent() == [
            BEGIN_FIRST, b'[{"w":["peak_i",5]},{"r":["cap_o","mem_bound_o"]}]\n', b'[{"end":"first"}]\n',
            b'[{"begin":"second","ports":["peak_i","bw_i","ai_i","cap_o","mem_bound_o"]}]\n',
            b'[{"w":["peak_i",5]},{"r":["cap_o","mem_bound_o"]}]\n', b'[{"end":"second"}]\n', b'[{"done":1}]\n']
    assert reply.problem == "" and reply.notes == [] and list(reply.tapes) == ["first", "second"]
    assert [(tape.entries, tape.complete, tape.widths) for tape in reply.tapes.values()] == [
        ([9, 1], True, DESIGN), ([8, 0], True, DESIGN)]
    first, second = reply.judged["first"], reply.judged["second"]
    assert list(reply.judged) == ["first", "second"] and first.passed and first.checked == 1
    assert not second.passed and second.checked == 1 and dict(second.kinds) == {"mismatch": 1}


@pytest.mark.parametrize("widths", [
    {**DESIGN, "bw_i": None},
    {name: 1 for name in PORTS},
    {**DESIGN, "cap_o": MAX_WIDTH},
], ids=["a-port-missing", "one-bit-each", "max-width"])
def test_drive_takes_every_width_a_design_can_have(widths: dict[str, int | None]) -> None:
    assert MAX_WIDTH == 1 << 16
    with sandbox() as far:
        far.say({"n": 0, "widths": widths}, {"n": 1, "ended": "first"})
        far.hang_up()
        reply = drive(far.channel, CFG, [BenchTest("first", touch_nothing, "")])
    assert reply.problem == "" and reply.tapes["first"].widths == widths and reply.tapes["first"].complete


@pytest.mark.parametrize("widths", [
    PORTS,  # the names, not a table
    {name: 8 for name in PORTS[:-1]},  # a port left out
    {**DESIGN, "extra_o": 1},  # a port too many
    {**DESIGN, "cap_o": 0},
    {**DESIGN, "cap_o": -1},
    {**DESIGN, "cap_o": MAX_WIDTH + 1},
    {**DESIGN, "cap_o": True},
    {**DESIGN, "cap_o": 1.5},
    {**DESIGN, "cap_o": "8"},
], ids=["list", "port-missing", "port-extra", "zero", "negative", "max-width-and-one", "bool", "float", "text"])
def test_drive_voids_the_reply_for_port_widths_no_design_has(widths: Any) -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": widths}, {"n": 1, "ended": "first"})
        far.hang_up()
        reply = drive(far.channel, CFG, [BenchTest("first", touch_nothing, "")])
    assert reply.problem == VOID.format("port widths that no design has")
    assert reply.tapes == {} and reply.judged == {}


def test_drive_voids_the_reply_when_another_test_ends() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "ended": "second"})
        far.hang_up()
        reply = drive(far.channel, CFG, [BenchTest("first", touch_nothing, "")])
    assert reply.problem == VOID.format("the end of another test") and reply.tapes == {}


def test_drive_voids_the_whole_reply_for_one_answer_out_of_turn_in_a_later_test() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "v": [9, 1]}, {"n": 2, "ended": "first"},
                {"n": 3, "widths": DESIGN}, {"n": 5, "v": [8, 0]})
        far.hang_up()
        reply = drive(far.channel, CFG, bench("first", "second"))
    assert reply.problem == VOID.format("answer 4 was not what was asked: {'n': 5, 'v': [8, 0]}")
    assert reply.tapes == {} and reply.judged == {}


def test_drive_voids_the_reply_for_an_answer_after_the_last_test() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "ended": "first"}, {"n": 2, "v": [0, 0]})
        far.hang_up()
        reply = drive(far.channel, CFG, [BenchTest("first", touch_nothing, "")])
    assert reply.problem == VOID.format("an answer nobody asked for: {'n': 2, 'v': [0, 0]}") and reply.tapes == {}


def test_drive_keeps_the_jobs_notes_after_the_last_test() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "ended": "first"}, {"job": "exit 0"})
        far.hang_up()
        reply = drive(far.channel, CFG, [BenchTest("first", touch_nothing, "")])
    assert reply.problem == "" and reply.notes == ["exit 0"] and reply.tapes["first"].complete


def test_drive_ends_at_the_jobs_note_mid_test_keeping_the_tape_so_far() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"job": "the simulator crashed"})
        reply = drive(far.channel, CFG, bench("first", "second"))
    assert reply.problem == "" and reply.notes == ["the simulator crashed"] and list(reply.tapes) == ["first"]
    assert reply.tapes["first"].entries == [] and not reply.tapes["first"].complete
    assert reply.judged["first"].ran_out and not reply.judged["first"].passed


def test_drive_ends_a_stalled_simulation_where_it_stopped() -> None:
    with sandbox(deadline_s=3.0, stall_s=0.1) as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "v": [9, 1]}, {"n": 2, "ended": "first"}, {"n": 3, "widths": DESIGN})
        reply = drive(far.channel, CFG, bench("first", "second", "third"))
        assert far.channel.stalled
    assert reply.problem == "" and list(reply.tapes) == ["first", "second"]
    assert reply.tapes["first"].complete and not reply.tapes["second"].complete and reply.tapes["second"].entries == []
    assert reply.judged["second"].ran_out


def test_drive_voids_the_reply_for_answers_closed_mid_line() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, b'{"n": 1, "v": [9,')
        far.hang_up()
        reply = drive(far.channel, CFG, bench("first"))
    assert reply.problem == VOID.format("the answers end in the middle of a line") and reply.tapes == {}


def test_drive_fails_a_test_that_reads_an_x_and_goes_on_to_the_next() -> None:
    with sandbox() as far:
        far.say({"n": 0, "widths": DESIGN}, {"n": 1, "v": [["x", "zzzzzzzz"], 0]}, {"n": 2, "ended": "first"},
                {"n": 3, "widths": DESIGN}, {"n": 4, "v": [9, 0]}, {"n": 5, "ended": "second"})
        far.hang_up()
        reply = drive(far.channel, CFG, bench("first", "second"))
    assert reply.problem == "" and reply.tapes["first"].entries == [("x", "zzzzzzzz")] and reply.tapes["first"].complete
    first = reply.judged["first"]
    assert first.stopped == "cap_o holds X/Z: zzzzzzzz" and not first.passed and dict(first.kinds) == {"unresolved": 1}
    assert reply.judged["second"].passed and reply.tapes["second"].entries == [9, 0]
