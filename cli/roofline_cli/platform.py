"""Platform and kernels files (TOML or JSON): read, checked, and turned into exact quantities.

    [platform]
    name = "..."
    peak = { FP64 = "100 GFLOP/s", FP32 = "200 GFLOP/s" }   # one or more precisions
    levels = [ { name = "DRAM", bandwidth = "20 GB/s" } ]     # closest to the core first

    [[kernel]]
    name = "..."
    precision = "FP64"                          # optional: the first precision
    intensity = { DRAM = "0.25 FLOP/B" }        # per level, or:
    ops = "2000000 FLOP"                        # with
    bytes = { DRAM = "8000000 B" }              # per level
    measured = "4 GFLOP/s"                      # optional

Every problem is an InputError that names the file and the field.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from roofline_cli.units import UnitError, parse


class InputError(ValueError):
    """Bad input, with the file and field it is in."""


@dataclass(frozen=True)
class Level:
    name: str
    bandwidth: Fraction  # GB/s


@dataclass(frozen=True)
class Kernel:
    name: str
    precision: str
    levels: tuple[str, ...]  # the platform levels the kernel gives numbers for, in platform order
    intensity: dict[str, Fraction]  # FLOP/B per level
    ops: Fraction | None  # FLOP, when given by counts
    bytes: dict[str, Fraction] | None  # B per level, when given by counts
    measured: Fraction | None  # GFLOP/s

    @property
    def by_counts(self) -> bool:
        return self.ops is not None


@dataclass(frozen=True)
class Platform:
    name: str
    source: str
    peaks: dict[str, Fraction]  # GFLOP/s per precision, in file order
    levels: tuple[Level, ...]
    kernels: tuple[Kernel, ...]
    path: Path

    def level(self, name: str) -> Level:
        return next(level for level in self.levels if level.name == name)


MAX_FILE_BYTES = 50 << 20


def load(path: Path) -> Platform:
    if path.is_dir():
        raise InputError(f"{path}: a folder; give a .toml or .json file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix.lower() not in (".json", ".toml"):
        raise InputError(f"{path}: use a .toml or .json file")
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file (UTF-8)") from None
    except OSError as problem:
        raise InputError(f"{path}: cannot be read: {problem.strerror}") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a platform file") from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as problem:
        raise InputError(f"{path}: not valid {path.suffix[1:].upper()}: {problem}") from None
    return Reader(path).platform(data)


class Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, field: str, message: str) -> InputError:
        return InputError(f"{self.path}: {field}: {message}")

    def quantity(self, value: Any, kind: str, field: str) -> Fraction:
        try:
            return parse(value, kind)
        except UnitError as problem:
            raise self.fail(field, str(problem)) from None

    def table(self, data: Any, field: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(field, "missing, or not a table")
        return data

    def platform(self, data: Any) -> Platform:
        root = self.table(data, "the file")
        platform = self.table(root.get("platform"), "platform")
        peaks_in = self.table(platform.get("peak"), "platform.peak")
        if not peaks_in:
            raise self.fail("platform.peak", "give at least one precision, e.g. peak = { FP64 = \"100 GFLOP/s\" }")
        peaks = {name: self.quantity(value, "compute", f"platform.peak.{name}") for name, value in peaks_in.items()}
        for name, peak in peaks.items():
            if peak == 0:
                raise self.fail(f"platform.peak.{name}", "zero peak: nothing would ever run")
        levels_in = platform.get("levels")
        if not isinstance(levels_in, list) or not levels_in:
            raise self.fail("platform.levels", "give at least one memory level with a name and a bandwidth")
        levels = []
        for index, entry in enumerate(levels_in):
            field = f"platform.levels[{index}]"
            entry = self.table(entry, field)
            name = entry.get("name")
            if not isinstance(name, str) or not name:
                raise self.fail(f"{field}.name", "missing")
            if name in (level.name for level in levels):
                raise self.fail(f"{field}.name", f"level {name!r} is named twice")
            if "bandwidth" not in entry:
                raise self.fail(f"{field}.bandwidth", "missing")
            bandwidth = self.quantity(entry["bandwidth"], "bandwidth", f"{field}.bandwidth")
            if bandwidth == 0:
                raise self.fail(f"{field}.bandwidth", "zero bandwidth: nothing would ever run")
            levels.append(Level(name, bandwidth))
        kernels_in = root.get("kernel", [])
        if not isinstance(kernels_in, list) or not kernels_in:
            raise self.fail("kernel", "give at least one [[kernel]]")
        names = [level.name for level in levels]
        kernels = tuple(self.kernel(entry, index, names, peaks) for index, entry in enumerate(kernels_in))
        seen: set[str] = set()
        for index, kernel in enumerate(kernels):
            if kernel.name in seen:  # results are matched to kernels by name
                raise self.fail(f"kernel[{index}].name", f"kernel {kernel.name!r} is named twice")
            seen.add(kernel.name)
        return Platform(str(platform.get("name", self.path.stem)), str(platform.get("source", "")), peaks,
                        tuple(levels), kernels, self.path)

    def kernel(self, entry: Any, index: int, level_names: list[str], peaks: dict[str, Fraction]) -> Kernel:
        field = f"kernel[{index}]"
        entry = self.table(entry, field)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail(f"{field}.name", "missing")
        field = f"kernel[{index}] ({name})"
        precision = entry.get("precision", next(iter(peaks)))
        if not isinstance(precision, str) or precision not in peaks:
            raise self.fail(f"{field}.precision", f"unknown precision {precision!r}; the platform has {', '.join(peaks)}")
        has_intensity, has_counts = "intensity" in entry, "ops" in entry or "bytes" in entry
        if has_intensity == has_counts:
            raise self.fail(field, "give either intensity per level, or ops and bytes per level")
        ops, moved = None, None
        if has_counts:
            if "ops" not in entry or "bytes" not in entry:
                raise self.fail(field, "counts need both ops and bytes")
            ops = self.quantity(entry["ops"], "operations", f"{field}.ops")
            moved = {}
            for level, value in self.table(entry["bytes"], f"{field}.bytes").items():
                self.known_level(level, level_names, f"{field}.bytes")
                moved[level] = self.quantity(value, "bytes", f"{field}.bytes.{level}")
                if moved[level] == 0:
                    raise self.fail(f"{field}.bytes.{level}", "zero bytes: the intensity is unbounded (leave the level out)")
            intensity = {level: ops / b for level, b in moved.items()}
        else:
            intensity = {}
            for level, value in self.table(entry["intensity"], f"{field}.intensity").items():
                self.known_level(level, level_names, f"{field}.intensity")
                intensity[level] = self.quantity(value, "intensity", f"{field}.intensity.{level}")
        if not intensity:
            raise self.fail(field, "give numbers for at least one level")
        measured = self.quantity(entry["measured"], "compute", f"{field}.measured") if "measured" in entry else None
        ordered = tuple(level for level in level_names if level in intensity)
        return Kernel(name, precision, ordered, intensity, ops, moved, measured)

    def known_level(self, level: str, level_names: list[str], field: str) -> None:
        if level not in level_names:
            raise self.fail(f"{field}.{level}", f"unknown level {level!r}; the platform has {', '.join(level_names)}")
