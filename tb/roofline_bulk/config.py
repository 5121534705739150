"""One bulk sweep's settings: what is swept, on which simulator, in which batches."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from roofline_bulk.replay import load_replay
from roofline_bulk.stimulus import BLOCK, MAX_EXHAUSTIVE_BITS, Shard, exhaustive_bits, exhaustive_range, random_range
from roofline_core.config import BULK_COUNT, decode, encode
from roofline_core.contract import MODULES, ParamSet, tops_with
from roofline_core.vector_check import Vectors
from roofline_golden import QFormat
from roofline_golden.cases import Params

BULK_TOPS = tops_with("bulk")
MODES = ("random", "exhaustive", "replay")
EXHAUSTIVE_FORMAT = QFormat(4, 4)  # make exhaustive's format when none is given: 16.7M vectors
# One stimulus block per batch: a batch's numpy temporaries are half those of two blocks', its
# block needs no copy into a batch of its own, and the first batch of a sweep (made before the
# simulator has anything to do) comes twice as soon. A 10^7 sweep cost 5-7% less CPU than with
# batches of 2^17.
DEFAULT_BATCH = BLOCK


def has_levels(top: str) -> bool:
    """A module with memory levels (LEVELS), not the one-level roofline_attainable."""
    return "LEVELS" in MODULES[top].parameters


def default_lanes(sim: str, top: str) -> int:
    """Vectors per clock. Icarus is fastest at 1. On Verilator, 32 lanes of the one-level module ran
    10^7 vectors 20-30% faster than 8, and 64 about 10% faster than 32 (1.83x against 2.02x of the
    native loop's time, medians of 5 in one run; the simulator's CPU 0.75 s against 1.07 s): each
    clock costs a few microseconds besides its lanes. 128 gained nothing more. A module with memory
    levels is bound by its checks, not its simulation, and 32 lanes only doubled its build time."""
    if sim != "verilator":
        return 1
    return 8 if has_levels(top) else 64


@dataclass(frozen=True)
class SweepConfig:
    """One bulk sweep: what is swept, on which simulator, and how it is cut into batches."""

    top: str
    sim: str
    param_set: ParamSet
    seed: int
    count: int = BULK_COUNT
    mode: str = "random"
    shard: Shard = field(default_factory=Shard)
    lanes: int = 0  # vectors per clock; 0: the simulator's default (default_lanes)
    batch: int = DEFAULT_BATCH
    only: int | None = None
    replay: str | None = None
    rtl: str | None = None
    out_dir: str = "."
    shard_unit: int = BLOCK  # shard boundaries fall on multiples of this (a cluster cuts finer)

    def __post_init__(self) -> None:
        if self.top not in BULK_TOPS:
            raise ValueError(f"TOP={self.top}: bulk sweeps run {' or '.join(BULK_TOPS)}")
        if self.lanes == 0:
            object.__setattr__(self, "lanes", default_lanes(self.sim, self.top))
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: use one of {', '.join(MODES)}")
        if self.lanes < 1 or self.batch < 1 or self.count < 0 or self.shard_unit < 1:
            raise ValueError("LANES and BATCH must be at least 1, N at least 0")
        if self.mode == "replay" and not self.replay:
            raise ValueError("a replay needs REPLAY=<file of failing vectors>")
        if self.mode == "exhaustive":
            bits = exhaustive_bits(self.fmt, self.levels)
            if bits > MAX_EXHAUSTIVE_BITS:
                raise ValueError(
                    f"exhaustive {self.top} at {self.fmt.name}, {self.levels} level(s) is 2^{bits} vectors; "
                    f"the limit is 2^{MAX_EXHAUSTIVE_BITS}: use a smaller format (INT_BITS=4 FRAC_BITS=4) or LEVELS=1"
                )

    @property
    def fmt(self) -> QFormat:
        return self.param_set.params.fmt

    @property
    def params(self) -> Params:
        return self.param_set.params

    @property
    def levels(self) -> int:
        return self.param_set.levels if self.hierarchy else 1

    @property
    def hierarchy(self) -> bool:
        return has_levels(self.top)

    @property
    def total(self) -> int:
        """Vectors in the whole sweep, before sharding."""
        if self.mode == "exhaustive":
            return 1 << exhaustive_bits(self.fmt, self.levels)
        return self.count

    def index_range(self) -> tuple[int, int]:
        """This shard's [start, stop) of the sweep's vector numbers."""
        if self.only is not None:
            return self.only, self.only + 1
        return self.shard.range_of(self.total, self.shard_unit)

    def batches(self) -> list[tuple[int, int]]:
        if self.mode == "replay":
            return [(0, len(load_replay(Path(self.replay or ""), self)))]
        start, stop = self.index_range()
        step = max(self.lanes, self.batch - self.batch % self.lanes)
        # Batches end on multiples of step counted from vector 0, not from the shard's start: a shard
        # that starts inside a stimulus block (a cluster cuts on 4096s) then has one short first
        # batch, instead of every batch making two blocks for one block's vectors.
        edges = [start, *range(start - start % step + step, stop, step), stop]
        return [(first, last) for first, last in zip(edges, edges[1:], strict=False) if first < last]

    def vectors(self, start: int, stop: int) -> Vectors:
        if self.mode == "exhaustive":
            return exhaustive_range(start, stop, self.fmt, self.levels)
        if self.mode == "replay":
            return load_replay(Path(self.replay or ""), self).take(slice(start, stop))
        return random_range(self.seed, start, stop, self.fmt, self.levels)

    def to_env(self) -> dict[str, str]:
        return encode(self)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SweepConfig:
        return decode(cls, env)

    def rerun_command(self, only: int | None = None) -> str:
        """One command that runs this sweep again on the same design: every option that shaped it.
        With `only`, just that vector; a sweep that was itself one vector keeps its ONLY=."""
        only = self.only if only is None else only
        target = {"random": "sweep", "exhaustive": "exhaustive", "replay": "sweep"}[self.mode]
        words = [f"make {target}", f"TOP={self.top}", f"SIM={self.sim}"]
        words += [f"INT_BITS={self.param_set.int_bits}", f"FRAC_BITS={self.param_set.frac_bits}"]
        if self.hierarchy:
            words.append(f"LEVELS={self.param_set.levels}")
        if self.mode != "exhaustive":  # a replay's reports name the seed of the sweep that found them
            words.append(f"SEED={self.seed}")
        if self.mode == "random":
            words.append(f"N={self.count}")
        if self.lanes != default_lanes(self.sim, self.top):
            words.append(f"LANES={self.lanes}")
        if self.batch != DEFAULT_BATCH:
            words.append(f"BATCH={self.batch}")
        if self.mode == "replay":
            words.append(f"REPLAY={self.replay}")
        elif only is not None:
            words.append(f"ONLY={only}")
        elif self.shard.count > 1:
            words.append(f"SHARD={self.shard}")
        if self.rtl:
            words.append(f"RTL={self.rtl}")
        return " ".join([words[0], *(shlex.quote(word) for word in words[1:])])

    def failures_name(self) -> str:
        """The file this sweep saves its failing vectors in: a name of its own, so that rerunning one
        vector or a shard of the same sweep never overwrites the file of the run that found them."""
        what = {"random": f"n{self.count}", "exhaustive": "all", "replay": "replayed"}[self.mode]
        part = f"only{self.only}" if self.only is not None else f"shard{self.shard.index}of{self.shard.count}"
        return f"failing-{self.top}-{self.fmt.name}-l{self.levels}-{self.mode}-seed{self.seed}-{what}-{part}.npz"

    def replay_command(self, failures_file: str | Path) -> str:
        """The command that runs the failing vectors saved in `failures_file` again, on the same design."""
        return replace(self, mode="replay", replay=str(failures_file), only=None).rerun_command()
