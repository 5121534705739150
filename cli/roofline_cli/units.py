"""Quantities with explicit units, read exactly (as Fractions) into the project's canonical units."""

from __future__ import annotations

import math
import re
from fractions import Fraction

# Each kind of quantity: its canonical unit and the units accepted, as factors of it.
_SI = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
KINDS: dict[str, tuple[str, dict[str, Fraction]]] = {
    "compute": ("GFLOP/s", {f"{p}FLOP/s": Fraction(f, 10**9) for p, f in _SI.items()}),
    "bandwidth": ("GB/s", {**{f"{p}B/s": Fraction(f, 10**9) for p, f in _SI.items()},
                           **{f"{p}B/s": Fraction(f, 10**9) for p, f in _BINARY.items()}}),
    "intensity": ("FLOP/B", {"FLOP/B": Fraction(1), "FLOP/byte": Fraction(1)}),
    "operations": ("FLOP", {f"{p}FLOP": Fraction(f) for p, f in _SI.items()}),
    "bytes": ("B", {**{f"{p}B": Fraction(f) for p, f in _SI.items()}, **{f"{p}B": Fraction(f) for p, f in _BINARY.items()}}),
}
_QUANTITY = re.compile(r"^\s*([0-9][0-9_,]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(\S*)\s*$")


MAX_DIGITS = 60  # digits of a number as written
MAX_EXPONENT = 60  # |exponent| of a number as written: far beyond any machine, far short of a slow Fraction


class UnitError(ValueError):
    """A value that is not a number with a known unit of the kind expected."""


def _exact(text: str) -> Fraction:
    """A decimal number, read exactly, once its size is known to be reasonable."""
    mantissa, _, exponent = text.lower().partition("e")
    digits = sum(character.isdigit() for character in mantissa)
    if digits > MAX_DIGITS or (exponent and abs(int(exponent)) > MAX_EXPONENT):
        raise UnitError(f"{text} is outside the numbers this tool reads (at most {MAX_DIGITS} digits, "
                        f"exponents within +-{MAX_EXPONENT})")
    return Fraction(text)


def parse(value: object, kind: str) -> Fraction:
    """'1.555 TB/s' -> Fraction in GB/s, and so on. Counts (operations, bytes) may be bare numbers."""
    canonical, units = KINDS[kind]
    if isinstance(value, bool):
        raise UnitError(f"expected {_noun(kind)} such as '10 {canonical}', got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UnitError(f"{value!r} is not a finite number")
    if isinstance(value, (int, float)):
        if kind in ("operations", "bytes"):
            return _non_negative(_exact(str(value)), kind)
        raise UnitError(f"{value!r} has no unit: write it with one, for example '{value} {canonical}'")
    if not isinstance(value, str):
        raise UnitError(f"expected {_noun(kind)} such as '10 {canonical}', got {value!r}")
    if value.strip().startswith("-"):
        raise UnitError(f"{value!r} is negative")
    match = _QUANTITY.match(value)
    if not match:
        raise UnitError(f"{value!r} is not a number followed by a unit, such as '10 {canonical}'")
    number, unit = match.group(1).replace(",", "").replace("_", ""), match.group(2)
    if not unit:
        if kind in ("operations", "bytes"):
            unit = canonical
        else:
            raise UnitError(f"{value!r} has no unit: write it with one, for example '{number} {canonical}'")
    if unit not in units:
        raise UnitError(f"unknown unit {unit!r} for {_noun(kind)}; use one of {', '.join(units)}")
    return _non_negative(_exact(number) * units[unit], kind)


def _noun(kind: str) -> str:
    """'a bandwidth', but 'bytes' and 'operations' (counts, in the plural)."""
    return kind if kind in ("operations", "bytes") else f"a {kind}"


def _non_negative(value: Fraction, kind: str) -> Fraction:
    if value < 0:
        raise UnitError(f"{_noun(kind)} cannot be negative")
    return value
