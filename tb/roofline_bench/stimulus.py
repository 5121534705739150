"""Seeded stimulus that reaches every regime the contract distinguishes (no simulator imports).

Rates are raw integers of the format. Each vector carries the `kind` it was built to reach,
so a log shows what a sweep covered and a mismatch says what it was aiming at.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from roofline_golden import QFormat

RATE_KINDS = (
    "log_uniform",
    "memory",
    "compute",
    "ridge",
    "ridge_step_below",
    "ridge_step_above",
    "rounding_tie",
    "product_overflow",
    "zero",
    "one_product_bit",
)
COUNT_KINDS = ("log_uniform", "exact", "rounding_tie", "near_saturation", "saturate", "div0", "zero_ops", "large_divisor")


@dataclass(frozen=True)
class RateVector:
    kind: str
    peak: int
    bws: tuple[int, ...]
    ais: tuple[int, ...]


@dataclass(frozen=True)
class CountVector:
    kind: str
    ops: int
    bytes: int


def log_uniform(rng: random.Random, bits: int) -> int:
    """A value whose bit length is uniform in 0..bits: small and large magnitudes alike."""
    length = rng.randint(0, bits)
    return rng.getrandbits(length) | (1 << (length - 1)) if length else 0


def rate_vectors(rng: random.Random, fmt: QFormat, levels: int, count: int) -> list[RateVector]:
    """`count` vectors; the first level is built to reach a kind, the others add ties and mixes."""
    vectors = []
    for index in range(count):
        kind = RATE_KINDS[index % len(RATE_KINDS)]
        peak, bw, ai = _anchor(rng, fmt, kind)
        bws, ais = [bw], [ai]
        for _ in range(levels - 1):
            bw, ai = _other_level(rng, fmt, peak, bws, ais)
            bws.append(bw)
            ais.append(ai)
        order = list(range(levels))
        rng.shuffle(order)  # the anchored level lands at any index
        vectors.append(RateVector(kind, peak, tuple(bws[i] for i in order), tuple(ais[i] for i in order)))
    return vectors


def _anchor(rng: random.Random, fmt: QFormat, kind: str) -> tuple[int, int, int]:
    """(peak, bw, ai) built to reach `kind`; retried until every value fits the format."""
    w, f, top = fmt.width, fmt.frac_bits, fmt.max_raw
    for _ in range(1000):
        if kind == "log_uniform":
            return log_uniform(rng, w), log_uniform(rng, w), log_uniform(rng, w)
        if kind == "zero":
            peak, bw, ai = log_uniform(rng, w), log_uniform(rng, w), log_uniform(rng, w)
            which = rng.randrange(4)
            return (0 if which in (0, 3) else peak, 0 if which == 1 else bw, 0 if which in (2, 3) else ai)
        if kind == "product_overflow":
            return log_uniform(rng, w), top - rng.getrandbits(w // 2), top - rng.getrandbits(w // 2)
        if kind == "one_product_bit":
            built = _one_product_bit(rng, fmt)
            if built is not None:
                return built
            continue
        if kind in ("memory", "compute"):
            peak, bw = log_uniform(rng, w), log_uniform(rng, w)
            ai = _ai_for(rng, fmt, peak, bw, memory=kind == "memory")
            if ai is not None:
                return peak, bw, ai
            continue
        product = _constructed_product(rng, fmt, kind)
        if product is None:
            continue
        ai, bw, target = product
        if kind == "rounding_tie":
            floor_peak = target >> f
            if floor_peak >= top:
                continue
            peak = rng.randint(floor_peak + 1, min(top, floor_peak * 2 + 1))
        else:
            peak = target >> f
        if ai <= top and bw <= top and peak <= top:
            return peak, bw, ai
    raise RuntimeError(f"could not build a {kind} vector for {fmt.name}")


def _one_product_bit(rng: random.Random, fmt: QFormat) -> tuple[int, int, int] | None:
    """A product 2^k + r (r < ai), compute-bound only because of its bit k: r alone is below
    peak. A product bit lost anywhere up to bit 2W-1 turns the verdict and the cap."""
    k = rng.randrange(2 * fmt.width)
    low_ai, high_ai = -(-(1 << k) // fmt.max_raw), min(fmt.max_raw, 1 << k)
    if low_ai > high_ai:
        return None
    ai = rng.randint(low_ai, high_ai)
    bw = -(-(1 << k) // ai)  # the smallest bw with ai * bw >= 2^k
    residue = ai * bw - (1 << k)
    lowest_peak = (residue >> fmt.frac_bits) + 1  # peak * 2^F > residue
    highest_peak = min(fmt.max_raw, (ai * bw) >> fmt.frac_bits)  # and <= the product
    if bw > fmt.max_raw or lowest_peak > highest_peak:
        return None
    return rng.randint(lowest_peak, highest_peak), bw, ai


def _constructed_product(rng: random.Random, fmt: QFormat, kind: str) -> tuple[int, int, int] | None:
    """(ai, bw, peak * 2^F or the product) with the low F product bits chosen by number theory."""
    w, f = fmt.width, fmt.frac_bits
    modulus = 1 << f
    if kind == "ridge":
        shift = rng.randint(0, f)
        ai = log_uniform(rng, max(1, w - shift)) << shift
        bw = log_uniform(rng, max(1, w - (f - shift))) << (f - shift)
        return ai, bw, ai * bw
    # Odd ai is invertible mod 2^F, so bw can put any residue in the product's fraction bits.
    ai = log_uniform(rng, w - 1) | 1
    residue = {"ridge_step_below": modulus - 1, "ridge_step_above": 1, "rounding_tie": modulus >> 1}[kind]
    bw_low = residue * pow(ai, -1, modulus) % modulus
    room = (fmt.max_raw << f) // max(ai, 1)  # keep the product's peak within the format
    high_limit = min(fmt.max_raw, room) >> f
    if high_limit < 0:
        return None
    bw = bw_low + (rng.randint(0, high_limit) << f)
    product = ai * bw
    if kind == "ridge_step_below":
        return ai, bw, product + 1
    if kind == "ridge_step_above":
        return ai, bw, product - 1
    return ai, bw, product


def _ai_for(rng: random.Random, fmt: QFormat, peak: int, bw: int, memory: bool) -> int | None:
    """An ai that puts (peak, bw, ai) under the memory roof, or on the compute side."""
    scaled_peak = peak << fmt.frac_bits
    if bw == 0:
        return None if not memory or peak == 0 else rng.randint(0, fmt.max_raw)
    ridge_ai = -(-scaled_peak // bw)  # smallest ai with ai * bw >= peak
    if memory:
        return None if ridge_ai == 0 else rng.randint(0, min(fmt.max_raw, ridge_ai - 1))
    return None if ridge_ai > fmt.max_raw else rng.randint(ridge_ai, min(fmt.max_raw, ridge_ai * 2 + 1))


def _other_level(
    rng: random.Random, fmt: QFormat, peak: int, bws: list[int], ais: list[int]
) -> tuple[int, int]:
    choice = rng.randrange(5)
    if choice == 0:  # the same product as an earlier level: a tie the lower index must win
        pick = rng.randrange(len(bws))
        return ais[pick], bws[pick]
    if choice in (1, 2):
        memory = choice == 1
        for _ in range(20):
            bw = log_uniform(rng, fmt.width)
            ai = _ai_for(rng, fmt, peak, bw, memory)
            if ai is not None:
                return bw, ai
    return log_uniform(rng, fmt.width), log_uniform(rng, fmt.width)


def count_vectors(rng: random.Random, fmt: QFormat, count_bits: int, count: int) -> list[CountVector]:
    limit = (1 << count_bits) - 1
    vectors = []
    unreachable: set[str] = set()  # kinds these counts cannot hold (a tie needs bytes >= 2^(F+1)): not retried
    for index in range(count):
        kind = COUNT_KINDS[index % len(COUNT_KINDS)]
        for _ in range(0 if kind in unreachable else 1000):
            ops, bytes_moved = _counts(rng, fmt, count_bits, kind)
            if 0 <= ops <= limit and 0 <= bytes_moved <= limit:
                vectors.append(CountVector(kind, ops, bytes_moved))
                break
        else:
            unreachable.add(kind)
            vectors.append(CountVector("log_uniform", log_uniform(rng, count_bits), log_uniform(rng, count_bits)))
    return vectors


def _counts(rng: random.Random, fmt: QFormat, count_bits: int, kind: str) -> tuple[int, int]:
    f, w = fmt.frac_bits, fmt.width
    if kind == "log_uniform":
        return log_uniform(rng, count_bits), log_uniform(rng, count_bits)
    if kind == "div0":
        return log_uniform(rng, count_bits), 0
    if kind == "zero_ops":
        return 0, log_uniform(rng, count_bits) | 1
    if kind == "large_divisor":  # bytes' top bit set: a restoring divider's remainder needs COUNT_BITS + 1 bits
        top = 1 << (count_bits - 1)
        # half the time ops' top bit too, so the partial remainder itself reaches its top bit
        ops = top | rng.getrandbits(count_bits - 1) if rng.getrandbits(1) else log_uniform(rng, count_bits)
        return ops, top | rng.getrandbits(count_bits - 1)
    if kind == "exact":  # bytes divides ops * 2^F
        bytes_moved = log_uniform(rng, count_bits // 2) | 1
        return bytes_moved * log_uniform(rng, count_bits // 2), bytes_moved
    if kind == "rounding_tie":  # ops * 2^F / bytes = q + 1/2 exactly
        scale = log_uniform(rng, max(1, count_bits - f - 2)) | 1
        return scale * (2 * log_uniform(rng, count_bits // 2) + 1), scale << (f + 1)
    if kind == "saturate":
        bytes_moved = log_uniform(rng, count_bits // 2) | 1
        return (bytes_moved << max(0, w - f)) + log_uniform(rng, count_bits), bytes_moved
    # near_saturation: ops * 2^F / bytes within a few LSBs of 2^W - 1/2, either side
    bytes_moved = (log_uniform(rng, max(1, count_bits - (w - f) - 1)) | 1) << rng.randint(0, f + 1)
    target = ((2 << w) - 1) * bytes_moved // (2 << f)
    return target + rng.randint(-3, 3), bytes_moved
