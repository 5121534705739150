"""The bulk path without a simulator: stimulus, shards, the file layouts, the checker, replays."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from roofline_bulk import check, stimulus, wire
from roofline_bulk import replay as replay_file
from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_bulk.stimulus import BLOCK, Shard, exhaustive_range, random_range
from roofline_core import judge
from roofline_core.contract import ParamSet
from roofline_core.judge import Outputs, Vectors
from roofline_golden import QFormat, vector

DEFAULT_SET = ParamSet()


def config(top: str = "roofline_attainable", param_set: ParamSet = DEFAULT_SET, lanes: int = 8, **kw: object) -> SweepConfig:
    return SweepConfig(top, "verilator", param_set, seed=11, lanes=lanes, **kw)  # type: ignore[arg-type]


# --- stimulus and shards -----------------------------------------------------------------


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
    assert random_range(10, 0, 100, fmt, 3).row(0) != whole.row(0)


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
    want = judge.expected_outputs(cfg, vectors)
    bins = judge.coverage_bins(cfg, vectors, want, judge.products(vectors))
    assert all(hits > 0 for hits in bins.values()), bins


def test_log_uniform_values_spread_evenly_over_bit_lengths() -> None:
    rng = np.random.Generator(np.random.PCG64(5))
    bits, n = 12, 1 << 16
    values = stimulus._log_uniform(rng, bits, n)
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
    kinds = stimulus._KIND_SLOTS[stimulus._below(rng, stimulus._KIND_SLOTS.size, n)]
    shares = np.bincount(kinds, minlength=len(stimulus.KINDS)) / n
    assert np.allclose(shares, np.array([1, 3, 3, 3, 1, 1]) / 12, atol=0.01), dict(zip(stimulus.KINDS, shares, strict=True))


# --- the file layouts roofline_bulk_tb reads and writes --------------------------------------


def decode_input_file(cfg: SweepConfig, data: bytes, count: int) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """The layout the wrapper's comment gives, decoded with Python integers: an independent reader."""
    w, levels, lanes = cfg.fmt.width, cfg.levels, cfg.lanes
    if cfg.sim == "verilator":  # one little-endian 64-bit word per field: ai[..], bw[..], peak
        words = [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)]
        assert len(words) == -(-count // lanes) * lanes * (1 + 2 * levels)
        per = 1 + 2 * levels
        rows = [(v[2 * levels], tuple(v[levels : 2 * levels]), tuple(v[:levels]))
                for v in (words[i * per : (i + 1) * per] for i in range(count))]
        return rows
    lane_bits = w * (1 + 2 * levels)
    beat_bytes = -(-lanes * lane_bits // 8)
    rows = []
    for start in range(0, len(data), beat_bytes):
        beat = int.from_bytes(data[start : start + beat_bytes], "big")
        for lane in range(lanes):
            fields = [(beat >> (lane * lane_bits + k * w)) & cfg.fmt.max_raw for k in range(1 + 2 * levels)]
            rows.append((fields[2 * levels], tuple(fields[levels : 2 * levels]), tuple(fields[:levels])))
    return rows[:count]


@pytest.mark.parametrize("lanes", [1, 3, 8])
@pytest.mark.parametrize(("top", "param_set"), [
    ("roofline_attainable", ParamSet(24, 16)),
    ("roofline_hierarchy", ParamSet(16, 12, 4)),
    ("roofline_hierarchy", ParamSet(8, 8, 1)),
])
@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_the_input_file_holds_each_vector_where_the_wrapper_reads_it(lanes: int, top: str, param_set: ParamSet,
                                                                     sim: str) -> None:
    cfg = replace(config(top, param_set, lanes), sim=sim)
    vectors = cfg.vectors(0, 1001)
    data, beats = wire.input_bytes(cfg, vectors)
    assert beats == -(-1001 // lanes)
    assert decode_input_file(cfg, data, 1001) == [vectors.row(i) for i in range(1001)]


def encode_output_file(cfg: SweepConfig, results: Outputs) -> bytes:
    """Result beats as the wrapper writes them (on Verilator, a 64-bit word per field), built with
    Python integers."""
    fields = wire.result_fields(cfg)
    if cfg.sim == "verilator":
        count, lanes = results.cap.size, cfg.lanes
        words = []
        for position in range(-(-count // lanes) * lanes):
            row = min(position, count - 1)  # padding lanes repeat the last result
            words += [int(results.cap[row]), int(results.mem_bound[row])]
            if cfg.hierarchy:
                words += [int(results.binding[row]), *(int(c) for c in results.level_caps[row])]
        return b"".join(word.to_bytes(8, "little") for word in words)
    lane_bits = sum(width for _, width in fields)
    beat_bytes = 4 * -(-cfg.lanes * lane_bits // 32)
    count = results.cap.size
    data = bytearray()
    for first in range(0, count, cfg.lanes):
        beat = 0
        for lane in range(cfg.lanes):
            row = min(first + lane, count - 1)  # padding lanes repeat the last result
            values = [int(results.cap[row]), int(results.mem_bound[row])]
            if cfg.hierarchy:
                values += [int(results.binding[row]), *(int(c) for c in results.level_caps[row])]
            offset = lane * lane_bits
            for (_, width), value in zip(fields, values, strict=True):
                beat |= value << offset
                offset += width
        data += beat.to_bytes(beat_bytes, "little")
    return bytes(data)


@pytest.mark.parametrize("top", BULK_TOPS)
@pytest.mark.parametrize("lanes", [1, 5, 8])
@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_the_output_file_is_read_back_field_by_field(top: str, lanes: int, sim: str) -> None:
    cfg = replace(config(top, ParamSet(16, 12, 4), lanes), sim=sim)
    vectors = cfg.vectors(0, 777)
    want = judge.expected_outputs(cfg, vectors)
    got = wire.read_outputs(cfg, encode_output_file(cfg, want), 777)
    for name in ("cap", "mem_bound", "binding", "level_caps"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_a_short_output_file_is_an_error_not_a_pass(sim: str) -> None:
    cfg = replace(config(), sim=sim)
    vectors = cfg.vectors(0, 64)
    data = encode_output_file(cfg, judge.expected_outputs(cfg, vectors))
    with pytest.raises(AssertionError, match="result beats"):
        wire.read_outputs(cfg, data[: len(data) // 2], 64)


# --- the checker ---------------------------------------------------------------------------


def test_a_wrong_cap_is_reported_with_inputs_expected_actual_and_a_rerun_line() -> None:
    cfg = config(count=5000)
    vectors = cfg.vectors(0, 5000)
    want = judge.expected_outputs(cfg, vectors)
    memory_rows = np.flatnonzero(want.mem_bound)
    row = int(memory_rows[7])
    wrong_cap = want.cap.copy()
    wrong_cap[row] ^= np.uint64(1 << 3)
    outcome = check.check_batch(cfg, vectors, Outputs(wrong_cap, want.mem_bound, want.binding, want.level_caps))
    assert outcome.mismatched == 1 and outcome.failing is not None
    assert outcome.failing.row(0) == vectors.row(row)
    report = outcome.reports[0]
    rerun = f"rerun: make sweep TOP=roofline_attainable SIM=verilator INT_BITS=24 FRAC_BITS=16 SEED=11 N=5000 LANES=8 ONLY={row}"
    for text in (f"vector {row}]", "peak_i = 0x", "GB/s", "<-- differs", "should bind: memory level 0", rerun):
        assert text in report, report


def test_a_hierarchy_binding_error_is_caught() -> None:
    cfg = config("roofline_hierarchy", count=3000)
    vectors = cfg.vectors(0, 3000)
    want = judge.expected_outputs(cfg, vectors)
    binding = want.binding.copy()
    binding[10] = (binding[10] + 1) % (cfg.levels + 1)
    outcome = check.check_batch(cfg, vectors, Outputs(want.cap, want.mem_bound, binding, want.level_caps))
    assert outcome.mismatched == 1 and "binding_o" in outcome.reports[0]


@pytest.mark.parametrize("param_set", [ParamSet(24, 16), ParamSet(40, 23), ParamSet(4, 4)], ids=lambda p: p.tag)
def test_the_error_bound_check_does_not_lean_on_the_model(param_set: ParamSet) -> None:
    """One LSB off the model's cap is outside the bound, except on a rounding tie (64- and 128-bit paths)."""
    fmt = param_set.params.fmt
    vectors = config(param_set=param_set).vectors(0, BLOCK)
    peak, bw, ai = vectors.peak, vectors.bws[:, 0], vectors.ais[:, 0]
    cap, mem_bound = vector.attainable(fmt, peak, bw, ai)
    product = vector.mul_wide(ai, bw)
    assert not judge.outside_error_bound(fmt, peak, product, cap).any()
    nudged = np.where(cap > 0, cap - np.uint64(1), cap)
    flagged = judge.outside_error_bound(fmt, peak, product, nudged)
    f = fmt.frac_bits
    tie = (product[1] & np.uint64((1 << f) - 1)) == np.uint64(1 << (f - 1))
    changed = nudged != cap
    assert changed.any()
    assert np.array_equal(flagged[changed], ~(tie & mem_bound)[changed])


def test_failing_vectors_are_saved_and_replayed(tmp_path: Path) -> None:
    cfg = config("roofline_hierarchy")
    failing = cfg.vectors(100, 140)
    path = tmp_path / "failing.npz"
    replay_file.save_failures(path, cfg, failing)
    replay = SweepConfig(cfg.top, cfg.sim, cfg.param_set, cfg.seed, mode="replay", replay=str(path))
    assert replay.batches() == [(0, 40)]
    again = replay.vectors(0, 40)
    assert [again.row(i) for i in range(40)] == [failing.row(i) for i in range(40)]
    assert list(again.index) == list(range(100, 140))
    other = SweepConfig("roofline_attainable", "verilator", cfg.param_set, 1, mode="replay", replay=str(path))
    with pytest.raises(ValueError, match="holds roofline_hierarchy vectors"):
        other.vectors(0, 1)


def test_a_config_travels_through_the_environment() -> None:
    cfg = config("roofline_hierarchy", ParamSet(16, 12, 4), lanes=3, count=999, shard=Shard(1, 4), only=None)
    assert SweepConfig.from_env(cfg.to_env()) == cfg
