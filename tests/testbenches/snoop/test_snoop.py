"""A hostile lab 6 testbench: everything it can see besides the port values, and every way into the grader.

It prints one `FINGERPRINT <format> <digest>` line: a digest of what it observed that is not a
port value (files and their contents, the environment, the command line, the simulator's
hierarchy under dut and beside it, the parameters). The grader must give every design of one
format the same digest. It prints `LEAK <what>` for anything of the grader it could reach: the
reference RTL or a mutant's text, the hidden groups, the grader's own modules. It leaves a
marker in every folder it can write and prints `STATE <where>` when it finds one from an earlier
run: every run must start from nothing. Then it checks the calculator checks and passes them.
"""

import hashlib
import importlib
import os
import sys
from pathlib import Path

import cocotb
from cocotb import simulator
from cocotb.triggers import Timer

SKIPPED = ("/usr", "/etc", "/proc", "/sys", "/dev", "/lib", "/lib64", "/bin", "/sbin")  # the system's, the same everywhere
GRADER_TEXT = (b"roofline_round_cap", b"ROUND_HALF", b"mutated =", b"[[mutant]]", b"[[group]]", b"designs = [")
MARKER = "roofline-lab6-snoop-marker"
INTERNAL = ("u_level", "u_round_cap", "product_o", "rounded_sum", "unused_product", "product_i", "u_param_check")


def walk(root: str, seen: list[str], leaks: list[str]) -> None:
    """Every file under root but the system's and Python's: its path, size and digest in `seen`, grader text in `leaks`."""
    skipped = (*SKIPPED, sys.prefix, sys.base_prefix)
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders if os.path.join(folder, s) not in skipped)
        for name in sorted(files):
            path = os.path.join(folder, name)
            try:
                if not os.path.isfile(path) or os.path.getsize(path) > 32 << 20:
                    seen.append(f"{path} (not read)")
                    continue
                data = Path(path).read_bytes()
            except OSError as problem:
                seen.append(f"{path} unreadable {type(problem).__name__}")
                continue
            if MARKER.encode() not in data and any(text in data for text in GRADER_TEXT) and path != __file__:
                leaks.append(f"grader text in {path}")
            seen.append(f"{path} {len(data)} {hashlib.sha256(data).hexdigest()}")


def hierarchy(handle, depth: int = 0) -> list[str]:
    found = []
    for child in handle:
        found.append(f"{'  ' * depth}{child._name} {type(child).__name__}")
        if depth < 3 and hasattr(child, "__iter__") and type(child).__name__.endswith("HierarchyObject"):
            found += hierarchy(child, depth + 1)
    return found


@cocotb.test()
async def test_snoop(dut):
    seen: list[str] = []
    leaks: list[str] = []
    places = [Path(place) / MARKER for place in ("/tmp", "/run", os.environ.get("HOME", "/run"), "/dev/shm", "/submission",
                                                 "/channel")]
    for marker in places:
        if marker.exists():
            print(f"STATE {marker}")
    for marker in places:
        try:
            marker.write_text("left by an earlier run")
        except OSError:
            pass
    walk("/", seen, leaks)
    for known in ("/channel/shell.vvp", "/run/results.xml"):  # files in folders it may not list
        try:
            seen.append(f"{known} {hashlib.sha256(Path(known).read_bytes()).hexdigest()}")
        except OSError as problem:
            seen.append(f"{known} unreadable {type(problem).__name__}")
    seen += [f"env {name}={value}" for name, value in sorted(os.environ.items())]
    seen += [f"argv {word}" for word in sys.argv] + [f"path {entry}" for entry in sys.path]
    seen += hierarchy(dut)
    for name in INTERNAL:
        if hasattr(dut, name):
            leaks.append(f"dut.{name} exists")
    for root in ("roofline_port_channel", "roofline_panel", "roofline_level", "roofline_round_cap"):
        try:
            handle = simulator.get_root_handle(root)
        except Exception:  # noqa: BLE001 - not there is the answer
            handle = None
        seen.append(f"root {root}: {'found' if handle is not None else 'none'}")
    for module in ("roofline_golden.fixed", "roofline_bench.attainable", "roofline_course.grade", "roofline_core.contract",
                   "roofline_flows.rtl_mutants", "roofline_cocotb.dut"):
        try:
            importlib.import_module(module)
            leaks.append(f"import {module}")
        except Exception:  # noqa: BLE001 - an ImportError, or a PermissionError from a hidden folder
            pass
    venv = Path(sys.prefix)
    for guess in (venv.parent / "rtl", venv.parent / "labs" / "lab6", venv.parent / "flows" / "mutants", venv.parent / "build"):
        try:
            if guess.exists() and any(True for _ in guess.rglob("*")):
                leaks.append(f"reached {guess}")
        except OSError:  # not readable: not reached
            pass
    fmt = f"UQ{int(dut.INT_BITS.value)}.{int(dut.FRAC_BITS.value)}"
    seen.append(f"format {fmt}")
    digest = hashlib.sha256("\n".join(seen).encode()).hexdigest()
    print(f"FINGERPRINT {fmt} {digest}")
    for line in seen:
        print(f"SEEN {line}")
    for leak in leaks:
        print(f"LEAK {leak}")
    f = int(dut.FRAC_BITS.value)
    dut.peak_i.value, dut.bw_i.value = 100 << f, 20 << f
    for ai, cap, mem_bound in ((1 << (f - 1), 10 << f, 1), (5 << f, 100 << f, 0)):
        dut.ai_i.value = ai
        await Timer(1, "ns")
        assert (int(dut.cap_o.value), int(dut.mem_bound_o.value)) == (cap, mem_bound)
