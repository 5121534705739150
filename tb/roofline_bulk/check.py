"""A sweep batch judged (through roofline_core.vector_check), its mismatch reports, and a sweep's running totals."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from roofline_core.scoreboard import Field, mismatch_report
from roofline_core.vector_check import Outputs, Vectors, coverage_bins, expected_outputs, failing, products
from roofline_core.vector_text import exact_context, inputs_text

if TYPE_CHECKING:
    from roofline_bulk.config import SweepConfig

U64 = np.uint64
MAX_REPORTS = 5


@dataclass
class BatchOutcome:
    checked: int = 0
    mismatched: int = 0
    reports: list[str] = field(default_factory=list)
    failing: Vectors | None = None
    bins: dict[str, int] = field(default_factory=dict)


def check_batch(cfg: SweepConfig, vectors: Vectors, actual: Outputs) -> BatchOutcome:
    level_products = products(vectors)
    want = expected_outputs(cfg, vectors, level_products)
    rows = np.flatnonzero(failing(cfg, vectors, want, actual, level_products))
    bins = coverage_bins(cfg, vectors, want, level_products)
    outcome = BatchOutcome(checked=len(vectors), mismatched=int(rows.size), bins=bins)
    if rows.size:
        outcome.failing = vectors.take(rows)
        outcome.reports = [_report(cfg, vectors, want, actual, int(row)) for row in rows[:MAX_REPORTS]]
    return outcome


def _report(cfg: SweepConfig, vectors: Vectors, want: Outputs, actual: Outputs, row: int) -> str:
    fmt = cfg.fmt
    peak, bws, ais = vectors.row(row)
    fields = [
        Field("cap_o", int(want.cap[row]), int(actual.cap[row]), "GFLOP/s"),
        Field("mem_bound_o", int(want.mem_bound[row]), int(actual.mem_bound[row])),
    ]
    if cfg.hierarchy:
        fields.append(Field("binding_o", int(want.binding[row]), int(actual.binding[row]), "index"))
        fields += [
            Field(f"level_cap_o[{level}]", int(want.level_caps[row, level]), int(actual.level_caps[row, level]), "GFLOP/s")
            for level in range(cfg.levels)
        ]
    context, _ = exact_context(fmt, peak, bws, ais)
    index = int(vectors.index[row])
    where = f"{cfg.top} [bulk {cfg.mode} vector {index}] {fmt.name}, {cfg.sim}"
    title = f"MISMATCH {where}"
    if all(f.ok for f in fields):
        title = f"ERROR BOUND {where}: an output is more than 2^-{fmt.frac_bits + 1} from the exact value"
    rerun = f"seed {cfg.seed} | rerun: {cfg.rerun_command(None if cfg.mode == 'replay' else index)}"
    return mismatch_report(title, inputs_text(fmt, peak, bws, ais), fields, context, rerun, fmt)


@dataclass
class SweepTotals:
    checked: int = 0
    mismatched: int = 0
    reports: list[str] = field(default_factory=list)
    failing: list[Vectors] = field(default_factory=list)
    bins: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: BatchOutcome) -> None:
        self.checked += outcome.checked
        self.mismatched += outcome.mismatched
        self.reports += outcome.reports[: MAX_REPORTS - len(self.reports)]
        if outcome.failing is not None:
            self.failing.append(outcome.failing)
        for name, hits in outcome.bins.items():
            self.bins[name] = self.bins.get(name, 0) + hits

    def coverage_lines(self) -> Iterator[str]:
        width = max((len(name) for name in self.bins), default=0)
        for name, hits in self.bins.items():
            yield f"  {name:<{width}} {hits:>12,d}{'   <-- never hit' if hits == 0 else ''}"
