"""Judging a per-vector bench's sweep in batches: the simulator loop only drives and samples.

Each sampled vector goes into a RateBatch; every BATCH vectors, and at the end, the batch is
judged at once with the bulk path's checks (roofline_core.vector_check): the vectorised golden model,
the error bound against exact arithmetic as an integer check, and the coverage bins. A vector
that fails any of them is judged again by the bench's own one-vector judge, so its report is
the one a vector-at-a-time bench prints: inputs in hex and units, expected against actual, the
exact value, and a rerun line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from roofline_bench.coverage import Coverage
from roofline_bench.run import BATCH
from roofline_bench.stimulus import RateVector
from roofline_core.scoreboard import Scoreboard
from roofline_core.vector_check import Outputs, Vectors, expected_outputs, failing, products
from roofline_core.vector_check import coverage_bins as vector_coverage_bins
from roofline_golden import QFormat
from roofline_golden.vector import MAX_WIDTH as VECTOR_MAX_WIDTH

# (vector id, label, the vector, its outputs, sample coverage) -> None: the bench's one-vector judge
Judge = Callable[[str | int, str, RateVector, tuple[int, ...], bool], None]


@dataclass
class RateBatch:
    """Vectors of rates and the outputs sampled for them, judged BATCH at a time.

    outputs: (cap, mem_bound) for roofline_attainable; (cap, mem_bound, binding, packed
    level caps) for a module with levels.
    """

    sb: Scoreboard
    judge: Judge
    hierarchy: bool
    coverage: Coverage
    size: int = BATCH
    _pending: list[tuple[str | int, str, RateVector, tuple[int, ...]]] = field(default_factory=list)

    @property
    def fmt(self) -> QFormat:
        return self.sb.cfg.params.fmt

    @property
    def levels(self) -> int:
        return self.sb.cfg.params.levels if self.hierarchy else 1

    def add(self, vector_id: str | int, label: str, vector: RateVector, outputs: tuple[int, ...]) -> None:
        self._pending.append((vector_id, label, vector, outputs))
        if len(self._pending) >= self.size:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        if self.size == 1 or self.fmt.width > VECTOR_MAX_WIDTH:  # one vector (a trace), or beyond the vectorised model
            for vector_id, label, vector, outputs in pending:
                self.judge(vector_id, label, vector, outputs, True)
            return
        vectors, actual = self._arrays(pending)
        want = expected_outputs(self, vectors)
        level_products = products(vectors)
        for name, hits in vector_coverage_bins(self, vectors, want, level_products).items():
            self.coverage.hit(name, hits)
        bad_rows = failing(self, vectors, want, actual, level_products)
        bad = np.flatnonzero(bad_rows)
        self.sb.checked += len(pending) - bad.size
        self._expect(want, ~bad_rows)
        for row in bad.tolist():
            vector_id, label, vector, outputs = pending[row]
            self.judge(vector_id, label, vector, outputs, False)  # its coverage is counted above
            if str(vector_id) not in self.sb.failed:
                self.sb.fail(vector_id, f"INTERNAL {self.sb.cfg.top} [{self.sb.test} {vector_id}]: the vectorised "
                                        "model failed this vector and the one-vector model passed it; please report it",
                             kind="other")

    def _expect(self, want: Outputs, rows: np.ndarray) -> None:
        """The expected outputs of the vectors that passed in bulk, counted as check() counts them."""
        columns = [want.cap, want.mem_bound.astype(np.uint64)]
        if self.hierarchy:
            columns += [want.binding.astype(np.uint64), *want.level_caps.T]
        table = np.stack(columns, axis=1)[rows]
        if len(table):
            values, counts = np.unique(table, axis=0, return_counts=True)
            for value, count in zip(values.tolist(), counts.tolist(), strict=True):
                self.sb.expect(tuple(value), count)

    def _arrays(self, pending: list[tuple[str | int, str, RateVector, tuple[int, ...]]]) -> tuple[Vectors, Outputs]:
        count, levels, fmt = len(pending), self.levels, self.fmt
        vectors = Vectors(
            np.arange(count, dtype=np.int64),
            np.fromiter((v.peak for _, _, v, _ in pending), dtype=np.uint64, count=count),
            np.array([v.bws for _, _, v, _ in pending], dtype=np.uint64).reshape(count, levels),
            np.array([v.ais for _, _, v, _ in pending], dtype=np.uint64).reshape(count, levels),
        )
        sampled = [outputs for _, _, _, outputs in pending]
        cap = np.fromiter((o[0] for o in sampled), dtype=np.uint64, count=count)
        mem_bound = np.fromiter((o[1] for o in sampled), dtype=bool, count=count)
        if not self.hierarchy:
            return vectors, Outputs(cap, mem_bound, np.where(mem_bound, 0, 1), np.zeros((count, 0), dtype=np.uint64))
        binding = np.fromiter((o[2] for o in sampled), dtype=np.int64, count=count)
        level_caps = np.array([[(o[3] >> (level * fmt.width)) & fmt.max_raw for level in range(levels)] for o in sampled],
                              dtype=np.uint64).reshape(count, levels)
        return vectors, Outputs(cap, mem_bound, binding, level_caps)
