"""The bulk testbench's file layouts (roofline_bulk.beats): each vector where the wrapper reads it, each
result read back field by field, a short output file an error."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from bulk_configs import DEFAULT_SET, config  # noqa: F401

from roofline_bulk import beats as layout
from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_core import vector_check
from roofline_core.contract import ParamSet
from roofline_core.vector_check import Outputs


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
    data, beats = layout.input_bytes(cfg, vectors)
    assert beats == -(-1001 // lanes)
    assert decode_input_file(cfg, data, 1001) == [vectors.row(i) for i in range(1001)]


def encode_output_file(cfg: SweepConfig, results: Outputs) -> bytes:
    """Result beats as the wrapper writes them (on Verilator, a 64-bit word per field), built with
    Python integers."""
    fields = layout.result_fields(cfg)
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
    want = vector_check.expected_outputs(cfg, vectors)
    got = layout.read_outputs(cfg, encode_output_file(cfg, want), 777)
    for name in ("cap", "mem_bound", "binding", "level_caps"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_a_short_output_file_is_an_error_not_a_pass(sim: str) -> None:
    cfg = replace(config(), sim=sim)
    vectors = cfg.vectors(0, 64)
    data = encode_output_file(cfg, vector_check.expected_outputs(cfg, vectors))
    with pytest.raises(AssertionError, match="result beats"):
        layout.read_outputs(cfg, data[: len(data) // 2], 64)
