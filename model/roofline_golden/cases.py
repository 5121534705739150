"""The shared case table (`cases.toml`): load it, and resolve a case to raw values for a format."""

from __future__ import annotations

import ast
import operator
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from typing import Any

from roofline_golden import defaults
from roofline_golden.qformat import QFormat

GROUPS = ("document", "edge")


class NotRepresentable(Exception):
    """The case's numbers do not fit the format or parameters under test."""


@dataclass(frozen=True)
class Level:
    name: str
    bw: str | None = None
    ai: str | None = None
    ops: int | str | None = None
    bytes: int | str | None = None


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    title: str
    source: str
    levels: tuple[Level, ...]
    peak: str | None = None
    expect: dict[str, Any] = field(default_factory=dict)

    @property
    def has_rates(self) -> bool:
        """Every level gives bw and ai: the case drives attainable and hierarchy."""
        return self.peak is not None and all(lv.bw is not None and lv.ai is not None for lv in self.levels)

    @property
    def count_levels(self) -> tuple[Level, ...]:
        """Levels that give ops and bytes: each drives the intensity divider."""
        return tuple(lv for lv in self.levels if lv.ops is not None and lv.bytes is not None)


@dataclass(frozen=True)
class Params:
    """The RTL parameters a case is resolved against."""

    fmt: QFormat
    levels: int = defaults.LEVELS
    count_bits: int = defaults.COUNT_BITS

    def names(self) -> dict[str, int]:
        return {
            "F": self.fmt.frac_bits,
            "I": self.fmt.int_bits,
            "W": self.fmt.width,
            "ONE": self.fmt.one,
            "MAX": self.fmt.max_raw,
            "CMAX": (1 << self.count_bits) - 1,
        }


@dataclass(frozen=True)
class RatesCase:
    """A case's rates as raw values, padded to `Params.levels` levels."""

    case: Case
    peak: int
    bws: tuple[int, ...]
    ais: tuple[int, ...]
    used_levels: int  # the case's own levels; the rest is padding that never binds
    expect_cap: int | None
    expect_level_caps: tuple[int, ...] | None
    expect_binding: int | None  # level index, or `levels` for compute; None: not stated


@dataclass(frozen=True)
class CountsCase:
    """One level's counts as integers, with the intensity the case expects."""

    case: Case
    level: Level
    ops: int
    bytes: int
    expect_ai: Fraction | None
    expect_ai_within: Fraction  # 0: exact (to the format's rounding)
    expect_sat: bool | None
    expect_div0: bool | None


def load_cases() -> list[Case]:
    text = resources.files(__package__).joinpath("cases.toml").read_text(encoding="utf-8")
    table = tomllib.loads(text)
    cases = []
    for entry in table["case"]:
        entry = dict(entry)
        levels = tuple(
            Level(name=lv.pop("name", f"level {i}"), **lv) for i, lv in enumerate(entry.pop("levels"))
        )
        expect = {key: entry.pop(key) for key in list(entry) if key.startswith("expect_")}
        case = Case(levels=levels, expect=expect, **entry)
        if case.group not in GROUPS:
            raise ValueError(f"cases.toml: case {case.id}: group must be one of {GROUPS}")
        cases.append(case)
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise ValueError("cases.toml: case ids must be unique")
    return cases


def rates(case: Case, params: Params) -> RatesCase:
    """Raw rates of a case for attainable/hierarchy; raises NotRepresentable when it can't fit."""
    if not case.has_rates:
        raise NotRepresentable(f"{case.id} gives no rates")
    used = len(case.levels)
    if used > params.levels:
        raise NotRepresentable(f"{case.id} has {used} levels; LEVELS = {params.levels}")
    fmt = params.fmt
    peak = rate(case.peak, params)
    padding = params.levels - used
    bws = tuple(rate(lv.bw, params) for lv in case.levels) + (fmt.max_raw,) * padding
    ais = tuple(rate(lv.ai, params) for lv in case.levels) + (fmt.max_raw,) * padding
    expect = case.expect
    level_caps = expect.get("expect_level_caps")
    return RatesCase(
        case=case,
        peak=peak,
        bws=bws,
        ais=ais,
        used_levels=used,
        expect_cap=rate(expect["expect_cap"], params) if "expect_cap" in expect else None,
        expect_level_caps=tuple(rate(c, params) for c in level_caps) if level_caps else None,
        expect_binding=_binding(case, params.levels),
    )


