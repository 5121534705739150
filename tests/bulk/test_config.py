"""A sweep's config travels through the environment (roofline_bulk.config)."""

from __future__ import annotations

from bulk_configs import DEFAULT_SET, config  # noqa: F401

from roofline_bulk.config import SweepConfig
from roofline_bulk.stimulus import Shard
from roofline_core.contract import ParamSet


def test_a_config_travels_through_the_environment() -> None:
    cfg = config("roofline_hierarchy", ParamSet(16, 12, 4), lanes=3, count=999, shard=Shard(1, 4), only=None)
    assert SweepConfig.from_env(cfg.to_env()) == cfg
