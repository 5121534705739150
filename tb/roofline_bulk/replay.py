"""Failing vectors, kept in a .npz file that `make sweep REPLAY=<file>` runs again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import numpy as np

from roofline_core.vector_check import Vectors
from roofline_golden import QFormat


class SweepConfig(Protocol):
    """What a replay file records of its sweep (roofline_bulk.config.SweepConfig has it all)."""

    @property
    def top(self) -> str: ...
    @property
    def fmt(self) -> QFormat: ...
    @property
    def levels(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def mode(self) -> str: ...


def save_failures(path: Path, cfg: SweepConfig, failing: Vectors) -> None:
    meta = {"top": cfg.top, "format": cfg.fmt.name, "levels": cfg.levels, "seed": cfg.seed, "mode": cfg.mode}
    np.savez_compressed(
        path, index=failing.index, peak=failing.peak, bws=failing.bws, ais=failing.ais, meta=np.array(json.dumps(meta))
    )


def load_replay(path: Path, cfg: SweepConfig) -> Vectors:
    if not path.is_file():
        raise ValueError(f"REPLAY={path}: no such file")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        if meta["top"] != cfg.top or meta["format"] != cfg.fmt.name or meta["levels"] != cfg.levels:
            raise ValueError(
                f"REPLAY={path} holds {meta['top']} vectors at {meta['format']}, {meta['levels']} level(s); "
                f"this run is {cfg.top} at {cfg.fmt.name}, {cfg.levels} level(s)"
            )
        return Vectors(data["index"], data["peak"], data["bws"], data["ais"])
