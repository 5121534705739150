"""Directed edges: the boundaries the contract names, as vectors that are the same at every seed.

A random sweep reaches a narrow boundary by luck: a zero test or a comparison one bit short needs a
value with exactly that bit, a rounding bug a product whose fraction is exactly half an LSB. These
vectors are built from the contract (spec sections 2 and 5), not from any bug:
- every input and count at every power-of-two and all-ones boundary: 0, 1, 2^k - 1, 2^k, 2^k + 1
  around each bit position, all ones (`boundaries`);
- products ai * bw whose top bit sits at every bit position and whose fraction is exactly on, and one
  step off, the comparison with peak (the ridge) and the rounding tie; and products 2^k + r that
  are compute-bound only because of their bit k (r alone is below peak), for every k up to 2W - 1;
- for several levels, the binding comparison at every bit position: two memory-bound levels whose
  products differ by one bit, in both orders, and equal;
- for counts, quotients at every bit of the result with rounding ties, the saturation threshold and
  one step either side, division by zero with every kind of ops.

The benches (roofline_bench) run them as their `boundaries` test and the bulk sweeps
(roofline_bulk.stimulus) as the first vectors of every random sweep. Pure integers: no simulator.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar

from roofline_golden import QFormat

Edge = TypeVar("Edge", bound=tuple)


class RateEdge(NamedTuple):
    kind: str
    peak: int
    bws: tuple[int, ...]
    ais: tuple[int, ...]


class CountEdge(NamedTuple):
    kind: str
    ops: int
    bytes: int


class PlacementEdge(NamedTuple):
    kind: str
    peak: int
    bws: tuple[int, ...]
    ops: int
    bytes: tuple[int, ...]


def _unique(found: list[Edge]) -> list[Edge]:
    """The first edge of each set of values (the kind is a name, not a value)."""
    seen: dict[tuple, Edge] = {}
    for edge in found:
        seen.setdefault(tuple(edge)[1:], edge)
    return list(seen.values())


def boundaries(bits: int, around: bool = True) -> tuple[int, ...]:
    """0, 1, all ones and all ones less one, and around each bit position k: 2^k - 1, 2^k, 2^k + 1
    (around=False: 2^k and 2^k - 1 only), every one within `bits` bits, ascending."""
    top = (1 << bits) - 1
    values = {0, 1, top, max(top - 1, 0)}
    for k in range(1, bits):
        values |= {(1 << k) - 1, 1 << k} | ({(1 << k) + 1} if around else set())
    return tuple(sorted(value for value in values if value <= top))


def powers(bits: int) -> tuple[int, ...]:
    """0, every power of two and all ones of `bits` bits: a zero test or a dropped bit reads each."""
    return tuple(sorted({0, (1 << bits) - 1} | {1 << k for k in range(bits)}))


def _odd_factor(bits: int, fmt: QFormat) -> int:
    """An odd ai of about `bits` bits (2^a + 1, or 1): odd, so it has an inverse modulo 2^F."""
    a = min(max(bits, 0), fmt.width - 1)
    return (1 << a) + 1 if a > 0 and (1 << a) + 1 <= fmt.max_raw else 1


def _with_fraction(fmt: QFormat, top_bit: int, fraction: int) -> tuple[int, int] | None:
    """(ai, bw) whose product has its top bit near `top_bit` and exactly `fraction` in its low F
    bits (ai odd is invertible modulo 2^F); None when no such pair fits the format."""
    f, modulus = fmt.frac_bits, 1 << fmt.frac_bits
    for ai_bits in (top_bit - fmt.width + 1, top_bit // 2, 1, 0):
        ai = _odd_factor(ai_bits, fmt)
        low = fraction * pow(ai, -1, modulus) % modulus
        high = max(0, (1 << top_bit) // ai - low) >> f  # bw's bits above F: the product's magnitude
        for bw in (low + (high << f), low + ((high >> 1) << f), low):
            if bw <= fmt.max_raw and (ai * bw) % modulus == fraction:
                return ai, bw
    return None


def level_edges(fmt: QFormat) -> list[RateEdge]:
    """Edges of one level: (peak, bw, ai) as one-level RateEdges."""
    w, f, top, one = fmt.width, fmt.frac_bits, fmt.max_raw, fmt.one
    found: list[RateEdge] = []

    def add(kind: str, peak: int, bw: int, ai: int) -> None:
        if max(peak, bw, ai) <= top:
            found.append(RateEdge(kind, peak, (bw,), (ai,)))

    for value in boundaries(w):
        add("ai at a boundary, bw 1.0", top, one, value)      # cap = ai: every ai bit reaches the cap
        add("bw at a boundary, ai 1.0", top, value, one)      # and every bw bit
        add("peak at a boundary, on its ridge", value, value, one)  # ai * bw == peak: compute binds
        if value:
            add("peak at a boundary, one LSB below its ridge", value, value - 1, one)
    for top_bit in range(f, 2 * w):  # ai * bw = 2^k + r: compute-bound only because of its bit k
        for ai in sorted({max(1, -(-(1 << top_bit) // top)), min(top, 1 << max(0, top_bit - w + 1))}):
            bw = -(-(1 << top_bit) // ai)  # the smallest bw with ai * bw >= 2^k
            peak = (((ai * bw) - (1 << top_bit)) >> f) + 1  # above the rest r, at or below the product
            if bw <= top and peak <= min(top, (ai * bw) >> f):
                add("a product compute-bound only by its top bit", peak, bw, ai)
    half = 1 << (f - 1)
    comparisons = sorted({0, 1, (1 << f) - 1})  # on the ridge, one step above, one step below the next
    ties = sorted({half - 1, half, half + 1} - {1 << f})
    for top_bit in range(2 * w):
        if top_bit < f:  # a product below 1.0: it is its own fraction
            for product in sorted({(1 << top_bit) - 1, 1 << top_bit, (1 << top_bit) + 1}):
                if product <= top:
                    add("a product below one LSB's worth", top, 1, product)
                    add("a product below one LSB's worth, peak one LSB", 1, 1, product)
            continue
        for fraction in sorted(set(comparisons) | set(ties)):
            pair = _with_fraction(fmt, top_bit, fraction)
            if pair is None:
                continue
            ai, bw = pair
            whole = (ai * bw) >> f
            if fraction in comparisons:
                add("the product's whole part as peak (ridge, or a step above it)", whole, bw, ai)
                add("peak one above the product's whole part (a step below its ridge)", whole + 1, bw, ai)
            if fraction in ties:
                add("a rounding tie and a step either side", top, bw, ai)
    return _unique(found)


NEVER_BINDS = "a level that never binds"


def rate_edges(fmt: QFormat, levels: int) -> list[RateEdge]:
    """Every one-level edge at one level (level i % levels for the i-th), the others compute-bound
    (ai = bw = all ones); then, with two levels or more, the binding comparison at every bit."""
    top = fmt.max_raw
    found = []
    for index, edge in enumerate(level_edges(fmt)):
        at = index % levels
        bws, ais = [top] * levels, [top] * levels
        bws[at], ais[at] = edge.bws[0], edge.ais[0]
        found.append(RateEdge(edge.kind, edge.peak, tuple(bws), tuple(ais)))
    if levels < 2:
        return found
    for low, high, what in binding_pairs(fmt):
        for first, second in ((low, high), (high, low), (low, low)):
            bws, ais = [top] * levels, [top] * levels
            (ais[0], bws[0]), (ais[levels - 1], bws[levels - 1]) = first, second
            kind = "the binding comparison: " + (what if first != second else "equal products, the lower index binds")
            found.append(RateEdge(kind, top, tuple(bws), tuple(ais)))
    return _unique(found)


def binding_pairs(fmt: QFormat) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """Pairs of (ai, bw) whose products differ at one bit position: 2^j against 2^j - 2^b and
    2^j + 2^b (b the position of bw's bit), for every j the binding comparison reads (W + F bits)."""
    w = fmt.width
    pairs = []
    for j in range(w + fmt.frac_bits):
        a = min(j, w - 1)
        bw = 1 << (j - a)
        if bw > fmt.max_raw:
            continue
        power = (1 << a, bw)
        pairs.append((((1 << a) - 1, bw), power, f"products 2^{j} - 2^{j - a} and 2^{j}"))
        if (1 << a) + 1 <= fmt.max_raw:
            pairs.append((power, ((1 << a) + 1, bw), f"products 2^{j} and 2^{j} + 2^{j - a}"))
    return pairs


def count_edges(fmt: QFormat, count_bits: int) -> list[CountEdge]:
    """Divisions at every boundary of ops and bytes, at every bit of the quotient with rounding ties,
    and at the saturation threshold."""
    top_count = (1 << count_bits) - 1
    f, w = fmt.frac_bits, fmt.width
    found: list[CountEdge] = []

    def add(kind: str, ops: int, moved: int) -> None:
        if 0 <= ops <= top_count and 0 <= moved <= top_count:
            found.append(CountEdge(kind, ops, moved))

    for value in boundaries(count_bits):
        add("bytes at a boundary, ops all ones", top_count, value)
        add("ops at a boundary, bytes the same (ai 1.0, or ops = bytes = 0)", value, value)
        if value in (1, top_count, 1 << (count_bits - 1)):
            add("bytes = 0 with ops at a boundary", value, 0)
    # ops * 2^F / bytes = 2^k - 1/2 and 2^k + 1/2, ties at every bit of the result: bytes = 2^(F+1)
    # makes it ops / 2.
    if f + 1 < count_bits:
        for k in range(w + 1):
            for ops in ((2 << k) - 1, (2 << k) + 1):
                add("a quotient at a bit boundary, a rounding tie", ops, 1 << (f + 1))
    # The saturation threshold: round(ops * 2^F / bytes) >= 2^W  <=>  ops * 2^(F+1) >= (2^(W+1) - 1) * bytes.
    for moved in sorted({1, 3, (1 << (count_bits // 2)) + 1, top_count}):
        threshold = -(-((2 << w) - 1) * moved // (2 << f))
        for ops in (threshold - 1, threshold, threshold + 1):
            add("at the saturation threshold and one step either side", ops, moved)
    return _unique(found)


def placement_edges(fmt: QFormat, count_bits: int, levels: int) -> list[PlacementEdge]:
    """Placements from counts at the boundaries of ops, bytes, bw and peak, with level 0 the only
    level that moves bytes (the others move none, so never bind); and, with two levels, the binding
    comparison with ops at every boundary (a zero test of ops reads every bit)."""
    top_count, top, one = (1 << count_bits) - 1, fmt.max_raw, fmt.one
    rest_bw, rest_bytes = (top,) * (levels - 1), (0,) * (levels - 1)
    found: list[PlacementEdge] = []

    def add(kind: str, peak: int, bw: int, ops: int, moved: int) -> None:
        if max(peak, bw) <= top and max(ops, moved) <= top_count:
            found.append(PlacementEdge(kind, peak, (bw, *rest_bw), ops, (moved, *rest_bytes)))

    for value in boundaries(count_bits, around=False):
        add("ops and bytes at the same boundary (ai 1.0)", top, one, value, value)
    for value in powers(count_bits):
        add("bytes at a power of two under all-ones ops", top, one, top_count, value)
    for value in powers(fmt.width):
        add("bw at a power of two, ai 1.0", top, value, 1, 1)
        add("peak at a power of two, on its ridge", value, value, 1, 1)
        if value:
            add("peak at a power of two, one LSB below its ridge", value, value - 1, 1, 1)
    if levels >= 2:
        for ops in powers(count_bits):
            # bytes = ops at both levels (ai 1), level 1 at half the bandwidth: both memory-bound, level 1
            # the lower whenever ops > 0; with ops = 0 both caps are 0, a tie level 0 wins
            moved = (max(ops, 1),) * 2 + rest_bytes[1:]
            bws = (one, one >> 1, *rest_bw[1:])
            found.append(PlacementEdge("two memory-bound levels, the later lower, ops at a boundary", top, bws, ops, moved))
    return _unique(found)
