"""The tape and the judge that replays it, the second wall behind the remote protocol
(tests/bench/test_remote_protocol.py): a replay hands back only what a simulator could have seen. A
clocked wait returns 0 .. its bound of periods, never more, never fewer, never an X; a value fits its
port; a tape that ends, or never ends, stops the test; a reply the bench cannot use fails it."""

from __future__ import annotations

import pytest

from roofline_bench import tape as tape_module
from roofline_bench.ports import Unresolved
from roofline_bench.run import BenchTest, Run, replay
from roofline_bench.tape import ReplayPorts, Tape, TapeEnded, TapeError, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet


def ports(*entries: int | tuple[str, str]) -> ReplayPorts:
    return ReplayPorts(Tape("t", {"done_o": 1, "ai_o": 8}, list(entries)))


@pytest.mark.parametrize("periods", [0, 1, 4, 5])
def test_a_clocked_wait_of_zero_to_its_bound_is_replayed_and_counts_its_cycles(periods: int) -> None:
    replay = ports(periods)
    assert run_to_end(replay.periods_until_rise("done_o", 5, 10)) == periods
    assert replay.cycles == periods and replay.position == 1


@pytest.mark.parametrize("entry", [6, 100, -1, ("x", "1")])
def test_a_clocked_wait_past_its_bound_below_zero_or_unknown_stops_the_replay(entry: int | tuple[str, str]) -> None:
    replay = ports(entry)
    with pytest.raises(TapeError) as raised:
        run_to_end(replay.periods_until_rise("done_o", 5, 10))
    assert str(raised.value) == f"the reply says done_o rose after {entry} periods of at most 5"
    assert replay.cycles == 0


@pytest.mark.parametrize(("value", "fits"), [(0, True), (255, True), (256, False), (1 << 40, False)])
def test_a_value_fits_its_port_or_stops_the_replay(value: int, fits: bool) -> None:
    replay = ports(value)
    if fits:
        assert replay.read("ai_o") == value
    else:
        with pytest.raises(TapeError, match=f"ai_o read {value:#x}, more than its 8 bits can hold"):
            replay.read("ai_o")


def test_a_tape_that_ends_stops_the_test_saying_how_far_it_got() -> None:
    replay = ports(3)
    run_to_end(replay.periods_until_rise("done_o", 5, 10))
    with pytest.raises(TapeEnded, match="stopped answering after 3 clock cycles and 1 values read"):
        replay.read("ai_o")


@pytest.mark.parametrize(("limit", "ends_at"), [(1, 2), (3, 4)])
def test_a_replay_gives_up_after_its_most_steps_however_the_tape_reads(limit: int, ends_at: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A bench replayed against a tape that never ends the test (waits that never finish) stops at MAX_STEPS."""
    monkeypatch.setattr(tape_module, "MAX_STEPS", limit)
    replay = ports()
    for _ in range(ends_at - 1):
        run_to_end(replay.falling_edge())
    with pytest.raises(TapeEnded):
        run_to_end(replay.falling_edge())
    assert replay.cycles == ends_at


def test_an_x_is_shown_by_its_first_80_bits() -> None:
    bits = "01xz" * 30  # 120 bits
    with pytest.raises(Unresolved) as raised:
        ports(("x", bits)).read("ai_o")
    assert str(raised.value) == f"ai_o holds X/Z: {bits[:80]}"


def test_a_bench_that_breaks_on_a_reply_fails_and_says_why_and_one_that_reads_an_x_fails_on_an_event() -> None:
    """The judge never passes what it could not judge, and an X or Z read where the bench expected none is an
    event of its own (no one case): the test stops there and fails."""
    cfg = BenchConfig("roofline_attainable", "icarus", ParamSet(8, 8, 1, 16), 1, sweep=10)

    async def breaks(run: Run) -> None:
        run.sb.plan(1)
        raise ValueError("a value the bench cannot use")

    async def reads(run: Run) -> None:
        run.sb.plan(1)
        run.ports.read("cap_o")

    broke = replay(BenchTest("breaks", breaks, ""), cfg, Tape("breaks", {"cap_o": 16}, [1]))
    assert not broke.passed and broke.stopped == "the reply could not be judged (ValueError: a value the bench cannot use)"
    unknown = replay(BenchTest("reads", reads, ""), cfg, Tape("reads", {"cap_o": 16}, [("x", "x" * 16)]))
    assert not unknown.passed and unknown.events == ("unknown_value",) and unknown.kinds == (("unresolved", 1),)
    nothing = replay(BenchTest("reads", reads, ""), cfg, None)
    assert not nothing.passed and nothing.stopped == "the simulation did not run this test"
