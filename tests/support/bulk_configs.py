"""A bulk sweep's config at the defaults, for the bulk tests."""

from __future__ import annotations

from roofline_bulk.config import SweepConfig
from roofline_core.contract import ParamSet

DEFAULT_SET = ParamSet()


def config(top: str = "roofline_attainable", param_set: ParamSet = DEFAULT_SET, lanes: int = 8, **kw: object) -> SweepConfig:
    return SweepConfig(top, "verilator", param_set, seed=11, lanes=lanes, **kw)  # type: ignore[arg-type]
