"""A bench's simulator run: the Build of a module's cocotb bench from a BenchConfig, and running it.

The run itself (cocotb-test, the simulators, results and logs) is roofline_core.simulator's.
"""

from __future__ import annotations

from pathlib import Path

from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, ParamSet
from roofline_core.gates import gate_netlist
from roofline_core.paths import BUILD_ROOT, bench_dir
from roofline_core.simulator import BenchResult, Build, run_build
from roofline_core.sources import rtl_sources, sources_digest


def build_dir(cfg: BenchConfig, sources: list[Path]) -> Path:
    """One folder per (simulator, module, parameter set, source set): parallel runs never collide."""
    return BUILD_ROOT / cfg.sim / f"{cfg.top}-{cfg.param_set.tag}-{sources_digest(sources)}"


def bench_build(cfg: BenchConfig, *, suffix: str = "", verilator_args: tuple[str, ...] = ()) -> Build:
    """The Build of a module's cocotb bench; `suffix` names a variant's own folder (gates, coverage)."""
    sources = rtl_sources(cfg.rtl)
    folder = build_dir(cfg, sources)
    parameters = cfg.param_set.for_module(cfg.top)
    if cfg.gates:
        suffix = "-gates" + suffix
    folder = folder.with_name(folder.name + suffix)
    if cfg.gates:
        sources = [gate_netlist(cfg, sources, folder)]
        parameters = {}  # the netlist was synthesized at these parameters and has none left
    return exact_build(cfg, sources, folder, parameters, verilator_args)


def exact_build(cfg: BenchConfig, sources: list[Path], folder: Path, parameters: dict[str, int] | None = None,
                verilator_args: tuple[str, ...] = (), includes: tuple[str, ...] = ()) -> Build:
    """The module's bench on exactly these sources (no drop-in merge with rtl/)."""
    return Build(
        sim=cfg.sim,
        toplevel=cfg.top,
        test_module=f"test_{cfg.top}",
        test_dir=bench_dir(cfg.top),
        sources=sources,
        parameters=cfg.param_set.for_module(cfg.top) if parameters is None else parameters,
        env=cfg.to_env(),
        folder=folder,
        seed=cfg.seed,
        verilator_args=verilator_args,
        includes=includes,
    )


def unit_build(top: str, sim: str, values: dict[str, int], seed: int, drop_in: str | None = None) -> Build:
    """The Build of a building block's unit bench (flow "unit") at these parameter values."""
    sources = rtl_sources(drop_in)
    tag = "-".join(f"{name.lower()}{value}" for name, value in values.items())
    return Build(sim=sim, toplevel=top, test_module=f"test_{top}", test_dir=bench_dir(top), sources=sources,
                 parameters=dict(values), env={}, folder=BUILD_ROOT / sim / f"{top}-{tag}-{sources_digest(sources)}",
                 seed=seed)


def run_units(top: str, sim: str, seed: int, drop_in: str | None = None, *, quiet: bool = False) -> list[BenchResult]:
    """A building block's unit bench at each of its lint sets (the widths make lint builds it at)."""
    return [run_build(unit_build(top, sim, values, seed, drop_in), quiet=quiet) for values in MODULES[top].lint_sets]


def run_bench(cfg: BenchConfig, *, waves: bool = False, testcase: str | None = None, quiet: bool = False) -> BenchResult:
    return run_build(bench_build(cfg), waves=waves, testcase=testcase, quiet=quiet)




PUPPET_MODULE = "test_puppet"  # tb/cocotb_tests/test_puppet.py: the design's ports, worked from outside


def puppet_build(top: str, sim: str, param_set: ParamSet, sources: list[Path], folder: Path,
                 includes: tuple[str, ...] = ()) -> Build:
    """The design on exactly these sources under the puppet (roofline_cocotb.puppet), for a bench that
    runs in another process (roofline_bench.remote): no bench, seed or setting of the run goes with it."""
    return Build(sim=sim, toplevel=top, test_module=PUPPET_MODULE, test_dir=bench_dir(top), sources=sources,
                 parameters=param_set.for_module(top), env={}, folder=folder, seed=0, includes=includes)
