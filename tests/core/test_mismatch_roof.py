"""The roof a mismatch report says should bind (vector_text.exact_context, in every bench's and sweep's
report), on both sides of the ridge and at it: ai*bw == peak binds the compute roof; one full-precision
step below binds the memory level; two levels with one product bind the lower index."""

from __future__ import annotations

import pytest

from roofline_core.vector_text import exact_context
from roofline_golden import QFormat

FMT = QFormat(8, 8)
ONE = FMT.one
PEAK = 4 * ONE  # 4 GFLOP/s


@pytest.mark.parametrize(("ai", "bound"), [
    (PEAK, "compute roof"),  # ai = 4.0 FLOP/B with bw = 1.0 GB/s: exactly the ridge
    (PEAK - 1, "memory level 0"),  # one LSB of ai below it
    (PEAK + 1, "compute roof"),
])
def test_the_roof_that_should_bind_at_and_either_side_of_the_ridge(ai: int, bound: str) -> None:
    lines, _ = exact_context(FMT, PEAK, (ONE,), (ai,))
    assert lines[1].startswith(f"should bind: {bound};"), lines


def test_two_levels_with_one_product_bind_the_lower_index() -> None:
    lines, _ = exact_context(FMT, PEAK, (ONE, 2 * ONE), (2 * ONE, ONE))  # both 2.0 GFLOP/s, below the peak
    assert lines[1].startswith("should bind: memory level 0;"), lines
