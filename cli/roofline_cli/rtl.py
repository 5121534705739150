"""`roofline place --rtl`: the same placements computed by the simulated RTL, judged value by value.

Kernels given by intensities go through roofline_hierarchy (rates quantized to the format);
kernels given by counts go through roofline_counts (the cap rounded once, from the counts).
Each RTL value must equal the fixed-point golden model bit for bit, and lie within the stated
bound of the exact value: half an LSB plus the error that quantizing the inputs introduced,
|min(peak, ai*bw) - min(peak', ai'*bw')| <= max(|peak - peak'|, |ai*bw - ai'*bw'|).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from roofline_cli.place import Placement, number
from roofline_cli.platform import InputError, Platform
from roofline_golden import QFormat, fixed

COUNT_BITS = 64


@dataclass(frozen=True)
class Compared:
    name: str  # a level name, or "end to end"
    exact: Fraction
    model_raw: int
    rtl_raw: int
    bound_lsb: Fraction

    def diff_lsb(self, fmt: QFormat) -> Fraction:
        return Fraction(self.rtl_raw) - self.exact * fmt.one

    def agrees(self, fmt: QFormat) -> bool:
        return self.rtl_raw == self.model_raw and abs(self.diff_lsb(fmt)) <= self.bound_lsb


def parse_format(text: str) -> QFormat:
    try:
        int_bits, frac_bits = (int(part) for part in text.upper().removeprefix("UQ").split("."))
        fmt = QFormat(int_bits, frac_bits)
    except ValueError:
        raise InputError(f"--format {text}: write it as UQ<int>.<frac>, for example UQ24.16") from None
    if fmt.width > 63:
        raise InputError(f"--format {text}: the CLI's RTL path supports up to 63 bits")
    return fmt


def quantize(fmt: QFormat, value: Fraction, platform: Platform, field: str) -> int:
    try:
        return fmt.quantize(value)
    except ValueError:
        raise InputError(
            f"{platform.path}: {field}: {number(value)} does not fit the RTL's {fmt.name} "
            f"(0 .. {number(fmt.max_value)})"
        ) from None


def count(value: Fraction, platform: Platform, field: str) -> int:
    if value.denominator != 1:
        raise InputError(f"{platform.path}: {field}: {number(value)} is not a whole count")
    if value >= 1 << COUNT_BITS:
        raise InputError(f"{platform.path}: {field}: {number(value)} does not fit the RTL's {COUNT_BITS}-bit counts")
    return int(value)


def vectors_for(fmt: QFormat, platform: Platform, placements: list[Placement], by_counts: bool) -> list[dict[str, object]]:
    levels = [level.name for level in platform.levels]
    vectors = []
    for placement in placements:
        kernel = placement.kernel
        where = f"kernel ({kernel.name})"
        peak = quantize(fmt, placement.peak, platform, f"platform.peak.{kernel.precision}")
        bws = [quantize(fmt, platform.level(name).bandwidth, platform, f"platform.levels.{name}.bandwidth") for name in levels]
        if by_counts:
            assert kernel.ops is not None and kernel.bytes is not None
            moved = [count(kernel.bytes[name], platform, f"{where}.bytes.{name}") if name in kernel.bytes else 0
                     for name in levels]  # no bytes: the level never binds
            vectors.append({"peak": peak, "bws": bws, "ops": count(kernel.ops, platform, f"{where}.ops"), "bytes": moved})
        else:
            # A level the kernel leaves out gets an intensity and bandwidth so high it never binds.
            ais = [quantize(fmt, kernel.intensity[name], platform, f"{where}.intensity.{name}") if name in kernel.intensity
                   else fmt.max_raw for name in levels]
            bws = [bw if name in kernel.intensity else fmt.max_raw for bw, name in zip(bws, levels, strict=True)]
            vectors.append({"peak": peak, "bws": bws, "ais": ais})
    return vectors


def module_for(by_counts: bool) -> str:
    """The RTL module that computes these placements: the contract table names one for each role."""
    from roofline_core.contract import cli_module

    return cli_module("counts" if by_counts else "rates")


def simulate(
    sim: str, fmt: QFormat, levels: int, by_counts: bool, vectors: list[dict[str, object]], work: Path
) -> list[dict[str, int]]:
    from roofline_core.contract import ParamSet
    from roofline_core.paths import BUILD_ROOT, COCOTB_TESTS_DIR
    from roofline_core.simulator import Build, run_build
    from roofline_core.sources import rtl_sources, sources_digest

    top = module_for(by_counts)
    param_set = ParamSet(fmt.int_bits, fmt.frac_bits, levels, COUNT_BITS)
    sources = rtl_sources(os.environ.get("ROOFLINE_RTL") or None)
    folder = BUILD_ROOT / sim / f"cli-{top}-{param_set.tag}-{sources_digest(sources)}"
    work.mkdir(parents=True, exist_ok=True)
    job, out = work / f"{top}-job.json", work / f"{top}-results.json"
    out.unlink(missing_ok=True)
    job.write_text(json.dumps({"top": top, "width": fmt.width, "count_bits": COUNT_BITS, "vectors": vectors,
                               "max_latency": levels * (COUNT_BITS + fmt.width + 2) + 4}))
    build = Build(sim=sim, toplevel=top, test_module="cli_job", test_dir=COCOTB_TESTS_DIR, sources=sources,
                  parameters=param_set.for_module(top), env={"ROOFLINE_CLI_JOB": str(job), "ROOFLINE_CLI_OUT": str(out)},
                  folder=folder, seed=0)
    result = run_build(build, quiet=True)  # the simulator's output goes to <folder>/sim.log
    if result.failed or not out.exists():
        why = "; ".join(result.failures) or f"see {folder / 'sim.log'}"
        raise RuntimeError(f"the {top} simulation did not finish: {why}")
    return json.loads(out.read_text())


def compare(fmt: QFormat, platform: Platform, placement: Placement, vector: dict[str, object],
            result: dict[str, int], by_counts: bool) -> list[Compared]:
    kernel = placement.kernel
    levels = [level.name for level in platform.levels]
    peak_q = int(vector["peak"])  # type: ignore[arg-type]
    bws_q = [int(b) for b in vector["bws"]]  # type: ignore[union-attr]
    if by_counts:
        model = fixed.counts_hierarchy(fmt, COUNT_BITS, peak_q, bws_q, int(vector["ops"]), vector["bytes"])  # type: ignore[arg-type]
    else:
        model = fixed.hierarchy(fmt, peak_q, bws_q, vector["ais"])  # type: ignore[arg-type]
    rtl_level_caps = [(result["level_caps"] >> (i * fmt.width)) & fmt.max_raw for i in range(len(levels))]
    peak_error = abs(placement.peak - fmt.to_real(peak_q))
    compared = []
    worst = Fraction(0)
    for row in placement.rows:
        i = levels.index(row.level)
        bw_q = fmt.to_real(bws_q[i])
        if by_counts:
            assert kernel.ops is not None and kernel.bytes is not None
            roof_q = kernel.ops * bw_q / kernel.bytes[row.level]
        else:
            roof_q = fmt.to_real(int(vector["ais"][i])) * bw_q  # type: ignore[index]
        roof_error = abs(row.intensity * platform.level(row.level).bandwidth - roof_q)
        input_error = max(peak_error, roof_error)
        worst = max(worst, input_error)
        bound = Fraction(1, 2) + input_error * fmt.one
        compared.append(Compared(row.level, row.cap, model.level_caps[i], rtl_level_caps[i], bound))
    compared.append(Compared("end to end", placement.cap, model.cap, result["cap"], Fraction(1, 2) + worst * fmt.one))
    return compared


def describe(fmt: QFormat, sim: str, module: str, compared: list[Compared]) -> list[str]:
    lines = [f"  {'':<12} {'model (exact)':>16} {f'RTL ({module}, {sim})':>40} {'diff LSB':>10} {'bound LSB':>10}"]
    for c in compared:
        flag = "" if c.agrees(fmt) else ("  <- DISAGREES" if c.rtl_raw == c.model_raw else "  <- NOT THE GOLDEN MODEL'S VALUE")
        lines.append(
            f"  {c.name:<12} {number(c.exact):>16} {fmt.describe(c.rtl_raw, 'GFLOP/s'):>40} "
            f"{float(c.diff_lsb(fmt)):>10.3f} {float(c.bound_lsb):>10.3f}{flag}"
        )
    return lines
