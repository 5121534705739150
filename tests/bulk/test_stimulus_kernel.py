"""The bulk stimulus's C kernel (tb/roofline_bulk/stimulus_kernel.c) against the numpy code it replaced
(numpy_stimulus): the same vectors, block for block, on every side of each threshold the drawing has
(W + F past 62 and 64 bits, F at most 3, one level and several), so a seed and a vector number still
name the vector they named before; and how the kernel is built: a clear error without a compiler, a
new library for an edited source, and threads calling at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy_stimulus
import pytest

from roofline_bulk import kernel
from roofline_bulk.stimulus import random_block
from roofline_core.tools import ToolError
from roofline_core.vector_check import Vectors
from roofline_golden import QFormat

# (INT_BITS, FRAC_BITS): W + F = 62 and 63 either side of near_ridge's fallback (W + F > 62), 64 and 65
# either side of the residue's 128-bit product (W + F > 64), F = 3 and 4 either side of Newton's first
# step, W = 63 the widest the model takes, and the defaults.
FORMATS = [(24, 16), (1, 1), (2, 3), (4, 4), (10, 26), (11, 26), (12, 26), (13, 26), (30, 33), (8, 2)]


def same(made: Vectors, reference: Vectors) -> bool:
    return all(np.array_equal(a, b) for a, b in ((made.index, reference.index), (made.peak, reference.peak),
                                                 (made.bws, reference.bws), (made.ais, reference.ais)))


@pytest.mark.parametrize("int_bits, frac_bits", FORMATS)
@pytest.mark.parametrize("levels", [1, 2, 4])
def test_the_kernel_makes_the_numpy_references_vectors(int_bits: int, frac_bits: int, levels: int) -> None:
    fmt = QFormat(int_bits, frac_bits)
    for seed, block in ((11, 1), (2**31 - 1, 2**40 + 3)):
        made, reference = random_block(seed, block, fmt, levels), numpy_stimulus.random_block(seed, block, fmt, levels)
        assert same(made, reference), f"{fmt.name}, {levels} level(s), seed {seed}, block {block}"


@pytest.mark.parametrize("levels", [1, 3])
def test_the_first_block_with_its_directed_edges_and_a_short_block_match_too(levels: int) -> None:
    fmt = QFormat(24, 16)
    assert same(random_block(5, 0, fmt, levels), numpy_stimulus.random_block(5, 0, fmt, levels))
    assert same(random_block(5, 3, fmt, levels, size=1000), numpy_stimulus.random_block(5, 3, fmt, levels, size=1000))


def test_threads_calling_at_once_get_their_own_blocks() -> None:
    fmt = QFormat(24, 16)
    alone = [random_block(7, block, fmt, 2) for block in range(8)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda block: random_block(7, block, fmt, 2), range(8)))
    assert all(same(a, b) for a, b in zip(alone, together, strict=True))


def test_no_compiler_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "no-such-cc")
    with pytest.raises(ToolError, match="no-such-cc was not found: install gcc"):
        kernel.compiler()


def test_a_kernel_that_does_not_compile_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "KERNEL_DIR", tmp_path / "kernels")
    broken = tmp_path / "broken_kernel.c"
    broken.write_text("int f(void) { return undeclared; }\n")
    with pytest.raises(ToolError, match=r"(?s)broken_kernel\.c\) did not compile:.*undeclared"):
        kernel.build(broken)
    assert not list((tmp_path / "kernels").glob("*.so"))  # nothing half-built is left to load


def test_an_edited_kernel_is_built_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel, "KERNEL_DIR", tmp_path / "kernels")
    source = tmp_path / "tiny_kernel.c"
    source.write_text("int answer(void) { return 1; }\n")
    first = kernel.build(source)
    source.write_text("int answer(void) { return 2; }\n")
    second = kernel.build(source)
    assert first != second and first.exists() and second.exists()
    assert kernel.build(source) == second  # built once per source
