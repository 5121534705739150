"""In-order checking against the golden model, with mismatch reports a person can act on."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from roofline_golden import QFormat

from .config import BenchConfig

MAX_REPORTS = 5
# What a report shows, or a function that makes it: a passing vector never pays for the text.
Lines = list[str] | Callable[[], list[str]]


@dataclass(frozen=True)
class Field:
    """One output compared: its name, the expected and actual raw values, and how to decode them."""

    name: str
    expected: int
    actual: int
    decode: str = "bit"  # "bit", "index", or a unit such as "GFLOP/s" for fixed-point values

    @property
    def ok(self) -> bool:
        return self.expected == self.actual


@dataclass
class Scoreboard:
    """Counts checks, keeps the first few mismatch reports, and fails the test at the end."""

    cfg: BenchConfig
    test: str
    log: logging.Logger
    checked: int = 0
    failed: set[str] = field(default_factory=set)  # the vectors (or events) that failed, each once
    reports: list[str] = field(default_factory=list)

    def check(
        self,
        vector_id: str | int,
        label: str,
        inputs: Lines,
        fields: list[Field],
        context: Lines | None = None,
    ) -> bool:
        """Compare `fields`; on any mismatch, record a report with everything needed to rerun it."""
        self.checked += 1
        if all(f.ok for f in fields):
            return True
        self.failed.add(str(vector_id))
        if len(self.reports) < MAX_REPORTS:
            inputs = inputs() if callable(inputs) else inputs
            context = context() if callable(context) else context
            report = self._report(vector_id, label, inputs, fields, context or [])
            self.reports.append(report)
            self.log.error("%s", report)
        return False

    def fail(self, vector_id: str | int, message: str, *, event: bool = False) -> None:
        """A failure that is not a value mismatch (a timeout, a protocol error, an error bound).

        event: it belongs to no one vector (a cycle, a reset, the end of the test), so the rerun
        line reruns the whole test rather than ONLY= a vector that does not exist.
        """
        self.failed.add(str(vector_id))
        rerun = self.cfg.rerun_command(self.test, None if event else vector_id)
        report = f"{message}\n  seed {self.cfg.seed} | rerun: {rerun}"
        if len(self.reports) < MAX_REPORTS:
            self.reports.append(report)
            self.log.error("%s", report)

    def finish(self) -> None:
        fmt = self.cfg.params.fmt
        summary = (
            f"{self.test}: {self.checked} checked, {len(self.failed)} failed "
            f"({self.cfg.top}, {self.cfg.sim}, {fmt.name}, seed {self.cfg.seed})"
        )
        self.log.info("%s", summary)
        if self.failed:
            shown = "\n\n".join(self.reports)
            raise AssertionError(f"{summary}\n{failing_line(self.failed)}\nfirst {len(self.reports)} shown:\n\n{shown}")
        if self.checked == 0:
            raise AssertionError(f"{self.test}: nothing was checked (ONLY={self.cfg.only!r} matched nothing?)")

    def _report(
        self, vector_id: str | int, label: str, inputs: list[str], fields: list[Field], context: list[str]
    ) -> str:
        fmt = self.cfg.params.fmt
        title = f"MISMATCH {self.cfg.top} [{self.test} {vector_id}: {label}] {fmt.name}, {self.cfg.sim}"
        rerun = f"seed {self.cfg.seed} | rerun: {self.cfg.rerun_command(self.test, vector_id)}"
        return mismatch_report(title, inputs, fields, context, rerun, fmt)


MAX_FAILING_NAMED = 100


def failing_line(failed: set[str]) -> str:
    """Every failing vector or case by name (numbers in order), for feedback that names them all."""
    names = sorted(failed, key=lambda name: (not name.isdigit(), int(name) if name.isdigit() else 0, name))
    extra = len(names) - MAX_FAILING_NAMED
    return "failing: " + ", ".join(names[:MAX_FAILING_NAMED]) + (f" and {extra} more" if extra > 0 else "")


def mismatch_report(
    title: str, inputs: list[str], fields: list[Field], context: list[str], rerun: str, fmt: QFormat
) -> str:
    """The inputs, each output expected against actual (differences marked), the exact math, a rerun line."""
    lines = [title, "  inputs  : " + ", ".join(inputs)]
    width = max(len(f.name) for f in fields)
    for f in fields:
        mark = "" if f.ok else "   <-- differs"
        expected, actual = _decode(fmt, f.expected, f.decode), _decode(fmt, f.actual, f.decode)
        lines.append(f"  {f.name:<{width}} expected {expected}  actual {actual}{mark}")
    lines += [f"  {line}" for line in context]
    lines.append(f"  {rerun}")
    return "\n".join(lines)


def _decode(fmt: QFormat, raw: int, decode: str) -> str:
    if decode in ("bit", "index"):
        return str(raw)
    return fmt.describe(raw, decode)


def binding_text(binding: int, levels: int) -> str:
    return "compute roof" if binding >= levels else f"memory level {binding}"


def selected(cfg: BenchConfig, vector_id: str | int) -> bool:
    """ONLY=<index or case id> narrows a test to one vector or case."""
    return cfg.only is None or cfg.only == str(vector_id)
