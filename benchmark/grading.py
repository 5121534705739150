"""Speed of the course kit, sandbox included: one lab-1 submission (median of 5) and a class.

The class is generated: correct copies of the reference, copies with a bug (the ridge taken as
memory-bound, a truncated cap), copies that do not compile, and copies that hang (a
combinational loop). `python benchmark/grading.py [--class-size 100] [--timeout S]` prints both
times and writes benchmark/grading.json; `--class-size 0` times the one submission only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from roofline_core.paths import BUILD_ROOT, REPO_ROOT, RTL_DIR
from roofline_flows.rtl_mutant_catalogue import ridge_mutant_edit

FILES = ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")
HANG = """module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic                          mem_bound_o
);
  bit toggle, echo;
  always @(echo or peak_i) toggle = (peak_i != '0) && !echo;
  always @(toggle) echo = toggle;
  assign cap_o = peak_i & {(INT_BITS+FRAC_BITS){toggle}};
  assign mem_bound_o = toggle;
endmodule
"""
KINDS = {  # share of the class, and how each submission differs from the reference
    "correct": (0.4, None),
    "ridge": (0.15, ridge_mutant_edit()),
    "truncated": (0.15, ("roofline_round_cap.sv", "ROUND_W'(1) << (FRAC_BITS - 1)", "'0")),
    "broken": (0.2, ("roofline_level.sv", "endmodule", "  wire [3:0] = 4'd1;\nendmodule")),
    "hangs": (0.1, "hang"),
}


def make_class(folder: Path, size: int) -> dict[str, int]:
    if folder.exists():
        shutil.rmtree(folder)
    counts = {kind: round(share * size) for kind, (share, _) in KINDS.items()}
    counts["correct"] += size - sum(counts.values())
    for kind, count in counts.items():
        change = KINDS[kind][1]
        for index in range(count):
            student = folder / f"{kind}-{index:03d}"
            student.mkdir(parents=True)
            if change == "hang":
                (student / "roofline_attainable.sv").write_text(HANG)
                continue
            for name in FILES:
                text = (RTL_DIR / name).read_text()
                if change and change[0] == name:
                    text = text.replace(change[1], change[2])
                (student / name).write_text(text)
    return counts


def timed(command: list[str]) -> float:
    started = time.monotonic()
    subprocess.run(command, cwd=REPO_ROOT, check=False, capture_output=True)
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--class-size", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=None, help="TIMEOUT= for the class (default: the lab's)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    work = BUILD_ROOT / "benchmark" / "grading"
    single = [timed([sys.executable, "-m", "roofline_course.grade", "--lab", "1", "--rtl", str(RTL_DIR), "--quiet",
                     "--out", str(work / f"single-{run}")]) for run in range(5)]
    print(f"one lab-1 submission (the reference, every group), median of 5: {statistics.median(single):.2f} s "
          f"({', '.join(f'{s:.2f}' for s in single)})", flush=True)
    if args.class_size == 0:
        return 0
    counts = make_class(work / "class", args.class_size)
    command = [sys.executable, "-m", "roofline_course.cohort.grade_all", "--lab", "1", "--submissions", str(work / "class"),
               "--out", str(work / "class-out"), "--jobs", str(args.jobs)]
    command += ["--timeout", str(args.timeout)] if args.timeout else []
    shutil.rmtree(work / "class-out", ignore_errors=True)
    seconds = timed(command)
    print(f"grade-all, {args.class_size} lab-1 submissions ({', '.join(f'{n} {k}' for k, n in counts.items())}), "
          f"{args.jobs} jobs, timeout {args.timeout or 'the lab default'}: {seconds:.0f} s", flush=True)
    document = {"single_s": single, "single_median_s": statistics.median(single), "class_size": args.class_size,
                "class_mix": counts, "class_s": seconds, "jobs": args.jobs, "timeout": args.timeout,
                "cpus": os.cpu_count()}
    (REPO_ROOT / "benchmark" / "grading.json").write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
