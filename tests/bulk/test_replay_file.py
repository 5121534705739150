"""A file of failing vectors replays only on the sweep it came from: the same module, format and number of
levels; each other is refused in one line naming both, and a file that is not there too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from roofline_bulk.config import SweepConfig
from roofline_bulk.replay import load_replay, save_failures
from roofline_core.contract import ParamSet
from roofline_core.vector_check import Vectors

MADE = SweepConfig("roofline_hierarchy", "icarus", ParamSet(8, 8, 2), 7, count=10)


def saved(tmp_path: Path) -> Path:
    path = tmp_path / "failing.npz"
    two = np.array([[1, 2], [3, 4]], dtype=np.uint64)
    save_failures(path, MADE, Vectors(np.array([3, 5]), np.array([9, 9], dtype=np.uint64), two, two))
    return path


def test_the_file_replays_on_the_sweep_it_came_from(tmp_path: Path) -> None:
    found = load_replay(saved(tmp_path), MADE)
    assert list(found.index) == [3, 5] and found.bws.shape == (2, 2)


@pytest.mark.parametrize(("other", "said"), [
    (SweepConfig("roofline_hierarchy", "icarus", ParamSet(8, 8, 3), 7, count=10), "roofline_hierarchy at UQ8.8, 3 level(s)"),
    (SweepConfig("roofline_hierarchy", "icarus", ParamSet(8, 7, 2), 7, count=10), "roofline_hierarchy at UQ8.7, 2 level(s)"),
    (SweepConfig("roofline_attainable", "icarus", ParamSet(8, 8, 1), 7, count=10), "roofline_attainable at UQ8.8, 1 level(s)"),
], ids=["levels", "format", "module"])
def test_a_file_from_another_sweep_is_refused_naming_both(other: SweepConfig, said: str, tmp_path: Path) -> None:
    path = saved(tmp_path)
    with pytest.raises(ValueError) as refused:
        load_replay(path, other)
    assert str(refused.value) == (f"REPLAY={path} holds roofline_hierarchy vectors at UQ8.8, 2 level(s); this run is {said}")


def test_a_file_that_is_not_there_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        load_replay(tmp_path / "gone.npz", MADE)
