"""A bench run's settings, carried from the runner into the simulator through the environment."""

from __future__ import annotations

import dataclasses
import json
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from roofline_core.contract import ParamSet
from roofline_golden.cases import Params

# The harness's defaults, written once and read by every command (the contract's are in roofline_golden.defaults).
SIMS = ("icarus", "verilator")
DEFAULT_SIM = "icarus"  # the per-vector benches, grading and the roofline command's --rtl
DEFAULT_SWEEP = 1000  # random vectors of a per-vector bench's sweep
BULK_SIM = "verilator"  # bulk sweeps: the simulator that streams fastest
BULK_COUNT = 1_000_000  # vectors of one bulk sweep
CONFIG_VARIABLE = "ROOFLINE_CONFIG"  # a run's settings, as JSON, for the simulator process
T = TypeVar("T")


@dataclass(frozen=True)
class BenchConfig:
    top: str
    sim: str
    param_set: ParamSet
    seed: int
    sweep: int = DEFAULT_SWEEP
    only: str | None = None
    rtl: str | None = None
    gates: bool = False  # simulate Yosys's gate-level netlist of the module instead of its RTL
    replay: str | None = None  # a proof's counterexample (trace.vcd or trace.yw): the bench replays it alone

    @property
    def params(self) -> Params:
        return self.param_set.params

    def to_env(self) -> dict[str, str]:
        return encode(self)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BenchConfig:
        return decode(cls, env)

    def rerun_command(self, test: str | None, only: str | int | None = None) -> str:
        """One command that reruns exactly this test (every test when None; with `only`, one vector or case)."""
        words = ["make sim", f"TOP={self.top}", f"SIM={self.sim}"]
        words += [f"{name}={value}" for name, value in self.param_set.for_module(self.top).items()]
        words += [f"SEED={self.seed}"] + ([f"TESTCASE={test}"] if test else [])
        if only is not None:
            words.append(f"ONLY={only}")
        if self.sweep != DEFAULT_SWEEP:
            words.append(f"N={self.sweep}")
        if self.rtl:
            words.append(f"RTL={self.rtl}")
        if self.gates:
            words.append("GATES=1")
        if self.replay:
            words.append(f"REPLAY={self.replay}")
        return " ".join(words)


def encode(cfg: Any) -> dict[str, str]:
    """A run's settings (a dataclass, nested ones included) as one environment variable."""
    return {CONFIG_VARIABLE: json.dumps(dataclasses.asdict(cfg))}


def decode(cls: type[T], env: Mapping[str, str] | None = None) -> T:
    """The settings `encode` wrote, read in the simulator process."""
    return _build(cls, json.loads((os.environ if env is None else env)[CONFIG_VARIABLE]))


def _build(cls: type[T], data: dict[str, Any]) -> T:
    hints = typing.get_type_hints(cls)
    values = {}
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        kind = hints[field.name]
        value = data[field.name]
        values[field.name] = _build(kind, value) if dataclasses.is_dataclass(kind) else value
    return cls(**values)
