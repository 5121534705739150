from fractions import Fraction

import pytest

from roofline_golden import QFormat, round_half_up


def test_default_format_is_uq24_16() -> None:
    fmt = QFormat()
    assert (fmt.int_bits, fmt.frac_bits, fmt.width) == (24, 16, 40)
    assert fmt.max_raw == 2**40 - 1
    assert fmt.lsb == Fraction(1, 65536)


@pytest.mark.parametrize("int_bits, frac_bits", [(0, 16), (24, 0), (-1, 4)])
def test_rejects_formats_without_integer_or_fraction_bits(int_bits: int, frac_bits: int) -> None:
    with pytest.raises(ValueError, match="must both be >= 1"):
        QFormat(int_bits, frac_bits)


@pytest.mark.parametrize(
    "value, expected", [(Fraction(5, 2), 3), (Fraction(7, 2), 4), (Fraction(9, 4), 2), (Fraction(11, 4), 3)]
)
def test_round_half_up_sends_ties_up(value: Fraction, expected: int) -> None:
    assert round_half_up(value) == expected


def test_quantize_rounds_to_nearest_ties_up() -> None:
    fmt = QFormat(8, 1)
    assert fmt.quantize("0.25") == 1  # 0.5 LSB: a tie, up
    assert fmt.quantize("0.24") == 0
    assert fmt.quantize("100") == 200


def test_quantize_refuses_values_out_of_range() -> None:
    fmt = QFormat(8, 8)
    with pytest.raises(ValueError, match="does not fit UQ8.8"):
        fmt.quantize(256)
    with pytest.raises(ValueError, match="negative"):
        fmt.quantize(-1)


def test_describe_shows_raw_hex_and_units() -> None:
    assert QFormat().describe(20 << 16, "GB/s") == "0x0000140000 (20 GB/s)"
    assert QFormat(8, 8).describe(0x0180, "FLOP/B") == "0x0180 (1.5 FLOP/B)"
