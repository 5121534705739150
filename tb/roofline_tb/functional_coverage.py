"""Functional coverage of the per-vector benches: which regimes of the contract the tests reached.

The checkers sample every vector they judge; the benches' handshake code samples stalls, gaps
and resets. The bins live for one simulator process (every test of one bench run). A bench's
last test, `functional_coverage`, prints the table, writes functional_coverage.json in the build
folder, and fails when a bin was never hit, unless ONLY= narrowed the run.
"""

from __future__ import annotations

import json
import logging
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


HITS: Counter[str] = Counter()  # one bench run (one simulator process)


def hit(name: str, count: int = 1) -> None:
    HITS[name] += count


def sample_rates(fmt: QFormat, peak: int, bws: tuple[int, ...], ais: tuple[int, ...], binding: int | None = None) -> None:
    """Each level's regime, and (for a hierarchy) the binding level and ties at its product."""
    f = fmt.frac_bits
    scaled_peak = peak << f
    products = [ai * bw for ai, bw in zip(ais, bws, strict=True)]
    for product, ai, bw in zip(products, ais, bws, strict=True):
        below = product < scaled_peak
        hit("memory-bound" if below else "compute-bound")
        if product == scaled_peak:
            hit("ridge (ai*bw == peak)")
        if product + 1 == scaled_peak:
            hit("one step below the ridge")
        if below and product & ((1 << f) - 1) == 1 << (f - 1):
            hit("rounding tie (memory-bound)")
        if product > fmt.max_raw << f:
            hit("product above the format")
        if ai == 0 or bw == 0:
            hit("ai or bw zero")
    if peak == 0:
        hit("peak zero")
    if binding is None:
        return
    levels = len(products)
    hit("binds: compute roof" if binding >= levels else f"binds: memory level {binding}")
    if binding < levels and any(products[other] == products[binding] for other in range(binding + 1, levels)):
        hit("level tie at the binding product")


def sample_division(fmt: QFormat, count_bits: int, ops: int, bytes_moved: int, saturated: bool) -> None:
    if bytes_moved >> (count_bits - 1):
        hit("divisor with its top bit set")
    if bytes_moved == 0:
        hit("division by zero")
        if ops == 0:
            hit("division by zero with ops = 0")
        return
    if saturated:
        hit("saturation (bytes > 0)")
    dividend = ops << fmt.frac_bits
    if dividend % bytes_moved == 0:
        hit("exact quotient")
    if 2 * (dividend % bytes_moved) == bytes_moved:
        hit("rounding tie")


def report(top: str, levels: int, out: Path) -> list[str]:
    """The table, written as JSON beside the bench's results; returns the names never hit."""
    bins = {name: HITS.get(name, 0) for name in expected_bins(top, levels)}
    out.write_text(json.dumps({"top": top, "levels": levels, "bins": bins}, indent=2) + "\n")
    return [name for name, count in bins.items() if count == 0]


def table(top: str, levels: int) -> list[str]:
    width = max(len(name) for name in expected_bins(top, levels))
    return [f"  {name:<{width}} {HITS.get(name, 0):>8,d}{'   <-- never hit' if not HITS.get(name) else ''}"
            for name in expected_bins(top, levels)]


def sample_counts(mem_bound: bool, binding: int, levels: int, bytes_moved: tuple[int, ...]) -> None:
    hit("memory-bound" if mem_bound else "compute-bound")
    hit("binds: compute roof" if binding >= levels else f"binds: memory level {binding}")
    if 0 in bytes_moved:
        hit("bytes zero")


def close(top: str, levels: int, narrowed: bool, log: logging.Logger) -> None:
    """The bench's last test: log the bins, write them beside the results, fail on a bin never hit."""
    out = Path.cwd() / "functional_coverage.json"  # cocotb runs the simulator in the build folder
    missed = report(top, levels, out)
    log.info("functional coverage of %s (%s):\n%s", top, out, "\n".join(table(top, levels)))
    if missed and not narrowed:
        raise AssertionError(f"functional coverage: {len(missed)} bin(s) never hit: {', '.join(missed)}")
