"""Unsigned fixed-point formats UQ(int_bits).(frac_bits): raw integers and their values."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from roofline_golden import defaults


@dataclass(frozen=True)
class QFormat:
    """An unsigned UQ(int_bits).(frac_bits) format: value = raw / 2**frac_bits."""

    int_bits: int = defaults.INT_BITS
    frac_bits: int = defaults.FRAC_BITS

    def __post_init__(self) -> None:
        if self.int_bits < 1 or self.frac_bits < 1:
            raise ValueError(
                f"UQ{self.int_bits}.{self.frac_bits}: INT_BITS and FRAC_BITS must both be >= 1"
            )

    @property
    def name(self) -> str:
        return f"UQ{self.int_bits}.{self.frac_bits}"

    @property
    def width(self) -> int:
        return self.int_bits + self.frac_bits

    @property
    def one(self) -> int:
        """The raw value of 1.0."""
        return 1 << self.frac_bits

    @property
    def max_raw(self) -> int:
        return (1 << self.width) - 1

    @property
    def lsb(self) -> Fraction:
        return Fraction(1, self.one)

    @property
    def max_value(self) -> Fraction:
        return self.to_real(self.max_raw)

    def to_real(self, raw: int) -> Fraction:
        self.check_raw(raw)
        return Fraction(raw, self.one)

    def check_raw(self, raw: int, what: str = "value") -> int:
        if not 0 <= raw <= self.max_raw:
            raise ValueError(f"{what} raw {raw:#x} does not fit {self.name} (0 .. {self.max_raw:#x})")
        return raw

    def quantize(self, value: Rational | str | int | float) -> int:
        """Round a real value to the nearest raw value, ties up. Raises when out of range."""
        exact = Fraction(value)
        if exact < 0:
            raise ValueError(f"{value} is negative: {self.name} is unsigned")
        raw = round_half_up(exact * self.one)
        if raw > self.max_raw:
            raise ValueError(f"{value} does not fit {self.name} (largest {float(self.max_value):.6g})")
        return raw

    def is_exact(self, value: Rational | str | int) -> bool:
        """True when the value is representable without rounding and fits."""
        scaled = Fraction(value) * self.one
        return scaled.denominator == 1 and 0 <= scaled <= self.max_raw

    def hex(self, raw: int) -> str:
        return f"0x{raw:0{(self.width + 3) // 4}x}"

    def describe(self, raw: int, unit: str = "") -> str:
        """Raw hex and decoded value, for messages: '0x0000140000 (20 GB/s)'. A value the format
        cannot hold (read from a port wider than W bits) is named as such, never an error."""
        if not 0 <= raw <= self.max_raw:
            return f"{raw:#x} (beyond {self.name}: more bits than the format has)"
        value = format_fraction(self.to_real(raw))
        return f"{self.hex(raw)} ({value}{' ' + unit if unit else ''})"


def round_half_up(value: Fraction) -> int:
    """Nearest integer, ties toward +infinity (the RTL's 'add half an LSB, truncate')."""
    return (value + Fraction(1, 2)).__floor__()


def format_fraction(value: Fraction, digits: int = 10) -> str:
    """A decimal string of a Fraction: exact when it terminates within `digits`, else rounded."""
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{float(value):.{digits}g}"
    exact = Fraction(text) == value
    return text if exact else f"~{text}"
