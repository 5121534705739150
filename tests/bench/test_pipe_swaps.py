"""When the pipe's bench calls wrong results a handshake failure (pipe.Stream.name_swapped_results): in a
stream that stalled, two wrong results at least, most of the wrong ones, each exactly another nearby
input's expected result. One such result alone stays a value mismatch (it may be chance: two inputs
with one answer), and nothing is renamed in a stream that never stalled."""

from __future__ import annotations

import logging

import pytest

from roofline_bench.coverage import Coverage
from roofline_bench.pipe import Item, Stream
from roofline_bench.ports import Ports
from roofline_bench.run import Run
from roofline_bench.stimulus import RateVector
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Field

CFG = BenchConfig("roofline_hierarchy_pipe", "icarus", ParamSet(8, 8, 2), 3)
ONE = 1 << 8


class NoPorts(Ports):
    """The stream is given its results by the test; it starts a clock, and touches no port."""

    widths: dict[str, int | None] = {}

    def read(self, name: str) -> int:
        raise AssertionError(name)

    def write(self, name: str, value: int) -> None:
        raise AssertionError(name)

    def start_clock(self, period_ns: int) -> None:
        pass

    async def wait_ns(self, ns: int) -> None:
        raise AssertionError(ns)

    async def falling_edge(self) -> None:
        raise AssertionError

    async def rising_edges(self, count: int) -> None:
        raise AssertionError(count)

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        raise AssertionError(name)


def stream_of(swapped: int, wrong_by_value: int = 0, stalled: bool = True) -> tuple[Stream, list[Item]]:
    """Ten inputs with ten different answers; the first `swapped` results taken are the next input's
    answer, the next `wrong_by_value` are their own answer with a cap off by a large step."""
    items = [Item(n, f"v{n}", RateVector("k", 200 * ONE, (ONE, 2 * ONE), ((n + 1) * ONE, (n + 2) * ONE))) for n in range(10)]
    stream = Stream(Run(CFG, "random_sweep", NoPorts(), Coverage(), logging.getLogger("t")))
    answers = [stream.expected_outputs(item) for item in items]
    assert len(set(answers)) == 10  # the premise: no two inputs share an answer
    for n, item in enumerate(items):
        taken = answers[n + 1] if n < swapped else answers[n]
        if swapped <= n < swapped + wrong_by_value:
            taken = (taken[0] + 40, *taken[1:])
        stream.taken.append((item, taken))
        stream.sb.check(item.vector_id, item.label, [], [Field("cap_o", answers[n][0], taken[0])])
    stream.name_swapped_results(stalled)
    return stream, items


def kinds(stream: Stream) -> dict[str, int]:
    return {kind: count for kind, count in stream.sb.kinds.items() if count}


@pytest.mark.parametrize("swapped", [2, 3, 5])
def test_two_or_more_results_that_are_other_inputs_are_a_handshake_failure(swapped: int) -> None:
    stream, _ = stream_of(swapped)
    assert kinds(stream) == {"handshake": swapped}


def test_one_result_that_is_another_inputs_stays_a_mismatch() -> None:
    stream, _ = stream_of(1)
    assert kinds(stream) == {"mismatch": 1}


def test_swaps_that_are_not_most_of_the_wrong_results_stay_mismatches() -> None:
    stream, _ = stream_of(2, wrong_by_value=3)  # 2 of 5 wrong results are another input's
    assert kinds(stream) == {"mismatch": 5}


def test_nothing_is_renamed_in_a_stream_that_never_stalled() -> None:
    stream, _ = stream_of(3, stalled=False)
    assert kinds(stream) == {"mismatch": 3}
