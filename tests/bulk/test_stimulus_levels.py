"""The bulk stimulus gives every hierarchy of two levels or more its level ties: about one vector in eight
has two levels with the same ai*bw (the lower index must bind), at 2, 3 and 4 levels alike."""

from __future__ import annotations

import numpy as np
import pytest

from roofline_bulk.stimulus import BLOCK, random_block
from roofline_golden import QFormat

FMT = QFormat(24, 16)


def tied_share(levels: int) -> float:
    vectors = random_block(11, 1, FMT, levels)
    products = [vectors.ais[:, level].astype(object) * vectors.bws[:, level].astype(object) for level in range(levels)]
    tied = np.zeros(BLOCK, dtype=bool)
    for first in range(levels):
        for second in range(first + 1, levels):
            tied |= (products[first] == products[second]) & (products[first] != 0)
    return float(tied.mean())


@pytest.mark.parametrize("levels", [2, 3, 4])
def test_about_one_vector_in_eight_ties_two_levels(levels: int) -> None:
    assert 0.09 <= tied_share(levels) <= 0.2, tied_share(levels)

