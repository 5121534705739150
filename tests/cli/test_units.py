"""The roofline command's quantities, read exactly into its canonical units (GFLOP/s, GB/s, FLOP/B,
FLOP, B): every prefix by its SI or IEC value, and every input it must refuse in one line
(docs/roofline-command.md). Fast, so that `make mutation` runs it per mutant of the units."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from roofline_cli import platform
from roofline_cli.units import UnitError, parse


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("1.555 TB/s", "bandwidth", Fraction(1555)),
    ("900 GB/s", "bandwidth", Fraction(900)),
    ("250 MB/s", "bandwidth", Fraction(1, 4)),
    ("2 kB/s", "bandwidth", Fraction(2, 10**6)),
    ("8 B/s", "bandwidth", Fraction(8, 10**9)),
    ("1 PB/s", "bandwidth", Fraction(10**6)),
    ("1 KiB/s", "bandwidth", Fraction(1024, 10**9)),
    ("1 MiB/s", "bandwidth", Fraction(2**20, 10**9)),
    ("1 GiB/s", "bandwidth", Fraction(2**30, 10**9)),
    ("1 TiB/s", "bandwidth", Fraction(2**40, 10**9)),
    ("19.5 TFLOP/s", "compute", Fraction(19500)),
    ("1e3 MFLOP/s", "compute", Fraction(1)),
    ("7 FLOP/s", "compute", Fraction(7, 10**9)),
    ("0.5 FLOP/byte", "intensity", Fraction(1, 2)),
    (".25 FLOP/B", "intensity", Fraction(1, 4)),
    ("3 kFLOP", "operations", Fraction(3000)),
    ("4", "operations", Fraction(4)),
    ("1,024 B", "bytes", Fraction(1024)),
    ("1_000 KiB", "bytes", Fraction(1000 * 1024)),
    ("  12 GB/s  ", "bandwidth", Fraction(12)),
    ("0 GB/s", "bandwidth", Fraction(0)),
    ("1.5e-3 GB/s", "bandwidth", Fraction(3, 2000)),
    (12, "bytes", Fraction(12)),
    (2.5, "operations", Fraction(5, 2)),
    ("1" * 60 + " B", "bytes", Fraction(int("1" * 60))),
    ("1e60 B", "bytes", Fraction(10**60)),
    ("1e-60 FLOP/B", "intensity", Fraction(1, 10**60)),
])
def test_a_quantity_is_read_exactly_in_canonical_units(text: object, kind: str, value: Fraction) -> None:
    assert parse(text, kind) == value


@pytest.mark.parametrize(("text", "kind", "message"), [
    (True, "bytes", "expected bytes such as '10 B', got True"),
    (float("inf"), "bytes", "inf is not a finite number"),
    (float("nan"), "compute", "nan is not a finite number"),
    (10, "bandwidth", "10 has no unit: write it with one, for example '10 GB/s'"),
    ([10], "compute", "expected a compute such as '10 GFLOP/s', got [10]"),
    ("-20 GB/s", "bandwidth", "'-20 GB/s' is negative"),
    (" -1 FLOP/B", "intensity", "' -1 FLOP/B' is negative"),
    (-5, "bytes", "bytes cannot be negative"),
    (-0.5, "operations", "operations cannot be negative"),
    ("fast", "compute", "'fast' is not a number followed by a unit, such as '10 GFLOP/s'"),
    ("20", "bandwidth", "'20' has no unit: write it with one, for example '20 GB/s'"),
    ("20 GB", "bandwidth", "unknown unit 'GB' for a bandwidth; use one of B/s, kB/s, MB/s, GB/s, TB/s, PB/s, KiB/s, "
                           "MiB/s, GiB/s, TiB/s"),
    ("1" * 61 + " B", "bytes", "outside the numbers this tool reads (at most 60 digits, exponents within +-60)"),
    ("1e61 B", "bytes", "outside the numbers this tool reads"),
    ("1e-61 FLOP/B", "intensity", "outside the numbers this tool reads"),
])
def test_what_cannot_be_read_is_one_line(text: object, kind: str, message: str) -> None:
    with pytest.raises(UnitError, match=re.escape(message)):
        parse(text, kind)


# ---------------------------------------------------------------- the platform file around the quantities

PLATFORM = """[platform]
peak = { FP64 = "100 GFLOP/s" }
levels = LEVELS
KERNELS"""
ONE_LEVEL = '[{ name = "DRAM", bandwidth = "20 GB/s" }]'
KERNEL = '[[kernel]]\nname = "k"\nintensity = { DRAM = "1 FLOP/B" }\n'


def platform_file(folder: Path, levels: str = ONE_LEVEL, kernels: str = KERNEL) -> Path:
    path = folder / "p.toml"
    path.write_text(PLATFORM.replace("LEVELS", levels).replace("KERNELS", kernels))
    return path


@pytest.mark.parametrize(("levels", "kernels", "message"), [
    ('"DRAM"', KERNEL, "platform.levels: give at least one memory level with a name and a bandwidth"),
    ("[]", KERNEL, "platform.levels: give at least one memory level with a name and a bandwidth"),
    ('[{ name = 5, bandwidth = "20 GB/s" }]', KERNEL, "platform.levels[0].name: missing"),
    (ONE_LEVEL, '[kernel]\nname = "k"\n', "kernel: give at least one [[kernel]]"),
    (ONE_LEVEL, '[[kernel]]\nname = 5\nintensity = { DRAM = "1 FLOP/B" }\n', "kernel[0].name: missing"),
    (ONE_LEVEL, '[[kernel]]\nname = "k"\nops = "8 FLOP"\nintensity = { DRAM = "1 FLOP/B" }\n',
     "kernel[0] (k): give either intensity per level, or ops and bytes per level"),
    (ONE_LEVEL, '[[kernel]]\nname = "k"\nops = "8 FLOP"\n', "kernel[0] (k): counts need both ops and bytes"),
])
def test_a_platform_field_that_cannot_be_used_is_named(levels: str, kernels: str, message: str, tmp_path: Path) -> None:
    path = platform_file(tmp_path, levels, kernels)
    with pytest.raises(platform.InputError) as raised:
        platform.load(path)
    assert str(raised.value) == f"{path}: {message}"


def test_a_kernel_given_by_counts_says_so(tmp_path: Path) -> None:
    counts = '[[kernel]]\nname = "c"\nops = "8 FLOP"\nbytes = { DRAM = "4 B" }\n'
    loaded = platform.load(platform_file(tmp_path, kernels=KERNEL + counts))
    assert [(k.name, k.by_counts, k.intensity) for k in loaded.kernels] == [("k", False, {"DRAM": 1}), ("c", True, {"DRAM": 2})]


def test_a_platform_file_above_50_mib_is_refused_unread(tmp_path: Path) -> None:
    """docs/roofline-command.md: a file larger than 50 MiB is refused unread. Sparse files: the size is there, not the bytes."""
    at, above = tmp_path / "at.toml", tmp_path / "above.toml"
    for path, size in ((at, 50 << 20), (above, (50 << 20) + 1)):
        with path.open("wb") as handle:
            handle.truncate(size)
    with pytest.raises(platform.InputError, match=re.escape(f"{above}: larger than 50 MiB")):
        platform.load(above)
    with pytest.raises(platform.InputError, match="not valid TOML"):  # read, then refused for what it holds
        platform.load(at)
