"""A bench run's settings, carried from the runner into the simulator through the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

from roofline_golden import QFormat
from roofline_golden.cases import Params

# The contract's three modules, then the project's pipelined and counts-mode units.
CONTRACT_TOPS = ("roofline_attainable", "roofline_hierarchy", "roofline_intensity")
TOPS = (*CONTRACT_TOPS, "roofline_hierarchy_pipe", "roofline_counts")
SIMS = ("icarus", "verilator")
DEFAULT_SWEEP = 1000


@dataclass(frozen=True)
class ParamSet:
    """One parameterization of the RTL; `tag` names its build folder and test id."""

    int_bits: int = 24
    frac_bits: int = 16
    levels: int = 3
    count_bits: int = 64
    mul_stages: int = 1  # roofline_hierarchy_pipe's multiplication stages

    @property
    def tag(self) -> str:
        tag = f"uq{self.int_bits}_{self.frac_bits}-l{self.levels}-c{self.count_bits}"
        return tag + (f"-m{self.mul_stages}" if self.mul_stages != 1 else "")

    @property
    def params(self) -> Params:
        return Params(QFormat(self.int_bits, self.frac_bits), self.levels, self.count_bits)

    def for_module(self, top: str) -> dict[str, int]:
        """The Verilog parameters that `top` takes."""
        values = {"INT_BITS": self.int_bits, "FRAC_BITS": self.frac_bits}
        if top in ("roofline_hierarchy", "roofline_hierarchy_pipe", "roofline_counts"):
            values["LEVELS"] = self.levels
        if top in ("roofline_intensity", "roofline_counts"):
            values["COUNT_BITS"] = self.count_bits
        if top == "roofline_hierarchy_pipe":
            values["MUL_STAGES"] = self.mul_stages
        return values


# The regression's parameter sets: the default format, a FRAC_BITS other than 16, a small
# format; LEVELS 3, 4 and 1; counts of 64, 48 and 16 bits; the pipeline's split multiply once.
PARAM_SETS = (
    ParamSet(24, 16, 3, 64),
    ParamSet(16, 12, 4, 48, mul_stages=2),
    ParamSet(8, 8, 1, 16),
)


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
            words.append(f"SWEEP={self.sweep}")
        if self.rtl:
            words.append(f"RTL={self.rtl}")
        if self.gates:
            words.append("GATES=1")
        return " ".join(words)
