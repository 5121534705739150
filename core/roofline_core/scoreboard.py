"""In-order checking against the golden model, with mismatch reports a person can act on."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from roofline_core.config import BenchConfig
from roofline_golden import QFormat

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


# The kinds of failure a bench records (Scoreboard.fail's `kind`); a value mismatch is "mismatch".
KINDS = ("mismatch", "unresolved", "error bound", "timeout", "latency", "pulse", "handshake", "throughput",
         "reset", "document", "other")
# The kinds that are events of the contract rather than values: when a result comes, how it is handed
# over, what a reset does. A lab may score a test that breaks one as lost (labs.definitions: events).
EVENT_KINDS = ("timeout", "latency", "pulse", "handshake", "throughput", "reset")
MAX_FAILURES_KEPT = 200
DOCUMENTS = "(the documents' value)", "(the documents' verdict)"  # a field compared with the documents, not the model


@dataclass(frozen=True)
class Failure:
    """One failure as data: what failed, of which kind, and (a mismatch) which outputs differed how.
    Feedback is chosen from these, never from the words of a report."""

    vector_id: str
    label: str
    kind: str
    differs: tuple[tuple[str, int, int], ...] = ()  # (output, expected raw, actual raw) of a mismatch
    regimes: tuple[str, ...] = ()  # what the vector was (the coverage bins it hits: "ridge (ai*bw == peak)" ...)


@dataclass(frozen=True)
class Verdict:
    """How one test of a bench ended: what it checked, what failed, and why it stopped early if it did."""

    test: str
    checked: int
    failed: tuple[str, ...]  # every failing vector, case or event, each once, in order
    planned: int  # what the test meant to check; a test cut short is scored against all of it
    reports: tuple[str, ...]  # the first few failure reports, each with its rerun line
    stopped: str = ""  # why the test ended before its end (the simulation stopped, a missing port ...)
    summary: str = ""
    failures: tuple[Failure, ...] = ()  # the first MAX_FAILURES_KEPT, as data
    baseline: float = 0.0  # the share of the checks a design with constant outputs passes (its best constant)
    ran_out: bool = False  # stopped because the run's record of it ended (the simulation stopped)
    events: tuple[str, ...] = ()  # the names in `failed` that belong to no vector or case (a cycle, a reset)
    kinds: tuple[tuple[str, int], ...] = ()  # every failure's kind and how often it came (all, not the first few)
    unchecked: tuple[str, ...] = ()  # failing cases never checked: the one a timeout left waiting

    @property
    def cases_failed(self) -> tuple[str, ...]:
        """The failing vectors or cases, without the events (which are counted apart)."""
        events = set(self.events)
        return tuple(name for name in self.failed if name not in events)

    @property
    def cases_passed(self) -> int:
        """The vectors or cases checked and right in every way (one whose values were right but whose
        latency, say, was not, is not)."""
        return max(0, self.checked - len(set(self.cases_failed) - set(self.unchecked)))

    def broke(self, kinds: tuple[str, ...]) -> tuple[str, ...]:
        """Which of these kinds of failure the test recorded at least once, in the order given."""
        seen = dict(self.kinds)
        return tuple(kind for kind in kinds if seen.get(kind))

    def count(self, kind: str) -> int:
        return dict(self.kinds).get(kind, 0)

    @property
    def passed(self) -> bool:
        return not self.failed and not self.stopped and self.checked > 0

    @property
    def credit(self) -> float:
        """What the design earned of this test, 0..1: the share of the cases the test meant to check
        that passed, beyond what constant outputs would pass (a design that computes nothing earns 0).
        An event (a failure of no one case) is not a case: what a broken one costs is the lab's rule
        (course: design_lab.scoring); a test with one is never passed, so it never earns 1 here."""
        if self.passed:
            return 1.0
        good = self.cases_passed
        if self.events and good >= max(self.planned, self.checked, 1):
            good -= 1  # every case right, an event broken: short of full
        share = min(1.0, good / max(self.planned, self.checked, 1))
        return max(0.0, (share - self.baseline) / (1 - self.baseline)) if self.baseline < 1 else 0.0

    def message(self) -> str:
        """The failure as a test framework shows it: the summary, every failing name, the first reports."""
        lines = [self.summary]
        if self.stopped:
            lines.append(f"stopped: {self.stopped}")
        if self.failed:
            lines.append(failing_line(set(self.failed)))
        if not self.checked and not self.stopped:
            lines.append("nothing was checked (ONLY= matched nothing?)")
        if self.reports:
            lines.append(f"first {len(self.reports)} shown:\n\n" + "\n\n".join(self.reports))
        return "\n".join(lines)


@dataclass
class Scoreboard:
    """Counts checks, keeps the first few mismatch reports, and gives the test's verdict at the end."""

    cfg: BenchConfig
    test: str
    log: logging.Logger
    checked: int = 0
    failed: set[str] = field(default_factory=set)  # the vectors (or events) that failed, each once
    reports: list[str] = field(default_factory=list)
    planned: int = 0  # what the test means to check (plan()); 0: whatever it checks
    order: list[str] = field(default_factory=list)  # failed, in the order the failures came
    failures: list[Failure] = field(default_factory=list)
    expected: Counter[tuple[int, ...]] = field(default_factory=Counter)  # how often each expected output came
    events: list[str] = field(default_factory=list)  # the failing names that are events (fail(event=True))
    _event_names: set[str] = field(default_factory=set, repr=False)  # events as a set: a stuck output fails every cycle
    kinds: Counter[str] = field(default_factory=Counter)  # every failure's kind, counted
    unchecked: list[str] = field(default_factory=list)  # cases a timeout left waiting (never checked)

    def expect(self, outputs: tuple[int, ...], count: int = 1) -> None:
        """Count a vector's expected outputs (checks that pass in bulk say so here, check() does itself)."""
        self.expected[outputs] += count

    def plan(self, count: int) -> None:
        """The test means to check `count` vectors, cases or events (a test stopped early is scored against them)."""
        self.planned += count

    def check(
        self,
        vector_id: str | int,
        label: str,
        inputs: Lines,
        fields: list[Field],
        context: Lines | None = None,
        regimes: Callable[[], tuple[str, ...]] | None = None,
        values: bool = True,
    ) -> bool:
        """Compare `fields`; on any mismatch, record a report with everything needed to rerun it."""
        self.checked += 1
        if values:
            self.expect(tuple(f.expected for f in fields if not f.name.endswith(DOCUMENTS)))
        if all(f.ok for f in fields):
            return True
        self._failed(vector_id, label, "mismatch", tuple((f.name, f.expected, f.actual) for f in fields if not f.ok),
                     regimes() if regimes else ())
        if len(self.reports) < MAX_REPORTS:
            inputs = inputs() if callable(inputs) else inputs
            context = context() if callable(context) else context
            report = self._report(vector_id, label, inputs, fields, context or [])
            self.reports.append(report)
            self.log.error("%s", report)
        return False

    def fail(self, vector_id: str | int, message: str, *, kind: str, event: bool = False, label: str = "",
             regimes: tuple[str, ...] = (), since: int = 0) -> None:
        """A failure that is not a value mismatch (a timeout, a protocol error, an error bound); `kind`
        is one of KINDS.

        event: it belongs to no one vector (a cycle, a reset, the end of the test), so the rerun
        line reruns the whole test rather than ONLY= a vector that does not exist.
        since: how many cycles before this one the failing case began (a late result's input was
        accepted): a picture of the failure shows that cycle too.
        """
        if kind not in KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        self._failed(vector_id, label, kind, (), regimes)
        if event and str(vector_id) not in self._event_names:
            self._event_names.add(str(vector_id))
            self.events.append(str(vector_id))
        if kind == "timeout" and not event:
            self.unchecked.append(str(vector_id))
        if len(self.reports) < MAX_REPORTS:
            rerun = self.cfg.rerun_command(self.test, None if event else vector_id)
            report = f"{message}\n  seed {self.cfg.seed} | rerun: {rerun}"
            self.reports.append(report)
            self.log.error("%s", report)

    def reclassify(self, vector_id: str | int, kind: str, message: str) -> bool:
        """A vector's value mismatch found, on inspection, to be a failure of another kind (a stream's
        result that is another input's is a handshake failure): its kept failures and the kind counts
        take that kind, so feedback names it and a lab that scores the kind as an event sees it, and
        its report is added. The vector's pass or fail does not change. False when the vector has no
        kept mismatch."""
        if kind not in KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        name = str(vector_id)
        found = [n for n, f in enumerate(self.failures) if f.vector_id == name and f.kind == "mismatch"]
        for n in found:
            self.failures[n] = replace(self.failures[n], kind=kind)
        self.kinds["mismatch"] -= len(found)
        self.kinds[kind] += len(found)
        if found and len(self.reports) < MAX_REPORTS:
            report = f"{message}\n  seed {self.cfg.seed} | rerun: {self.cfg.rerun_command(self.test, vector_id)}"
            self.reports.append(report)
            self.log.error("%s", report)
        return bool(found)

    def _failed(self, vector_id: str | int, label: str, kind: str, differs: tuple[tuple[str, int, int], ...] = (),
                regimes: tuple[str, ...] = ()) -> None:
        name = str(vector_id)
        self.kinds[kind] += 1
        if name not in self.failed:
            self.failed.add(name)
            self.order.append(name)
        if len(self.failures) < MAX_FAILURES_KEPT:
            self.failures.append(Failure(name, label, kind, differs, regimes))

    def verdict(self, stopped: str = "", ran_out: bool = False) -> Verdict:
        fmt = self.cfg.params.fmt
        summary = (f"{self.checked} checked, {len(self.failed)} failed "
                   f"({self.cfg.top}, {self.cfg.sim}, {fmt.name}, seed {self.cfg.seed})")
        self.log.info("%s: %s", self.test, summary)
        counted = sum(self.expected.values())
        baseline = max(self.expected.values()) / counted if counted else 0.0
        return Verdict(self.test, self.checked, tuple(self.order), self.planned, tuple(self.reports), stopped, summary,
                       tuple(self.failures), baseline, ran_out, tuple(self.events), tuple(sorted(self.kinds.items())),
                       tuple(self.unchecked))

    def finish(self) -> None:
        """Fail the test (AssertionError with the whole message) unless everything checked passed."""
        verdict = self.verdict()
        if not verdict.passed:
            raise AssertionError(verdict.message())

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
    if decode == "bits":  # a width; below zero: the port is missing
        return f"{raw} bits" if raw >= 0 else "no such port"
    return fmt.describe(raw, decode)


def binding_text(binding: int, levels: int) -> str:
    return "compute roof" if binding >= levels else f"memory level {binding}"


def selected(cfg: BenchConfig, vector_id: str | int) -> bool:
    """ONLY=<index or case id> narrows a test to one vector or case."""
    return cfg.only is None or cfg.only == str(vector_id)
