"""Failing vectors saved and replayed (roofline_bulk.replay)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bulk_configs import DEFAULT_SET, config  # noqa: F401

from roofline_bulk import replay as replay_file
from roofline_bulk.config import SweepConfig


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
