"""The bulk stimulus as numpy made it before its C kernel (tb/roofline_bulk/stimulus_kernel.c): the
specification the kernel is held to, draw for draw (tests/bulk/test_stimulus_kernel.py), and what the
kinds' shares and the bit lengths' spread are measured on (tests/bulk/test_stimulus.py).

Kept as it was: a change here is a change to every sweep's vectors, which the kernel must then make too.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from roofline_bulk.stimulus import BLOCK, KINDS, _put_edges
from roofline_core.vector_check import Vectors
from roofline_golden import QFormat
from roofline_golden.vector import mul_wide

U64 = np.uint64
Array = NDArray[np.uint64]

# Each kind's share of a level, in twelfths: a kind is drawn as one of 12 equally likely slots.
_KIND_SLOTS = np.repeat(np.arange(len(KINDS), dtype=np.uint8), [1, 3, 3, 3, 1, 1])
_NEAR_RIDGE = KINDS.index("near_ridge")
# Residues of ai*bw modulo 2^F that the "residue" kind aims at, relative to half an LSB:
# one full-precision step below and above the ridge, a rounding tie and one step either side.
_RESIDUE_CHOICES = ("step_below", "step_above", "tie", "tie_below", "tie_above")


def random_block(seed: int, block: int, fmt: QFormat, levels: int, size: int = BLOCK) -> Vectors:
    """The first `size` vectors of block `block` of the sweep with this seed."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, block])))
    peak = _log_uniform(rng, fmt.width, BLOCK)
    bws = np.empty((BLOCK, levels), dtype=np.uint64)
    ais = np.empty((BLOCK, levels), dtype=np.uint64)
    # A level that chose peak (or was built around it) anchors it: later levels keep it.
    anchored = np.zeros(BLOCK, dtype=bool)
    for level in range(levels):
        kinds = _KIND_SLOTS[_below_index(rng, len(_KIND_SLOTS), BLOCK)]
        peak_override = _level(rng, fmt, peak, kinds, bws[:, level], ais[:, level])
        takes_peak = peak_override != 0
        if level > 0:  # nothing is anchored before the first level
            takes_peak &= ~anchored
        peak = np.where(takes_peak, peak_override - U64(1), peak)
        if level < levels - 1:  # the last level's anchors bind no later level
            anchored |= takes_peak
            anchored |= kinds == _NEAR_RIDGE
    if levels > 1:
        _add_level_ties(rng, bws, ais)
    if block == 0:
        _put_edges(fmt, levels, peak, bws, ais)
    index = np.arange(block * BLOCK, block * BLOCK + size, dtype=np.int64)
    return Vectors(index, peak[:size], bws[:size], ais[:size])


# The functions below draw from the generator in a fixed order, and any change to that order, to
# how many values a call draws, or to the arithmetic on them changes every sweep's vectors: the
# operations are written in place (fewer temporaries) and indices as int64, never re-ordered.


def _uniform(rng: np.random.Generator, bits: int, n: int) -> Array:
    """Uniform over [0, 2^bits): the top bits of the generator's raw 64-bit output."""
    values = rng.bit_generator.random_raw(n)
    values >>= U64(64 - bits)
    return values


