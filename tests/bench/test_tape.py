"""The tape's own bounds, the second wall behind the remote protocol's (tests/bench/test_remote_protocol.py):
a replay hands back only what a simulator could have seen. A clocked wait returns 0 .. its bound of
periods, never more, never fewer, never an X; a value fits its port; a tape that ends stops the test."""

from __future__ import annotations

import pytest

from roofline_bench.tape import ReplayPorts, Tape, TapeEnded, TapeError, run_to_end


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
