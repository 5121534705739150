"""The course labs: each labs/labN/ holds a handout, a starter, and its graded test groups.

labs/labN/lab.toml gives the lab's module and its visible groups; labs/labN/hidden.toml (or the
file an instructor names with HIDDEN=) gives the hidden groups. A group runs some of the
module's cocotb tests at one parameter set, or (kind "synthesis") synthesizes the design for
an iCE40 and scores its clock rate. Its weight is its share of the marks.

A design lab's lab.toml also states two rules of its own: `events`, the events of the contract
a test stands on (a test that breaks one earns nothing: design_lab.scoring), and `hints`, the
kinds of hint that fit its ports and its method (design_lab.hints gives each kind's words).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from roofline_bench.benches import TESTS
from roofline_core.config import DEFAULT_SWEEP
from roofline_core.contract import ParamSet, tops_with
from roofline_core.paths import LABS_DIR, RTL_DIR
from roofline_core.scoreboard import EVENT_KINDS
from roofline_course.labs.designs import DesignError, resolve

KINDS = ("sim", "synthesis")
# How a simulation group turns its tests into marks. "proportional" (the default): each test
# counts equally, and a test earns the share of its vectors or cases that passed; a test that
# stopped without a count earns nothing. "all-or-nothing": the group scores only when every test passes.
SCORING = ("proportional", "all-or-nothing")
DEVICES = ("hx8k", "up5k")
# A lab grades either a design the student writes, or (kind = "testbench") a testbench the student
# writes, run against correct and faulty designs (testbench_lab). A testbench lab's groups are of
# TESTBENCH_KINDS: the correct design's runs, a set of faulty designs, and coverage (weight 0: shown only).
LAB_KINDS = ("design", "testbench")
DEFAULT_TIMEOUT_S = 180.0  # a lab's time limit per group when its lab.toml gives none
# the least time limit a calibrated run gets (a class's limit, a testbench lab's hidden runs), however fast the reference
MIN_CALIBRATED_TIMEOUT_S = 10.0
TESTBENCH_KINDS = ("reference", "bugs", "coverage")


class LabError(ValueError):
    """A lab number that does not exist, or a lab file that does not say what the grader needs."""


@dataclass(frozen=True)
class Group:
    name: str
    weight: float
    hidden: bool
    covers: str  # one line for the score table and the handout
    param_set: ParamSet
    kind: str = "sim"
    tests: tuple[str, ...] = ()
    seed: int = 1
    sweep: int = DEFAULT_SWEEP
    device: str = "hx8k"
    min_fmax_mhz: float = 0.0
    requires: tuple[str, ...] = ()  # groups that must pass in full before this one scores
    hint: str = ""  # shown when the group loses marks and no hint fits the kind of failure
    scoring: str = "proportional"  # or "all-or-nothing": see SCORING
    designs: tuple[str, ...] = ()  # a testbench lab: the designs the testbench runs against (testbench_designs)


@dataclass(frozen=True)
class Lab:
    number: int
    title: str
    top: str
    folder: Path
    timeout_s: float
    groups: tuple[Group, ...]
    hidden_file: Path | None = None
    notes: list[str] = field(default_factory=list)
    kind: str = "design"  # one of LAB_KINDS
    seed: int = 1  # a testbench lab: COCOTB_RANDOM_SEED of every run
    events: tuple[str, ...] = ()  # a design lab: the events a test that checks one stands on (EVENT_KINDS)
    hints: tuple[str, ...] = ()  # a design lab: the kinds of hint that fit its ports and method

    @property
    def max_score(self) -> float:
        return sum(g.weight for g in self.groups)

    @property
    def reference(self) -> Path:
        """What gets full marks: the project's RTL, or a testbench lab's solution testbench."""
        return self.folder / "solution" if self.kind == "testbench" else RTL_DIR

    @property
    def has_reference(self) -> bool:
        """This copy holds the reference (the student copy does not)."""
        return self.reference.is_dir() if self.kind == "testbench" else (RTL_DIR / f"{self.top}.sv").exists()

    @property
    def starter(self) -> Path:
        return self.folder / "starter"


def available() -> list[int]:
    return sorted(int(m.group(1)) for p in LABS_DIR.glob("lab*/lab.toml") if (m := re.fullmatch(r"lab(\d+)", p.parent.name)))


def bench_tests(top: str) -> set[str]:
    """The tests the module's bench defines (roofline_bench)."""
    return set(TESTS[top])


