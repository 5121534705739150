"""Gate-level simulation (GATES=1): Yosys's generic netlist of a combinational module, simulated in its RTL's place."""

from __future__ import annotations

import subprocess
from pathlib import Path

from roofline_core.config import BenchConfig
from roofline_core.contract import tops_with
from roofline_core.tools import ToolError, generic_synth, yosys_command

GATE_LEVEL_TOPS = tops_with("gates")


def gate_netlist(cfg: BenchConfig, sources: list[Path], folder: Path) -> Path:
    """Yosys's generic gate-level netlist of the module at the bench's parameters."""
    if cfg.top not in GATE_LEVEL_TOPS:
        raise ToolError(f"GATES=1 simulates the combinational modules ({', '.join(GATE_LEVEL_TOPS)}), not {cfg.top}")
    if cfg.sim != "icarus":
        raise ToolError("GATES=1 runs on Icarus: SIM=icarus")
    yosys = yosys_command()
    folder.mkdir(parents=True, exist_ok=True)
    netlist = folder / f"{cfg.top}_gates.v"
    params = " ".join(f"-set {name} {value}" for name, value in cfg.param_set.for_module(cfg.top).items())
    script = (f"read_verilog -sv {' '.join(str(p) for p in sources)}; chparam {params} {cfg.top}; "
              f"{generic_synth(cfg.top)}; check -assert; write_verilog -noattr {netlist}")
    run = subprocess.run([*yosys, "-q", "-p", script], capture_output=True, text=True)
    if run.returncode:
        raise ToolError(f"Yosys could not synthesize {cfg.top}: {run.stdout[-1500:]}{run.stderr[-1500:]}")
    return netlist