def _below(rng: np.random.Generator, choices: int, n: int) -> NDArray[np.uint64]:
    """n integers uniform over [0, choices), each from 32 raw bits by multiply-and-shift (Lemire's
    method without rejection: no value is more likely than another by more than choices / 2^32)."""
    raw32 = rng.bit_generator.random_raw(-(-n // 2)).view(np.uint32)[:n]
    values = raw32.astype(np.uint64)
    values *= U64(choices)
    values >>= U64(32)
    return values


def _below_index(rng: np.random.Generator, choices: int, n: int) -> NDArray[np.int64]:
    """The same draws as _below, as int64 for indexing (a uint64 index is converted on every use)."""
    return _below(rng, choices, n).view(np.int64)  # each value < 2^32: the same number either way


def _log_uniform(rng: np.random.Generator, bits: int, n: int) -> Array:
    """Bit length uniform in 0 .. bits, so small and large magnitudes are equally common: a value
    of length l > 0 is its top bit 2^(l-1) over l-1 uniform bits; length 0 is 0."""
    length = _below(rng, bits + 1, n)
    # Its top bit 2^(l-1) (none for l = 0) and the mask of the l-1 bits below it, by arithmetic:
    # two table look-ups cost more. Every shift count stays below 64.
    if bits < 64:
        power = np.left_shift(U64(1), length)  # 2^l
        top_bit = power >> U64(1)
        power -= U64(1)
        low_mask = power >> U64(1)  # (2^l - 1) >> 1: l-1 ones, and none for l = 0
    else:
        shift = np.maximum(length, U64(1))
        shift -= U64(1)
        top_bit = np.left_shift(U64(1), shift)
        top_bit *= length != 0
        low_mask = np.maximum(top_bit, U64(1))
        low_mask -= U64(1)
    values = rng.bit_generator.random_raw(n)
    values &= low_mask
    values |= top_bit
    return values


def _level(rng: np.random.Generator, fmt: QFormat, peak: Array, kinds: NDArray[np.uint8], bw: Array, ai: Array) -> Array:
    """One level's bw and ai, each vector built for its kind, into `bw` and `ai` (the level's
    columns); returns peak_override + 1, or 0 where the level leaves peak alone."""
    n, w = peak.size, fmt.width
    # bw and ai need no zeros first: every row is of one kind, and each kind fills its rows.
    override = np.zeros(n, dtype=np.uint64)
    for kind_index, kind in enumerate(KINDS):
        rows = np.flatnonzero(kinds == kind_index)
        m = rows.size
        if kind == "uniform":
            bw[rows], ai[rows] = _uniform(rng, w, m), _uniform(rng, w, m)
        elif kind == "log_uniform":
            bw[rows], ai[rows] = _log_uniform(rng, w, m), _log_uniform(rng, w, m)
        elif kind == "near_ridge":
            bw[rows], ai[rows] = _near_ridge(rng, fmt, peak[rows])
        elif kind == "residue":
            bw[rows], ai[rows], residue_peak = _residue_level(rng, fmt, m)
            override[rows] = residue_peak + U64(1)
        elif kind == "extreme":
            corners = np.array([0, 1, fmt.one, fmt.max_raw - 1, fmt.max_raw], dtype=np.uint64)
            bw[rows], ai[rows] = corners[_below_index(rng, corners.size, m)], corners[_below_index(rng, corners.size, m)]
            takes_peak = _below(rng, 2, m) == 0
            override[rows] = np.where(takes_peak, corners[_below_index(rng, corners.size, m)] + U64(1), U64(0))
        elif kind == "zero":
            bw[rows], ai[rows] = _log_uniform(rng, w, m), _log_uniform(rng, w, m)
            which = _below(rng, 3, m)
            bw[rows[which == 0]] = 0
            ai[rows[which == 1]] = 0
            override[rows[which == 2]] = 1  # peak = 0
    return override


def _near_ridge(rng: np.random.Generator, fmt: QFormat, peak: Array) -> tuple[Array, Array]:
    """ai = floor(peak * 2^F / bw) + {-1, 0, 1}: the intensities either side of the ridge."""
    m, w, f = peak.size, fmt.width, fmt.frac_bits
    bw = _log_uniform(rng, w, m)
    if w + f > 62:  # peak * 2^F would not fit the int64 arithmetic below
        return bw, _log_uniform(rng, w, m)
    bw |= bw == 0  # at least 1
    ridge_ai = peak << U64(f)
    ridge_ai //= bw
    ai = ridge_ai.view(np.int64)  # below 2^62: the same number as int64
    ai += _below(rng, 3, m).view(np.int64)
    ai -= 1
    np.clip(ai, 0, fmt.max_raw, out=ai)
    return bw, ai.view(np.uint64)  # now 0 .. max_raw


def _residue_level(rng: np.random.Generator, fmt: QFormat, n: int) -> tuple[Array, Array, Array]:
    """(bw, ai, peak) with ai*bw at a chosen residue modulo 2^F: ridge steps and rounding ties.

    ai is odd, so it has an inverse modulo 2^F, and bw = inverse * target (mod 2^F) puts
    ai*bw on the target residue. Bit lengths are chosen so the product stays below
    2^(W+F), where peak can sit right on it.
    """
    w, f = fmt.width, fmt.frac_bits
    ai_bits = _below(rng, w, n)
    ai_bits += U64(1)
    spare_bits = U64(w) - ai_bits  # W - ai_bits
    ai = _uniform(rng, w, n)
    ai >>= spare_bits
    ai |= U64(1)
    inverse = ai.copy()  # right in the low 3 bits: an odd square is 1 modulo 8
    step = np.empty_like(ai)
    for _ in range(math.ceil(math.log2(f / 3)) if f > 3 else 0):  # Newton doubles the right bits
        np.multiply(ai, inverse, out=step)
        np.subtract(U64(2), step, out=step)
        inverse *= step
    modulus_mask = U64((1 << f) - 1)
    choice = _below(rng, len(_RESIDUE_CHOICES), n)
    half = 1 << (f - 1)
    targets = np.array([(1 << f) - 1, 1, half, (half - 1) % (1 << f), (half + 1) % (1 << f)], dtype=np.uint64)
    bw_low = inverse
    bw_low *= targets[choice.view(np.int64)]
    bw_low &= modulus_mask
    # ai < 2^ai_bits and bw < 2^(F + high_bits) with high_bits <= W - ai_bits: the product
    # stays below 2^(W+F), and bw below 2^W.
    high_bits = _below(rng, fmt.int_bits + 1, n)
    np.minimum(high_bits, spare_bits, out=high_bits)
    bw = _uniform(rng, w, n)
    bw >>= np.subtract(U64(w), high_bits, out=high_bits)
    bw <<= U64(f)
    bw |= bw_low
    # peak sits on the product's ridge: step_below (product = peak<<F - 1) rounds the product
    # up, step_above rounds it down; for the tie kinds a random peak decides the roof.
    if w + f <= 64:  # the product fits 64 bits (see above): the same ridge without the 128-bit product
        ridge = ai * bw
        ridge >>= U64(f)
    else:
        product_hi, product_lo = mul_wide(ai, bw)
        ridge = (product_lo >> U64(f)) | (product_hi << U64(64 - f))
    ridge += choice == 0  # one more on step_below
    on_ridge = (choice < 2) & (ridge <= U64(fmt.max_raw))  # else a random peak
    return bw, ai, np.where(on_ridge, ridge, _log_uniform(rng, w, n))


def _add_level_ties(rng: np.random.Generator, bws: Array, ais: Array) -> None:
    """For about one vector in eight, give one level the same ai*bw as another (the lower binds)."""
    n, levels = bws.shape
    tie = _below(rng, 8, n) == 0
    source = _below(rng, levels, n)
    target = (source + U64(1) + _below(rng, levels - 1, n)) % U64(levels)
    swap = _below(rng, 2, n) == 0  # ai and bw exchanged: the same product from other inputs
    rows = np.flatnonzero(tie)
    src, dst, exchanged = source[rows].view(np.int64), target[rows].view(np.int64), swap[rows]
    new_bw = np.where(exchanged, ais[rows, src], bws[rows, src])
    new_ai = np.where(exchanged, bws[rows, src], ais[rows, src])
    bws[rows, dst] = new_bw
    ais[rows, dst] = new_ai
