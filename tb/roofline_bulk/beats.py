"""The file layout of the bulk testbench (tb/hdl/roofline_bulk_tb.sv): input beats and result beats.

Each input beat holds LANES vectors; each result beat LANES results, lane 0 lowest. Icarus reads
and writes the beats themselves ($fread, $fwrite). On Verilator the files are "columns": one
little-endian 64-bit word per field, in the same order, which is also how the Verilator beats
hold them (a 64-bit word per field), so the DPI code copies beats as they lie.
"""

from __future__ import annotations

import mmap
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from roofline_core.vector_check import Outputs, Vectors

if TYPE_CHECKING:
    from roofline_bulk.config import SweepConfig

U64 = np.uint64


def pack(columns: NDArray[np.uint64], width: int) -> NDArray[np.uint64]:
    """Rows of `width`-bit fields, column 0 lowest, packed tight into little-endian 64-bit words."""
    rows, count = columns.shape
    by_column = np.ascontiguousarray(columns.T)  # one contiguous array per field: fast shifts
    words = np.zeros((count * width // 64 + 2, rows), dtype=np.uint64)
    for column in range(count):
        word, shift = divmod(column * width, 64)
        words[word] |= by_column[column] << U64(shift)
        if shift + width > 64:
            words[word + 1] |= by_column[column] >> U64(64 - shift)
    return np.ascontiguousarray(words.T).astype("<u8", copy=False)


def unpack(words: NDArray[np.uint64], offset: int, width: int) -> NDArray[np.uint64]:
    """The `width`-bit field at bit `offset` of each row of little-endian 64-bit words."""
    word, shift = divmod(offset, 64)
    value = words[:, word] >> U64(shift)
    if shift + width > 64:
        value |= words[:, word + 1] << U64(64 - shift)
    return value & U64((1 << width) - 1)


def columns(cfg: SweepConfig) -> bool:
    """Files of 64-bit words per field (Verilator's DPI I/O), not packed beats."""
    return cfg.sim == "verilator"


def input_beats(cfg: SweepConfig, count: int) -> int:
    """Input beats of a batch of `count` vectors: LANES vectors per beat, the last zero-padded."""
    return -(-count // cfg.lanes)


def column_words(cfg: SweepConfig, count: int) -> int:
    """64-bit words of a batch's input file in columns: 1 + 2L per vector, whole beats."""
    return input_beats(cfg, count) * cfg.lanes * (1 + 2 * cfg.levels)


def fill_columns(words: NDArray[np.uint64], vectors: Vectors) -> None:
    """Lay a batch out in `words` (column_words of them, say a mapped input file) as 64-bit words:
    per vector ai[0..L-1], bw[0..L-1], peak; the padding vectors of the last beat are zeros."""
    count, levels = len(vectors), vectors.ais.shape[1]
    table = words.reshape(-1, 1 + 2 * levels)
    table[:count, :levels] = vectors.ais
    table[:count, levels : 2 * levels] = vectors.bws
    table[:count, 2 * levels] = vectors.peak
    table[count:] = 0


def input_bytes(cfg: SweepConfig, vectors: Vectors) -> tuple[bytes, int]:
    """The input file of a batch and its beat count: LANES vectors per beat, zero-padded.

    Each lane holds ai[0..L-1], bw[0..L-1], peak from its low bits up; lane 0 is lowest.
    """
    lanes, width, levels = cfg.lanes, cfg.fmt.width, vectors.ais.shape[1]
    beats = input_beats(cfg, len(vectors))
    if columns(cfg):
        words = np.empty(column_words(cfg, len(vectors)), dtype="<u8")
        fill_columns(words, vectors)
        return words.tobytes(), beats
    padded = np.zeros((beats * lanes, 1 + 2 * levels), dtype="<u8")
    padded[: len(vectors), :levels] = vectors.ais
    padded[: len(vectors), levels : 2 * levels] = vectors.bws
    padded[: len(vectors), 2 * levels] = vectors.peak
    lane_bits = padded.shape[1] * width
    if width % 8 == 0:
        # Whole-byte fields: each one's big-endian bytes, most significant field first.
        field_bytes = width // 8
        big_fields = padded[:, ::-1].astype(">u8").view(np.uint8).reshape(len(padded), -1, 8)[:, :, 8 - field_bytes:]
        per_lane = big_fields.reshape(beats, lanes, -1)[:, ::-1, :]
        return np.ascontiguousarray(per_lane).tobytes(), beats
    if lane_bits % 8 == 0:
        # Lanes are whole bytes: pack each vector on its own (contiguous, so fast), then lay
        # the lanes of a beat side by side, lane 0 last in big-endian order.
        lane_bytes = lane_bits // 8
        little = pack(padded, width).view(np.uint8)[:, :lane_bytes]
        big = little[:, ::-1].reshape(beats, lanes, lane_bytes)[:, ::-1, :]
        return np.ascontiguousarray(big).tobytes(), beats
    per_beat = padded.reshape(beats, -1)
    beat_bytes = -(-per_beat.shape[1] * width // 8)
    little = pack(per_beat, width).view(np.uint8)[:, :beat_bytes]
    return np.ascontiguousarray(little[:, ::-1]).tobytes(), beats  # $fread is big-endian


def result_fields(cfg: SweepConfig) -> list[tuple[str, int]]:
    """One lane's output fields from its low bits up, as roofline_bulk_tb packs them."""
    fields = [("cap", cfg.fmt.width), ("mem_bound", 1)]
    if cfg.hierarchy:
        fields.append(("binding", cfg.levels.bit_length()))  # $clog2(L + 1) bits
        fields += [(f"level_cap{level}", cfg.fmt.width) for level in range(cfg.levels)]
    return fields


def result_beat_bytes(cfg: SweepConfig) -> int:
    """One output beat's bytes: every lane's result fields, in whole 32-bit words (or 64-bit words
    per field, in columns)."""
    if columns(cfg):
        return 8 * cfg.lanes * len(result_fields(cfg))
    return 4 * -(-cfg.lanes * sum(width for _, width in result_fields(cfg)) // 32)


def read_outputs(cfg: SweepConfig, data: bytes | mmap.mmap, count: int) -> Outputs:
    """The first `count` results of an output file's bytes (or its mapping: nothing returned is a
    view of it)."""
    fields = result_fields(cfg)
    beat_bytes = result_beat_bytes(cfg)
    beats = -(-count // cfg.lanes)
    if len(data) < beats * beat_bytes:
        raise AssertionError(f"the bulk testbench wrote {len(data) // beat_bytes} result beats; {beats} were sent")
    if columns(cfg):
        table = np.frombuffer(data, dtype="<u8", count=count * len(fields)).reshape(count, len(fields))
        values = {name: table[:, column] for column, (name, _) in enumerate(fields)}
    else:
        values = _unpack_beats(cfg, data, beats, beat_bytes, count)
    level_caps = (
        np.stack([values[f"level_cap{level}"] for level in range(cfg.levels)], axis=1)
        if cfg.hierarchy
        else np.zeros((count, 0), dtype=np.uint64)
    )
    mem_bound = values["mem_bound"].astype(bool)
    # One level: level 0 binds when memory-bound, else the compute roof (1). ~mem_bound is the same
    # as np.where(mem_bound, 0, 1) at a twentieth of the cost.
    binding = values["binding"].astype(np.int64) if cfg.hierarchy else (~mem_bound).astype(np.int64)
    return Outputs(np.ascontiguousarray(values["cap"]), mem_bound, binding, level_caps)


def _unpack_beats(cfg: SweepConfig, data: bytes, beats: int, beat_bytes: int, count: int) -> dict[str, NDArray[np.uint64]]:
    """Each result field of the first `count` results, from packed result beats."""
    fields = result_fields(cfg)
    lane_width = sum(width for _, width in fields)
    raw = np.zeros((beats, -(-beat_bytes // 8) * 8 + 8), dtype=np.uint8)
    raw[:, :beat_bytes] = np.frombuffer(data, dtype=np.uint8, count=beats * beat_bytes).reshape(beats, beat_bytes)
    words = raw.view("<u8")
    by_field: dict[str, list[NDArray[np.uint64]]] = {name: [] for name, _ in fields}
    for lane in range(cfg.lanes):
        offset = lane * lane_width
        for name, width in fields:
            by_field[name].append(unpack(words, offset, width))
            offset += width
    return {name: np.stack(parts, axis=1).reshape(-1)[:count] for name, parts in by_field.items()}
