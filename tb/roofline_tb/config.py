"""A bench run's settings, carried from the runner into the simulator through the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

from roofline_golden.cases import Params

from .contract import ParamSet

SIMS = ("icarus", "verilator")
DEFAULT_SWEEP = 1000


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

    @property
    def params(self) -> Params:
        return self.param_set.params

    def to_env(self) -> dict[str, str]:
        env = {
            "ROOFLINE_TOP": self.top,
            "ROOFLINE_SIM": self.sim,
            "ROOFLINE_INT_BITS": str(self.param_set.int_bits),
            "ROOFLINE_FRAC_BITS": str(self.param_set.frac_bits),
            "ROOFLINE_LEVELS": str(self.param_set.levels),
            "ROOFLINE_COUNT_BITS": str(self.param_set.count_bits),
            "ROOFLINE_MUL_STAGES": str(self.param_set.mul_stages),
            "ROOFLINE_SEED": str(self.seed),
            "ROOFLINE_SWEEP": str(self.sweep),
        }
        if self.only is not None:
            env["ROOFLINE_ONLY"] = self.only
        if self.rtl:
            env["ROOFLINE_RTL"] = self.rtl
        if self.gates:
            env["ROOFLINE_GATES"] = "1"
        return env

    @classmethod
    def from_env(cls) -> BenchConfig:
        env = os.environ
        return cls(
            top=env["ROOFLINE_TOP"],
            sim=env["ROOFLINE_SIM"],
            param_set=ParamSet(
                int(env["ROOFLINE_INT_BITS"]),
                int(env["ROOFLINE_FRAC_BITS"]),
                int(env["ROOFLINE_LEVELS"]),
                int(env["ROOFLINE_COUNT_BITS"]),
                int(env.get("ROOFLINE_MUL_STAGES", "1")),
            ),
            seed=int(env["ROOFLINE_SEED"]),
            sweep=int(env.get("ROOFLINE_SWEEP", DEFAULT_SWEEP)),
            only=env.get("ROOFLINE_ONLY") or None,
            rtl=env.get("ROOFLINE_RTL") or None,
            gates=env.get("ROOFLINE_GATES") == "1",
        )

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
        return " ".join(words)