def counts(case: Case, params: Params) -> list[CountsCase]:
    """Each counted level of a case for the intensity divider."""
    expect = case.expect
    resolved = []
    for level in case.count_levels:
        ops, bytes_moved = count(level.ops, params), count(level.bytes, params)
        resolved.append(
            CountsCase(
                case=case,
                level=level,
                ops=ops,
                bytes=bytes_moved,
                expect_ai=_value(expect["expect_ai"], params) if "expect_ai" in expect else None,
                expect_ai_within=Fraction(expect.get("expect_ai_within", "0")),
                expect_sat=expect.get("expect_sat"),
                expect_div0=expect.get("expect_div0"),
            )
        )
    return resolved


def rate(text: str, params: Params) -> int:
    """A raw value of the format: 'raw:<expr>' as is, a decimal only when exactly representable."""
    fmt = params.fmt
    if text.startswith("raw:"):
        return _fits(evaluate(text[4:], params.names()), fmt.max_raw, text, fmt.name)
    if not fmt.is_exact(text):
        raise NotRepresentable(f"{text} is not exactly representable in {fmt.name}")
    return fmt.quantize(text)


def count(value: int | str, params: Params) -> int:
    number = value if isinstance(value, int) else evaluate(value, params.names())
    return _fits(number, (1 << params.count_bits) - 1, str(value), f"{params.count_bits}-bit counts")


def _value(text: str, params: Params) -> Fraction:
    """An expected value in units (raw expressions decoded)."""
    if text.startswith("raw:"):
        return params.fmt.to_real(rate(text, params))
    return Fraction(text)


def _fits(number: int, limit: int, text: str, where: str) -> int:
    if not 0 <= number <= limit:
        raise NotRepresentable(f"{text} = {number} does not fit {where}")
    return number


def _binding(case: Case, levels: int) -> int | None:
    binds = case.expect.get("expect_binds")
    if binds is None:
        return None
    if binds == "compute":
        return levels
    if binds == "memory":
        if len(case.levels) != 1:
            raise ValueError(f"cases.toml: {case.id}: name the binding level when there are several")
        return 0
    names = [lv.name for lv in case.levels]
    if binds not in names:
        raise ValueError(f"cases.toml: {case.id}: expect_binds {binds!r} is not a level name")
    return names.index(binds)


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


def evaluate(expression: str, names: dict[str, int]) -> int:
    """Integer arithmetic over the names above; anything else is rejected."""

    def walk(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        raise ValueError(f"cases.toml: unsupported expression {expression!r}")

    return walk(ast.parse(expression, mode="eval"))


def markdown_table(group: str = "document") -> str:
    """The README's table of cases, generated from the data file so the two never drift."""
    rows = ["| case | levels (bw GB/s, ai FLOP/B; counts) | expected cap (GFLOP/s) | binds |", "|---|---|---|---|"]
    for case in load_cases():
        if case.group != group:
            continue
        levels = "; ".join(_describe_level(lv) for lv in case.levels)
        cap = case.expect.get("expect_cap", "model")
        rows.append(f"| {case.title} | {levels} | {cap} | {case.expect.get('expect_binds', 'model')} |")
    return "\n".join(rows)


def _describe_level(level: Level) -> str:
    parts = []
    if level.bw is not None:
        parts.append(f"{level.name}: bw {level.bw}, ai {level.ai}")
    if level.ops is not None:
        parts.append(f"ops {level.ops}, bytes {level.bytes}")
    return ", ".join(parts)


if __name__ == "__main__":
    print(markdown_table("document"))
