"""The bench of roofline_counts: a kernel placed from its operation and byte counts.

Each placement is issued when busy_o is low and its done_o pulse is checked in order against
the golden model (fixed.counts_hierarchy), the documents' caps, and the exact real-valued
min(peak, ops * bw / bytes) within half an LSB: the cap is rounded once, from the counts.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

from roofline_bench.ports import Unresolved
from roofline_bench.rates import bench_rng, check_error_bound, check_widths, pack_levels
from roofline_bench.run import Run, Stopped, tests
from roofline_bench.stimulus import log_uniform
from roofline_core.edges import placement_edges
from roofline_core.scoreboard import Field, binding_text, selected
from roofline_golden import cases, fixed, format_fraction

CLOCK_NS = 10


@dataclass(frozen=True)
class Placement:
    vector_id: str | int
    label: str
    peak: int
    bws: tuple[int, ...]
    ops: int
    bytes: tuple[int, ...]
    expect_cap: int | None = None  # from the documents


class CountsTB:
    def __init__(self, run: Run) -> None:
        self.run, self.ports, self.sb, self.cfg = run, run.ports, run.sb, run.cfg
        p = self.cfg.params
        # The module's documented bound: LEVELS * (COUNT_BITS + W + 2) + 2 cycles.
        self.max_latency = p.levels * (p.count_bits + p.fmt.width + 2) + 2
        self.ports.start_clock(CLOCK_NS)

    async def reset(self) -> None:
        for name in ("start_i", "peak_i", "bw_i", "ops_i", "bytes_i", "rst_ni"):
            self.ports.write(name, 0)
        await self.ports.rising_edges(2)
        await self.ports.falling_edge()
        self.ports.write("rst_ni", 1)
        self.expect_idle("after_reset", "after reset")

    def expect_idle(self, vector_id: str, when: str) -> None:
        """busy_o and done_o low, not X (the contract's reset is asynchronous: at once)."""
        unknown = []
        for name in ("busy_o", "done_o"):
            try:
                high = self.ports.read_bool(name)
            except Unresolved as problem:  # X or Z is not low: the reset left the register without a value
                self.sb.fail(vector_id, f"{problem} {when}; it must be low", kind="reset", event=True)
                unknown.append(str(problem))
                continue
            if high:
                self.sb.fail(vector_id, f"{name} is high {when}; it must be low", kind="reset", event=True)
        if unknown:
            raise Stopped(f"{'; '.join(unknown)} {when}")

    async def place(self, placement: Placement, idle: int = 0) -> int | None:
        """Issue one placement and check its result; then `idle` cycles with start_i low in which
        done_o must stay low. Returns its latency in cycles (None: skipped or timed out)."""
        if not selected(self.cfg, placement.vector_id):
            return None
        ports, p = self.ports, self.cfg.params
        for _ in range(self.max_latency):
            if not ports.read_bool("busy_o"):
                break
            await ports.falling_edge()
        else:
            self.sb.fail(placement.vector_id, f"TIMEOUT {self.cfg.top}: busy_o high for {self.max_latency} cycles "
                                              f"with no placement started ({placement.label})", kind="timeout",
                         label=placement.label)
            return None
        ports.write("peak_i", placement.peak)
        ports.write("bw_i", pack_levels(placement.bws, p.fmt.width))
        ports.write("ops_i", placement.ops)
        ports.write("bytes_i", pack_levels(placement.bytes, p.count_bits))
        ports.write("start_i", 1)
        await ports.falling_edge()
        ports.write("start_i", 0)
        latency = await self.done_within_bound()
        if latency is None:
            self.sb.fail(placement.vector_id, f"TIMEOUT {self.cfg.top}: no done_o within {self.max_latency} cycles "
                                              f"({placement.label})", kind="timeout", label=placement.label)
            return None
        self.check(placement)
        for cycle in range(1, idle + 1):
            await ports.falling_edge()
            if ports.read_bool("done_o"):
                self.sb.fail(placement.vector_id, f"done_o pulsed again {cycle} cycle(s) after the result of "
                             f"{placement.label}, with no new start_i", kind="pulse", label=placement.label)
                break
        return latency

    async def done_within_bound(self) -> int | None:
        """The latency: done_o high at a falling edge within max_latency edges, this one the first
        (None: it never came). Between edges it waits for done_o to rise rather than sampling every cycle."""
        left = self.max_latency - 1  # the edges after this one that still count
        while not self.ports.read_bool("done_o"):
            if left <= 0:
                return None
            left -= await self.ports.periods_until_rise("done_o", left, CLOCK_NS) + 1
            await self.ports.falling_edge()
        return self.max_latency - left

    def inputs(self, placement: Placement) -> list[str]:
        fmt = self.cfg.params.fmt
        text = [f"peak_i = {fmt.describe(placement.peak, 'GFLOP/s')}", f"ops_i = {placement.ops:#x} ({placement.ops} FLOP)"]
        for level, (bw, moved) in enumerate(zip(placement.bws, placement.bytes, strict=True)):
            text.append(f"bw_i[{level}] = {fmt.describe(bw, 'GB/s')}, bytes_i[{level}] = {moved:#x} ({moved} B)")
        return text

    def check(self, placement: Placement) -> None:
        ports, cfg = self.ports, self.cfg
        fmt, levels = cfg.params.fmt, cfg.params.levels
        try:
            cap, binding = ports.read("cap_o"), ports.read("binding_o")
            mem_bound, packed = ports.read_bool("mem_bound_o"), ports.read("level_cap_o")
        except Unresolved as problem:
            self.sb.fail(placement.vector_id, f"X/Z {cfg.top} with done_o high: {problem}\n  inputs  : "
                         + ", ".join(self.inputs(placement)), kind="unresolved", label=placement.label)
            return
        level_caps = [(packed >> (level * fmt.width)) & fmt.max_raw for level in range(levels)]
        want = fixed.counts_hierarchy(fmt, cfg.params.count_bits, placement.peak, placement.bws,
                                      placement.ops, placement.bytes)
        self.run.coverage.sample_counts(want.mem_bound, want.binding, levels, placement.bytes)
        fields = [
            Field("cap_o", want.cap, cap, "GFLOP/s"),
            Field("mem_bound_o", int(want.mem_bound), int(mem_bound)),
            Field("binding_o", want.binding, binding, "index"),
        ]
        fields += [Field(f"level_cap_o[{i}]", want.level_caps[i], level_caps[i], "GFLOP/s") for i in range(levels)]
        if placement.expect_cap is not None:
            fields.append(Field("cap_o (the documents' value)", placement.expect_cap, cap, "GFLOP/s"))
        exact_caps = [self.exact_cap(placement, level) for level in range(levels)]
        context = [
            "exact  : " + ", ".join(f"L{i}: min(peak, ops*bw/bytes) = {format_fraction(c)}"
                                    for i, c in enumerate(exact_caps)),
            f"should bind: {binding_text(want.binding, levels)}",
        ]
        self.sb.check(placement.vector_id, placement.label, self.inputs(placement), fields, context)
        for level in range(levels):
            check_error_bound(self.sb, placement.vector_id, f"level_cap_o[{level}]", level_caps[level], exact_caps[level])

    def exact_cap(self, placement: Placement, level: int) -> Fraction:
        """min(peak, ops * bw / bytes) in real numbers; peak when the level moves no bytes."""
        fmt = self.cfg.params.fmt
        peak = fmt.to_real(placement.peak)
        if placement.bytes[level] == 0:
            return peak
        return min(peak, Fraction(placement.ops) * fmt.to_real(placement.bws[level]) / placement.bytes[level])


def padded(tb: CountsTB, bws: list[int], moved: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Levels beyond those given move no bytes: they never bind."""
    extra = tb.cfg.params.levels - len(bws)
    return tuple(bws) + (tb.cfg.params.fmt.max_raw,) * extra, tuple(moved) + (0,) * extra


def document_placements(tb: CountsTB) -> list[Placement]:
    placements = []
    for case in cases.load_cases():
        if case.group != "document" or not case.has_rates or len(case.count_levels) != len(case.levels):
            continue
        try:
            rated = cases.rates(case, tb.cfg.params)
            counted = cases.counts(case, tb.cfg.params)
        except cases.NotRepresentable as why:
            tb.run.log.info("skipped %s: %s", case.id, why)
            continue
        if len({c.ops for c in counted}) != 1:
            continue  # the unit takes one operation count for every level
        bws, moved = padded(tb, list(rated.bws[: rated.used_levels]), [c.bytes for c in counted])
        placements.append(Placement(case.id, case.title, rated.peak, bws, counted[0].ops, moved, rated.expect_cap))
    return placements


def edge_placements(tb: CountsTB) -> list[Placement]:
    """The spec's edge cases, stated for counts."""
    fmt, p = tb.cfg.params.fmt, tb.cfg.params
    top_count = (1 << p.count_bits) - 1
    one, peak = fmt.one, min(100 * fmt.one, fmt.max_raw)
    bw = min(20 * fmt.one, fmt.max_raw)
    ridge_bytes = 8
    ridge_ops = peak * ridge_bytes // bw if (peak * ridge_bytes) % bw == 0 else None
    one_level = padded(tb, [bw], [16])
    result = [
        Placement("no_bytes", "bytes = 0 at every level: compute binds", peak, (bw,) * p.levels, 13, (0,) * p.levels),
        Placement("ops_zero", "ops = 0: cap 0, memory-bound", peak, one_level[0], 0, one_level[1]),
        Placement("peak_zero", "peak = 0: cap 0, compute binds", 0, one_level[0], 13, one_level[1]),
        Placement("all_ones", "every input all ones", fmt.max_raw, (fmt.max_raw,) * p.levels, top_count, (top_count,) * p.levels),
        Placement("bw_zero", "bw = 0: cap 0, memory-bound", peak, padded(tb, [0], [16])[0], 13, one_level[1]),
        Placement("tiny_intensity", "1 FLOP over all-ones bytes", one, one_level[0], 1, padded(tb, [bw], [top_count])[1]),
        # The largest memory-bound cap: 15/16 of an all-ones peak, so the divider's top quotient bits are used.
        Placement("cap_near_top", "all-ones peak and bw, ai 15/16: memory-bound just below the top", fmt.max_raw,
                  padded(tb, [fmt.max_raw], [16])[0], 15, padded(tb, [fmt.max_raw], [16])[1]),
    ]
    if ridge_ops is not None and ridge_ops <= top_count:
        bws, moved = padded(tb, [bw], [ridge_bytes])
        result.append(Placement("ridge", "ops * bw == peak * bytes: compute binds", peak, bws, ridge_ops, moved))
        if ridge_ops > 1:
            result.append(Placement("below_ridge", "one FLOP below the ridge: memory-bound", peak, bws, ridge_ops - 1, moved))
    if p.levels >= 2:
        # ops = 0: every memory-bound level's cap is 0, a tie that level 0 wins, whatever bw/bytes.
        bws, moved = padded(tb, [bw, bw], [8, 16])  # level 1 has the lower ops*bw/bytes, were ops > 0
        result.append(Placement("ops_zero_two_levels", "ops = 0 at two memory-bound levels: level 0 binds", peak, bws, 0, moved))
    if p.levels >= 2 and 2 * 16 <= top_count and 2 * bw <= fmt.max_raw:
        # The same ops * bw / bytes at two levels: the lower index binds.
        bws, moved = padded(tb, [bw, 2 * bw], [16, 32])
        result.append(Placement("level_tie", "two levels with equal ops*bw/bytes: level 0 binds", peak, bws, 13, moved))
        bws, moved = padded(tb, [2 * bw, bw], [32, 16])
        result.append(Placement("level_tie_reversed", "equal levels, swapped: level 0 binds", peak, bws, 13, moved))
    return result


def random_placements(tb: CountsTB, rng: random.Random, count: int) -> list[Placement]:
    fmt, p = tb.cfg.params.fmt, tb.cfg.params
    placements = []
    for index in range(count):
        peak = log_uniform(rng, fmt.width)
        ops = log_uniform(rng, p.count_bits)
        bws, moved = [], []
        for _ in range(p.levels):
            kind = rng.random()
            bw = log_uniform(rng, fmt.width)
            if kind < 0.1:
                moved.append(0)
            elif kind < 0.3 and bw and ops:
                # near the ridge: bytes ~ ops * bw / peak
                guess = (ops * bw) // max(peak, 1) + rng.randint(-1, 1)
                moved.append(min(max(guess, 1), (1 << p.count_bits) - 1))
            else:
                moved.append(log_uniform(rng, p.count_bits))
            bws.append(bw)
        fits_twice = 2 * moved[0] < (1 << p.count_bits) and 2 * bws[0] <= fmt.max_raw
        if p.levels >= 2 and rng.random() < 0.15 and moved[0] and fits_twice:
            target = rng.randrange(1, p.levels)
            bws[target], moved[target] = 2 * bws[0], 2 * moved[0]  # a level tie
        placements.append(Placement(index, "random", peak, tuple(bws), ops, tuple(moved)))
    return placements


async def port_widths(run: Run) -> None:
    """Every port has the width the parameters give it."""
    p = run.params
    w = p.fmt.width
    check_widths(run, {"peak_i": w, "cap_o": w, "bw_i": p.levels * w, "level_cap_o": p.levels * w, "ops_i": p.count_bits,
                       "bytes_i": p.levels * p.count_bits, "binding_o": p.levels.bit_length(), "start_i": 1, "busy_o": 1,
                       "done_o": 1, "mem_bound_o": 1})


async def _place_all(run: Run, placements: list[Placement], tb: CountsTB) -> None:
    run.sb.plan(sum(1 for placement in placements if selected(run.cfg, placement.vector_id)))
    for placement in placements:
        await tb.place(placement)


async def document_cases(run: Run) -> None:
    """The documents' kernels given by counts: dot product, stencils, tiled GEMM."""
    tb = CountsTB(run)
    await tb.reset()
    await _place_all(run, document_placements(tb), tb)


async def edge_cases(run: Run) -> None:
    """No traffic, no operations, zero peak, all ones, the ridge and one FLOP below it, level ties."""
    tb = CountsTB(run)
    await tb.reset()
    await _place_all(run, edge_placements(tb), tb)


async def random_sweep(run: Run) -> None:
    """Seeded counts: both roofs, near the ridge, levels with no traffic, level ties."""
    tb = CountsTB(run)
    await tb.reset()
    # A placement takes up to LEVELS divisions of ~100 cycles: a quarter of the sweep size.
    count = max(1, run.cfg.sweep // 4)
    run.log.info("random_sweep: seed %d, %d placements", run.cfg.seed, count)
    await _place_all(run, random_placements(tb, bench_rng(run.cfg, "random_sweep"), count), tb)


def edge_list(tb: CountsTB) -> list[Placement]:
    p = tb.cfg.params
    edges = placement_edges(p.fmt, p.count_bits, p.levels)
    tb.run.log.info("%s: %d directed placements (the same at every seed)", tb.run.test, len(edges))
    return [Placement(index, edge.kind, edge.peak, edge.bws, edge.ops, edge.bytes) for index, edge in enumerate(edges)]


async def boundaries(run: Run) -> None:
    """ops, bytes, bw and peak at every power-of-two and all-ones boundary, the ridge and one LSB below
    it, the binding comparison with ops at every boundary (roofline_core.edges); after each result two
    idle cycles in which done_o must stay low. The same at every seed."""
    tb = CountsTB(run)
    await tb.reset()
    placements = edge_list(tb)
    run.sb.plan(sum(1 for placement in placements if selected(run.cfg, placement.vector_id)))
    for placement in placements:
        await tb.place(placement, idle=2)


async def back_to_back(run: Run) -> None:
    """Each placement started in the first cycle busy_o is low (the contract samples start_i whenever
    busy_o is low, the done_o cycle included): the directed placements with every level dividing and
    each one's edge, every result right and in order, none lost. The same at every seed."""
    tb = CountsTB(run)
    ports, p = run.ports, run.params
    await tb.reset()
    one = p.fmt.one
    longest = Placement("every_level_divides", "every level memory-bound", p.fmt.max_raw, (one,) * p.levels, 1,
                        (1,) * p.levels)
    pending = deque(placement for edge in edge_list(tb)[:24] for placement in (longest, edge)
                    if selected(run.cfg, placement.vector_id))
    run.sb.plan(len(pending))
    in_flight: deque[tuple[Placement, int]] = deque()
    cycle = 0
    while pending or in_flight:
        await ports.falling_edge()
        cycle += 1
        if ports.read_bool("done_o"):
            if not in_flight:
                run.sb.fail(f"cycle_{cycle}", f"done_o pulsed in cycle {cycle} with no placement in flight", kind="pulse",
                            event=True)
                return
            placement, started = in_flight.popleft()
            tb.check(placement)
            if cycle - started > tb.max_latency:  # came, but in the cycle the timeout below would have fired
                run.sb.fail(placement.vector_id, f"LATENCY {cycle - started} cycles from the start sampled in cycle "
                            f"{started} exceeds the documented {tb.max_latency} ({placement.label})", kind="latency",
                            label=placement.label)
        if in_flight and cycle - in_flight[0][1] > tb.max_latency:
            first = in_flight[0][0]
            run.sb.fail(first.vector_id, f"TIMEOUT {run.cfg.top}: no done_o within {tb.max_latency} cycles of the start "
                        f"sampled in cycle {in_flight[0][1]} ({first.label}), started as soon as busy_o was low",
                        kind="timeout", label=first.label)
            return
        if pending and not ports.read_bool("busy_o"):
            placement = pending.popleft()
            ports.write("peak_i", placement.peak)
            ports.write("bw_i", pack_levels(placement.bws, p.fmt.width))
            ports.write("ops_i", placement.ops)
            ports.write("bytes_i", pack_levels(placement.bytes, p.count_bits))
            ports.write("start_i", 1)
            in_flight.append((placement, cycle))
        else:
            ports.write("start_i", 0)


async def reset_in_every_state(run: Run) -> None:
    """rst_ni asserted between clock edges in every cycle of a placement whose every level divides (so
    every state of the unit is visited), from the cycle start_i is sampled in to the cycle after its
    done_o: busy_o and done_o fall at once and are low, never X, after the reset, and the placement
    started next is right. The same at every seed."""
    tb = CountsTB(run)
    ports, p = run.ports, run.params
    await tb.reset()
    levels, one = p.levels, p.fmt.one
    longest = Placement("every_level_divides", "every level memory-bound", p.fmt.max_raw, (one,) * levels, 1,
                        (1,) * levels)
    run.sb.plan(1)
    latency = await tb.place(longest)
    if latency is None:
        return
    after = edge_list(tb)
    for cycle in range(latency + 2):
        vector_id = f"reset_in_cycle_{cycle}"
        if not selected(run.cfg, vector_id):
            continue
        ports.write("peak_i", longest.peak)
        ports.write("bw_i", pack_levels(longest.bws, p.fmt.width))
        ports.write("ops_i", longest.ops)
        ports.write("bytes_i", pack_levels(longest.bytes, p.count_bits))
        ports.write("start_i", 1)
        await ports.falling_edge()  # start_i was sampled at the rising edge just gone: cycle 0
        ports.write("start_i", 0)
        if cycle:
            await ports.rising_edges(cycle)
            await ports.falling_edge()
        await ports.wait_ns(CLOCK_NS // 4)  # between edges: the reset is asynchronous
        ports.write("rst_ni", 0)
        await ports.wait_ns(1)
        tb.expect_idle(vector_id, f"during a reset asserted {cycle} cycles after start_i was sampled")
        await ports.falling_edge()
        ports.write("rst_ni", 1)
        tb.expect_idle(vector_id, f"after a reset asserted {cycle} cycles after start_i was sampled")
        follow = after[cycle % len(after)]
        run.sb.plan(1)
        await tb.place(Placement(vector_id, f"after a reset in cycle {cycle}: {follow.label}", follow.peak, follow.bws,
                                 follow.ops, follow.bytes), idle=1)


TESTS = tests(port_widths, document_cases, edge_cases, boundaries, back_to_back, random_sweep, reset_in_every_state)
