"""`roofline place --json`: the placements as a schema-versioned document for scripts and notebooks.

The schema ships with the package (roofline_cli/schema/placement.schema.json). Rates are in
GFLOP/s and GB/s, intensities in FLOP/B, each as a float and, for caps, also as an exact
fraction ("p/q") from the exact model.
"""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from typing import Any

from roofline_cli.place import Placement
from roofline_cli.platform import Platform

SCHEMA_VERSION = 1


def schema() -> dict[str, Any]:
    return json.loads(resources.files("roofline_cli").joinpath("schema/placement.schema.json").read_text())


def exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


def kernel_entry(placement: Placement, rtl: dict[str, Any] | None) -> dict[str, Any]:
    kernel = placement.kernel
    entry: dict[str, Any] = {
        "name": kernel.name,
        "precision": kernel.precision,
        "peak_gflops": float(placement.peak),
        "given_by": "counts" if kernel.by_counts else "intensities",
        "levels": [{"name": row.level, "intensity_flop_per_byte": float(row.intensity), "cap_gflops": float(row.cap),
                    "cap_exact": exact(row.cap), "ridge_flop_per_byte": float(row.ridge),
                    "roof": "memory" if row.memory_bound else "compute"} for row in placement.rows],
        "binding": placement.binding,
        "cap_gflops": float(placement.cap),
        "cap_exact": exact(placement.cap),
        "measured_gflops": None if kernel.measured is None else float(kernel.measured),
        "fraction_of_cap": None if placement.fraction is None else float(placement.fraction),
        "headroom_gflops": None if kernel.measured is None else float(placement.cap - kernel.measured),
        "above_roof": placement.above_roof,
    }
    if rtl is not None:
        entry["rtl"] = rtl
    return entry


def document(platform: Platform, placements: list[Placement], rtl: dict[str, dict[str, Any]] | None = None,
             simulator: str | None = None, fmt: str | None = None) -> dict[str, Any]:
    """rtl: per kernel name, the RTL's raw values against the model (from `roofline place --rtl`)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "platform": {
            "name": platform.name,
            "source": platform.source,
            "file": str(platform.path),
            "peaks_gflops": {name: float(peak) for name, peak in platform.peaks.items()},
            "levels": [{"name": level.name, "bandwidth_gbs": float(level.bandwidth)} for level in platform.levels],
        },
        "rtl": None if rtl is None else {"simulator": simulator, "format": fmt},
        "kernels": [kernel_entry(p, None if rtl is None else rtl.get(p.kernel.name)) for p in placements],
    }
