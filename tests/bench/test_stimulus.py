"""The seeded stimulus reaches every regime it claims and reproduces from its seed."""

from __future__ import annotations

import random

import pytest

from roofline_bench.stimulus import COUNT_KINDS, RATE_KINDS, count_vectors, rate_vectors
from roofline_golden import QFormat, fixed

FORMATS = [QFormat(24, 16), QFormat(16, 12), QFormat(8, 8)]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_rate_vectors_hit_each_regime(fmt: QFormat) -> None:
    vectors = rate_vectors(random.Random(7), fmt, 3, 900)
    assert {v.kind for v in vectors} == set(RATE_KINDS)
    scaled = lambda v: v.peak << fmt.frac_bits  # noqa: E731
    products = [[a * b for a, b in zip(v.ais, v.bws, strict=True)] for v in vectors]
    pairs = list(zip(vectors, products, strict=True))
    hits = {
        "ridge": any(scaled(v) in p for v, p in pairs),
        "step below": any(scaled(v) - 1 in p for v, p in pairs),
        "step above": any(scaled(v) + 1 in p for v, p in pairs),
        "rounding tie": any(x < scaled(v) and x % fmt.one == fmt.one // 2 for v, p in pairs for x in p),
        "level tie": any(len(set(x for x in p if x < scaled(v))) < len([x for x in p if x < scaled(v)])
                         for v, p in pairs),
    }
    assert all(hits.values()), hits
    bindings = {fixed.hierarchy(fmt, v.peak, v.bws, v.ais).binding for v in vectors}
    assert bindings == {0, 1, 2, 3}


def test_count_vectors_hit_saturation_div0_and_ties() -> None:
    fmt = QFormat(24, 16)
    vectors = count_vectors(random.Random(7), fmt, 64, 700)
    assert {v.kind for v in vectors} == set(COUNT_KINDS)
    outs = [fixed.intensity(fmt, 64, v.ops, v.bytes) for v in vectors]
    assert any(o.sat and not o.div0 for o in outs) and any(o.div0 for o in outs)
    assert any(not o.sat for o in outs)
    ties = [v for v in vectors if v.bytes and (v.ops << (fmt.frac_bits + 1)) % v.bytes == 0
            and (v.ops << (fmt.frac_bits + 1)) // v.bytes % 2 == 1]
    assert ties


def test_same_seed_same_vectors_other_seed_other_vectors() -> None:
    fmt = QFormat(24, 16)
    assert rate_vectors(random.Random("1:x"), fmt, 3, 50) == rate_vectors(random.Random("1:x"), fmt, 3, 50)
    assert rate_vectors(random.Random("1:x"), fmt, 3, 50) != rate_vectors(random.Random("2:x"), fmt, 3, 50)