def _group(entry: dict, hidden: bool, top: str, where: Path, lab_kind: str = "design") -> Group:
    def need(key: str) -> object:
        if key not in entry:
            raise LabError(f"{where}: a group lacks '{key}'")
        return entry[key]

    name = str(need("name"))
    weight = float(need("weight"))  # type: ignore[arg-type]
    kinds = TESTBENCH_KINDS if lab_kind == "testbench" else KINDS
    kind = entry.get("kind", kinds[0] if lab_kind == "testbench" else "sim")
    if kind not in kinds:
        raise LabError(f"{where}: group {name!r} has kind {kind!r}; use one of {', '.join(kinds)}")
    if kind == "coverage" and weight != 0:  # shown, never scored: a weight would be marks no one can earn
        raise LabError(f"{where}: group {name!r} is coverage (shown, not scored): its weight must be 0, not {weight:g}")
    if weight <= 0 and kind != "coverage":
        raise LabError(f"{where}: group {name!r} needs a positive weight")
    params = entry.get("params", {})
    unknown = set(params) - {"int_bits", "frac_bits", "levels", "count_bits", "mul_stages"}
    if unknown:
        raise LabError(f"{where}: group {name!r} sets unknown parameters {', '.join(sorted(unknown))}")
    tests = tuple(entry.get("tests", ()))
    if kind == "synthesis" and (missing := set(tests) - bench_tests(top)):  # what its circuit must pass, simulated first
        raise LabError(f"{where}: group {name!r} names tests the {top} bench lacks: {', '.join(sorted(missing))}")
    if kind == "sim":
        missing = set(tests) - bench_tests(top) if tests else {"(none listed)"}
        if missing:
            raise LabError(f"{where}: group {name!r} names tests the {top} bench lacks: {', '.join(sorted(missing))}")
    scoring = entry.get("scoring", "proportional")
    if scoring not in SCORING:
        raise LabError(f"{where}: group {name!r} has scoring {scoring!r}; use one of {', '.join(SCORING)}")
    device = entry.get("device", "hx8k")
    if device not in DEVICES:
        raise LabError(f"{where}: group {name!r} has device {device!r}; use one of {', '.join(DEVICES)}")
    return Group(
        name=name, weight=weight, hidden=hidden, covers=str(need("covers")), param_set=ParamSet(**params),
        kind=kind, tests=tests, seed=int(entry.get("seed", 1)), sweep=int(entry.get("sweep", DEFAULT_SWEEP)),
        device=device, min_fmax_mhz=float(entry.get("min_fmax_mhz", 0.0)), requires=tuple(entry.get("requires", ())),
        hint=str(entry.get("hint", "")), scoring=scoring, designs=tuple(entry.get("designs", ())),
    )


def _check_designs(group: Group, top: str, folder: Path) -> None:
    """A testbench lab's group: coverage names no design, the others name designs that exist."""
    where = f"lab {folder.name}: group {group.name!r}"
    if (group.kind == "coverage") != (not group.designs):
        raise LabError(f"{where}: " + ("a coverage group names no designs" if group.designs
                                      else "list the designs its runs use (designs = [...])"))
    try:
        found = [resolve(text, group.param_set, folder, top) for text in group.designs]
    except DesignError as problem:
        raise LabError(f"{where}: {problem}") from None
    if group.kind == "reference" and not all(design.correct for design in found):
        raise LabError(f"{where} is a reference group: its designs are model:reference or rtl:reference")
    if group.kind == "bugs" and all(design.correct for design in found):
        raise LabError(f"{where} names no faulty design")


def load_lab(number: int, hidden_file: Path | None = None, *, with_hidden: bool = True) -> Lab:
    """The lab's groups; the hidden ones come from hidden_file, else labs/labN/hidden.toml if present."""
    folder = LABS_DIR / f"lab{number}"
    spec_file = folder / "lab.toml"
    if not spec_file.exists():
        labs = ", ".join(map(str, available())) or "none"
        raise LabError(f"LAB={number}: there is no labs/lab{number}/lab.toml (labs available: {labs})")
    spec = tomllib.loads(spec_file.read_text())
    top = spec.get("top")
    if top not in tops_with("lab"):
        raise LabError(f"{spec_file}: top {top!r} is not one of {', '.join(tops_with('lab'))}")
    lab_kind = spec.get("kind", "design")
    if lab_kind not in LAB_KINDS:
        raise LabError(f"{spec_file}: kind {lab_kind!r} is not one of {', '.join(LAB_KINDS)}")
    groups = [_group(entry, False, top, spec_file, lab_kind) for entry in spec.get("group", [])]
    notes: list[str] = []
    chosen = None
    if not with_hidden:
        notes.append("visible groups only; the hidden ones (the handout says what they cover) are graded by make grade")
    else:
        chosen = hidden_file or folder / "hidden.toml"
        if chosen.exists():
            groups += [_group(entry, True, top, chosen, lab_kind)
                       for entry in tomllib.loads(chosen.read_text()).get("group", [])]
        elif hidden_file is not None:
            raise LabError(f"HIDDEN={hidden_file}: no such file")
        else:
            notes.append("hidden groups: not in this copy of the lab (your instructor grades them)")
            chosen = None
    names = [g.name for g in groups]
    if len(set(names)) != len(names):
        raise LabError(f"lab {number}: two groups share a name")
    for group in groups:
        if unknown := set(group.requires) - set(names):
            raise LabError(f"lab {number}: group {group.name!r} requires unknown groups {', '.join(sorted(unknown))}")
    if not groups:
        raise LabError(f"{spec_file}: no [[group]] entries")
    if with_hidden and not any(g.weight > 0 for g in groups):
        raise LabError(f"{spec_file}: every group has weight 0 (coverage only): give at least one group marks")
    for group in groups if lab_kind == "testbench" else ():
        _check_designs(group, top, folder)
    events, hints = _rules(spec, spec_file) if lab_kind == "design" else ((), ())
    return Lab(number, str(spec.get("title", f"lab {number}")), top, folder, float(spec.get("timeout_s", DEFAULT_TIMEOUT_S)),
               tuple(groups), chosen, notes, lab_kind, int(spec.get("seed", 1)), events, hints)


def _rules(spec: dict, where: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A design lab's own rules: the events its tests stand on, and the kinds of hint that fit it."""
    found = []
    for key in ("events", "hints"):
        value = spec.get(key)
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise LabError(f"{where}: give `{key} = [...]`, a list of names (an empty list says there are none)")
        found.append(tuple(value))
    events, hints = found
    if unknown := set(events) - set(EVENT_KINDS):
        raise LabError(f"{where}: events {', '.join(sorted(unknown))} are not events; use some of {', '.join(EVENT_KINDS)}")
    return events, hints
