"""The bulk sweeps' stimulus without a simulator (roofline_bulk.stimulus): shards, exhaustive numbering,
every regime reached, values spread over bit lengths, each vector made again from its seed and number.
The spread and the kinds' shares are measured on the numpy reference the C kernel is held to draw for draw
(numpy_stimulus, tests/bulk/test_stimulus_kernel.py)."""

from __future__ import annotations

import numpy as np
import numpy_stimulus
import pytest
from bulk_configs import DEFAULT_SET, config  # noqa: F401

from roofline_bulk import stimulus
from roofline_bulk.config import BULK_TOPS
from roofline_bulk.stimulus import BLOCK, Shard, exhaustive_range, random_range
from roofline_core import vector_check
from roofline_core.edges import rate_edges
from roofline_core.vector_check import Vectors
from roofline_golden import QFormat


@pytest.mark.parametrize("total", [1, BLOCK - 1, 3 * BLOCK + 5])
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_are_disjoint_and_their_union_is_the_sweep(total: int, count: int) -> None:
    ranges = [Shard(index, count).range_of(total, BLOCK) for index in range(count)]
    covered = [n for start, stop in ranges for n in range(start, stop)]
    assert covered == list(range(total))


def test_sharded_vectors_equal_the_unsharded_sweep() -> None:
    fmt, levels, total = QFormat(16, 12), 2, 2 * BLOCK + 17
    whole = random_range(5, 0, total, fmt, levels)
    parts = [random_range(5, *Shard(i, 3).range_of(total, BLOCK), fmt, levels) for i in range(3)]
    joined = Vectors.concat(parts)
    for name in ("index", "peak", "bws", "ais"):
        np.testing.assert_array_equal(getattr(joined, name), getattr(whole, name))


def test_a_vector_is_made_again_from_its_seed_and_number() -> None:
    fmt = QFormat(24, 16)
    whole = random_range(9, 0, 2 * BLOCK, fmt, 3)
    for index in (0, 1, BLOCK - 1, BLOCK, 2 * BLOCK - 1):
        again = random_range(9, index, index + 1, fmt, 3)
        assert again.row(0) == whole.row(index)
    first_random = len(rate_edges(fmt, 3))
    assert random_range(10, first_random, first_random + 1, fmt, 3).row(0) != whole.row(first_random)


@pytest.mark.parametrize(("fmt", "levels"), [(QFormat(24, 16), 3), (QFormat(8, 8), 1), (QFormat(5, 4), 2)])
def test_every_sweep_starts_with_the_directed_edges_whatever_its_seed(fmt: QFormat, levels: int) -> None:
    edges = rate_edges(fmt, levels)
    for seed in (1, 2, 987654321):
        vectors = random_range(seed, 0, len(edges) + 1, fmt, levels)
        assert [vectors.row(i) for i in range(len(edges))] == [(e.peak, e.bws, e.ais) for e in edges]
    assert random_range(1, len(edges), len(edges) + 1, fmt, levels).row(0) != random_range(
        2, len(edges), len(edges) + 1, fmt, levels).row(0)


@pytest.mark.parametrize("text", ["", "0/1", "3/4"])
def test_shard_parse_accepts_i_of_n(text: str) -> None:
    assert str(Shard.parse(text)) == (text or "0/1")


@pytest.mark.parametrize("text", ["4/4", "-1/2", "1", "a/b", "0/0"])
def test_shard_parse_rejects_nonsense_with_a_message(text: str) -> None:
    with pytest.raises(ValueError, match="SHARD="):
        Shard.parse(text)


def test_exhaustive_numbers_every_combination_once() -> None:
    fmt = QFormat(2, 2)
    vectors = exhaustive_range(0, 1 << 12, fmt, 1)
    rows = {vectors.row(i) for i in range(len(vectors))}
    assert len(rows) == 1 << 12
    assert max(max(r[0], *r[1], *r[2]) for r in rows) == fmt.max_raw


def test_exhaustive_sweeps_that_are_too_big_are_refused() -> None:
    with pytest.raises(ValueError, match="2\\^120 vectors"):
        config(mode="exhaustive")


@pytest.mark.parametrize("top", BULK_TOPS)
def test_a_random_sweep_reaches_every_regime(top: str) -> None:
    cfg = config(top)
    vectors = cfg.vectors(0, BLOCK)
    want = vector_check.expected_outputs(cfg, vectors)
    bins = vector_check.coverage_bins(cfg, vectors, want, vector_check.products(vectors))
    assert all(hits > 0 for hits in bins.values()), bins


def test_log_uniform_values_spread_evenly_over_bit_lengths() -> None:
    rng = np.random.Generator(np.random.PCG64(5))
    bits, n = 12, 1 << 16
    values = numpy_stimulus._log_uniform(rng, bits, n)
    lengths = np.array([int(v).bit_length() for v in values])
    counts = np.bincount(lengths, minlength=bits + 1)
    assert counts.size == bits + 1  # no value of more than `bits` bits
    assert np.all(np.abs(counts - n / (bits + 1)) < 0.06 * n / (bits + 1)), counts
    top_length = values[lengths == bits]  # below the top bit, every bit is set about half the time
    set_share = [np.count_nonzero(top_length & np.uint64(1 << b)) / top_length.size for b in range(bits - 1)]
    assert all(0.44 < share < 0.56 for share in set_share), set_share


def test_each_kind_takes_its_share_of_a_level() -> None:
    rng = np.random.Generator(np.random.PCG64(6))
    n = 1 << 16
    kinds = numpy_stimulus._KIND_SLOTS[numpy_stimulus._below(rng, numpy_stimulus._KIND_SLOTS.size, n)]
    shares = np.bincount(kinds, minlength=len(stimulus.KINDS)) / n
    assert np.allclose(shares, np.array([1, 3, 3, 3, 1, 1]) / 12, atol=0.01), dict(zip(stimulus.KINDS, shares, strict=True))
