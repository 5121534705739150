"""Functional coverage: which regimes of the contract a bench run reached.

A `Coverage` object lives for one bench run (every test of one simulator process). The judges
sample every vector they judge into it, the handshake code its stalls, gaps and resets. After
each test the cocotb harness saves it beside the results (functional_coverage.json); once the
run is over, whoever ran it (make sim, the regression) closes it with `missed`: a bin never hit
fails the run, unless ONLY= or TESTCASE= narrowed it. No test has to run last.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from roofline_core.contract import MODULES
from roofline_golden import QFormat

RATE_BINS = (
    "memory-bound",
    "compute-bound",
    "ridge (ai*bw == peak)",
    "one step below the ridge",
    "rounding tie (memory-bound)",
    "product above the format",
    "ai or bw zero",
    "peak zero",
)
HANDSHAKE_BINS = (
    "input stall (in_valid_i, not in_ready_o)",
    "output stall (out_valid_o, not out_ready_i)",
    "input gap (no in_valid_i)",
    "back-to-back transfers",
    "reset with results in flight",
)
INTENSITY_BINS = (
    "division by zero",
    "division by zero with ops = 0",
    "saturation (bytes > 0)",
    "exact quotient",
    "rounding tie",
    "divisor with its top bit set",
    "start in the done_o cycle",
    "reset mid-operation",
)


COUNTS_BINS = ("memory-bound", "compute-bound", "bytes zero")


def _bin_set(name: str, levels: int) -> tuple[str, ...]:
    if name == "binding":
        return tuple(f"binds: memory level {level}" for level in range(levels)) + ("binds: compute roof",)
    if name == "level ties":
        return ("level tie at the binding product",) if levels > 1 else ()
    return {"rates": RATE_BINS, "handshake": HANDSHAKE_BINS, "intensity": INTENSITY_BINS, "counts": COUNTS_BINS}[name]


def expected_bins(top: str, levels: int) -> tuple[str, ...]:
    """Every bin the bench of `top` must hit at this level count: the bin sets the contract table names."""
    return tuple(name for bin_set in MODULES[top].coverage for name in _bin_set(bin_set, levels))


COVERAGE_FILE = "functional_coverage.json"


class Coverage:
    """The bins one bench run hit, with how often."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()

    def hit(self, name: str, count: int = 1) -> None:
        self.hits[name] += count

    def sample_rates(self, fmt: QFormat, peak: int, bws: tuple[int, ...], ais: tuple[int, ...],
                     binding: int | None = None) -> None:
        """Each level's regime, and (for a hierarchy) the binding level and ties at its product."""
        f = fmt.frac_bits
        scaled_peak = peak << f
        products = [ai * bw for ai, bw in zip(ais, bws, strict=True)]
        for product, ai, bw in zip(products, ais, bws, strict=True):
            below = product < scaled_peak
            self.hit("memory-bound" if below else "compute-bound")
            if product == scaled_peak:
                self.hit("ridge (ai*bw == peak)")
            if product + 1 == scaled_peak:
                self.hit("one step below the ridge")
            if below and product & ((1 << f) - 1) == 1 << (f - 1):
                self.hit("rounding tie (memory-bound)")
            if product > fmt.max_raw << f:
                self.hit("product above the format")
            if ai == 0 or bw == 0:
                self.hit("ai or bw zero")
        if peak == 0:
            self.hit("peak zero")
        if binding is None:
            return
        levels = len(products)
        self.hit("binds: compute roof" if binding >= levels else f"binds: memory level {binding}")
        if binding < levels and any(products[other] == products[binding] for other in range(binding + 1, levels)):
            self.hit("level tie at the binding product")

    def sample_division(self, fmt: QFormat, count_bits: int, ops: int, bytes_moved: int, saturated: bool) -> None:
        if bytes_moved >> (count_bits - 1):
            self.hit("divisor with its top bit set")
        if bytes_moved == 0:
            self.hit("division by zero")
            if ops == 0:
                self.hit("division by zero with ops = 0")
            return
        if saturated:
            self.hit("saturation (bytes > 0)")
        dividend = ops << fmt.frac_bits
        if dividend % bytes_moved == 0:
            self.hit("exact quotient")
        if 2 * (dividend % bytes_moved) == bytes_moved:
            self.hit("rounding tie")

    def sample_counts(self, mem_bound: bool, binding: int, levels: int, bytes_moved: tuple[int, ...]) -> None:
        self.hit("memory-bound" if mem_bound else "compute-bound")
        self.hit("binds: compute roof" if binding >= levels else f"binds: memory level {binding}")
        if 0 in bytes_moved:
            self.hit("bytes zero")

    def save(self, folder: Path, top: str, levels: int) -> None:
        """Every expected bin with its hits, beside the run's results (rewritten after each test)."""
        bins = {name: self.hits.get(name, 0) for name in expected_bins(top, levels)}
        (folder / COVERAGE_FILE).write_text(json.dumps({"top": top, "levels": levels, "bins": bins}, indent=2) + "\n")


def saved_bins(folder: Path) -> dict[str, int] | None:
    """The bins a finished run saved in its build folder, or None when it saved none."""
    try:
        return dict(json.loads((folder / COVERAGE_FILE).read_text())["bins"])
    except (OSError, ValueError, KeyError):
        return None


def missed(folder: Path, top: str, levels: int) -> list[str]:
    """Closing a run's coverage: the bins it never hit (every bin, when it saved nothing)."""
    bins = saved_bins(folder) or {}
    return [name for name in expected_bins(top, levels) if not bins.get(name)]


def table(bins: dict[str, int]) -> list[str]:
    width = max((len(name) for name in bins), default=0)
    return [f"  {name:<{width}} {hits:>8,d}{'   <-- never hit' if not hits else ''}" for name, hits in bins.items()]
