"""Checking the combinational modules: one vector of rates against the model and the exact math."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from cocotb.triggers import Timer

from roofline_core.config import BenchConfig
from roofline_core.describe import exact_context, inputs_text
from roofline_core.scoreboard import Field, Scoreboard, selected
from roofline_golden import cases, fixed, format_fraction

from . import functional_coverage as functional
from .batch import RateBatch
from .signals import UnresolvedOutput, read_bool, read_uint
from .stimulus import RateVector, rate_vectors

SETTLE_NS = 1


def bench_rng(cfg: BenchConfig, test: str) -> random.Random:
    """Each test draws from its own stream of the run's seed, so ONLY= reruns match."""
    return random.Random(f"{cfg.seed}:{test}")


def sweep(cfg: BenchConfig, test: str, levels: int, log: Any) -> list[RateVector]:
    vectors = rate_vectors(bench_rng(cfg, test), cfg.params.fmt, levels, cfg.sweep)
    log.info("%s: seed %d, %d vectors over kinds %s", test, cfg.seed, len(vectors), sorted({v.kind for v in vectors}))
    return vectors


def directed(cfg: BenchConfig, group: str, log: Any) -> list[cases.RatesCase]:
    """The table's cases of `group` that give rates and fit the parameters; skips are logged."""
    resolved = []
    for case in cases.load_cases():
        if case.group != group or not case.has_rates:
            continue
        try:
            resolved.append(cases.rates(case, cfg.params))
        except cases.NotRepresentable as why:
            log.info("skipped %s: %s", case.id, why)
    return resolved


def check_error_bound(sb: Scoreboard, vector_id: str | int, name: str, actual_raw: int, exact_cap: Fraction) -> None:
    """|cap - min(peak, ai*bw)| <= 2^-(F+1) for exactly representable inputs (spec section 2)."""
    fmt = sb.cfg.params.fmt
    error = abs(fmt.to_real(actual_raw) - exact_cap)
    if error > fmt.lsb / 2:
        sb.fail(
            vector_id,
            f"ERROR BOUND {sb.cfg.top} [{sb.test} {vector_id}]: {name} = {fmt.describe(actual_raw, 'GFLOP/s')} is "
            f"{format_fraction(error)} from the exact {format_fraction(exact_cap)}; the bound is 2^-{fmt.frac_bits + 1}",
        )


def check_rate_error_bound(sb: Scoreboard, vector_id: str | int, name: str, actual_raw: int, peak: int,
                           products: list[int]) -> None:
    """The same bound in integers, for rates given as raw values: the exact cap is
    min(peak, ai * bw over the levels given), which is min(peak * 2^F, products) / 2^2F, so
    |cap - exact| <= 2^-(F+1) is 2 * |cap * 2^F - that| <= 2^F. No Fraction unless it fails."""
    fmt = sb.cfg.params.fmt
    scaled = min(peak << fmt.frac_bits, *products)
    if 2 * abs((actual_raw << fmt.frac_bits) - scaled) > 1 << fmt.frac_bits:
        check_error_bound(sb, vector_id, name, actual_raw, Fraction(scaled, 1 << (2 * fmt.frac_bits)))


def report_unresolved(sb: Scoreboard, vector_id: str | int, label: str, problem: Exception, inputs: list[str]) -> None:
    sb.fail(vector_id, f"X/Z {sb.cfg.top} [{sb.test} {vector_id}: {label}]: {problem}\n  inputs  : " + ", ".join(inputs))


class AttainableChecker:
    """Drives roofline_attainable and checks each output."""

    def __init__(self, dut: Any, cfg: BenchConfig, sb: Scoreboard) -> None:
        self.dut, self.cfg, self.sb = dut, cfg, sb

    async def check(
        self, vector_id: str | int, label: str, peak: int, bw: int, ai: int,
        document: tuple[int | None, bool | None] = (None, None),
    ) -> None:
        vector = RateVector(label, peak, (bw,), (ai,))
        outputs = await self.sample(vector_id, label, vector)
        if outputs is not None:
            judge_attainable(self.sb, vector_id, label, vector, outputs, document=document)

    async def sample(self, vector_id: str | int, label: str, vector: RateVector) -> tuple[int, int] | None:
        """(cap, mem_bound) for one vector; None when ONLY= skips it or an output is X/Z (reported)."""
        if not selected(self.cfg, vector_id):
            return None
        self.dut.peak_i.value = vector.peak
        self.dut.bw_i.value = vector.bws[0]
        self.dut.ai_i.value = vector.ais[0]
        await Timer(SETTLE_NS, "ns")
        try:
            return read_uint(self.dut.cap_o), read_uint(self.dut.mem_bound_o)
        except UnresolvedOutput as problem:
            inputs = inputs_text(self.cfg.params.fmt, vector.peak, vector.bws, vector.ais)
            report_unresolved(self.sb, vector_id, label, problem, inputs)
            return None

    def batch(self) -> RateBatch:
        """For a sweep: sample each vector, judge them in batches (flush the batch at the end)."""
        return RateBatch(self.sb, lambda *args: judge_attainable(self.sb, *args), hierarchy=False)


def judge_attainable(sb: Scoreboard, vector_id: str | int, label: str, vector: RateVector, outputs: tuple[int, ...],
                     sample: bool = True, document: tuple[int | None, bool | None] = (None, None)) -> None:
    """Check one roofline_attainable result (cap, mem_bound) against the model, the documents when
    given, and the error bound against exact arithmetic."""
    fmt = sb.cfg.params.fmt
    peak, bw, ai = vector.peak, vector.bws[0], vector.ais[0]
    cap, mem_bound = outputs
    want = fixed.attainable(fmt, peak, bw, ai)
    if sample:
        functional.sample_rates(fmt, peak, (bw,), (ai,))
    fields = [Field("cap_o", want.cap, cap, "GFLOP/s"), Field("mem_bound_o", int(want.mem_bound), int(mem_bound))]
    doc_cap, doc_mem_bound = document
    if doc_cap is not None:
        fields.append(Field("cap_o vs documents", doc_cap, cap, "GFLOP/s"))
    if doc_mem_bound is not None:
        fields.append(Field("mem_bound_o vs documents", int(doc_mem_bound), int(mem_bound)))
    sb.check(vector_id, label, lambda: inputs_text(fmt, peak, (bw,), (ai,)), fields,
             lambda: exact_context(fmt, peak, (bw,), (ai,))[0])
    check_rate_error_bound(sb, vector_id, "cap_o", cap, peak, [ai * bw])


class HierarchyChecker:
    """Drives roofline_hierarchy and checks every output, each level's cap included."""

    def __init__(self, dut: Any, cfg: BenchConfig, sb: Scoreboard) -> None:
        self.dut, self.cfg, self.sb = dut, cfg, sb

    async def check(self, vector_id: str | int, label: str, vector: RateVector, document: cases.RatesCase | None = None) -> None:
        outputs = await self.sample(vector_id, label, vector)
        if outputs is not None:
            judge_hierarchy(self.sb, vector_id, label, vector, outputs, document)

    async def sample(self, vector_id: str | int, label: str, vector: RateVector) -> tuple[int, bool, int, int] | None:
        """The outputs for one vector; None when ONLY= skips it or an output is X/Z (reported)."""
        if not selected(self.cfg, vector_id):
            return None
        drive_rates(self.dut, self.cfg.params.fmt.width, vector)
        await Timer(SETTLE_NS, "ns")
        try:
            return read_hierarchy_outputs(self.dut)
        except UnresolvedOutput as problem:
            inputs = inputs_text(self.cfg.params.fmt, vector.peak, vector.bws, vector.ais)
            report_unresolved(self.sb, vector_id, label, problem, inputs)
            return None

    def batch(self) -> RateBatch:
        """For a sweep: sample each vector, judge them in batches (flush the batch at the end)."""
        return hierarchy_batch(self.sb)


def hierarchy_batch(sb: Scoreboard) -> RateBatch:
    """Results of a module with levels, judged in batches by judge_hierarchy's rules."""
    return RateBatch(sb, lambda vector_id, label, vector, outputs, sample: judge_hierarchy(
        sb, vector_id, label, vector, outputs, sample=sample), hierarchy=True)


def pack_levels(values: tuple[int, ...], width: int) -> int:
    """A flat bus: level l at bits [l*width +: width]."""
    return sum(value << (level * width) for level, value in enumerate(values))


def drive_rates(dut: Any, width: int, vector: RateVector) -> None:
    dut.peak_i.value = vector.peak
    dut.bw_i.value = pack_levels(vector.bws, width)
    dut.ai_i.value = pack_levels(vector.ais, width)


def read_hierarchy_outputs(dut: Any) -> tuple[int, bool, int, int]:
    """(cap, mem_bound, binding, packed level caps); raises UnresolvedOutput naming an X/Z port."""
    return read_uint(dut.cap_o), read_bool(dut.mem_bound_o), read_uint(dut.binding_o), read_uint(dut.level_cap_o)


def judge_hierarchy(
    sb: Scoreboard, vector_id: str | int, label: str, vector: RateVector,
    outputs: tuple[int, ...], document: cases.RatesCase | None = None, sample: bool = True,
) -> None:
    """Check one hierarchy result (cap, mem_bound, binding, packed level caps) against the model,
    the documents when given, and the error bound against exact arithmetic."""
    cfg = sb.cfg
    fmt, levels = cfg.params.fmt, cfg.params.levels
    cap, mem_bound, binding, packed_caps = outputs
    level_caps = [(packed_caps >> (level * fmt.width)) & fmt.max_raw for level in range(levels)]
    want = fixed.hierarchy(fmt, vector.peak, vector.bws, vector.ais)
    if sample:
        functional.sample_rates(fmt, vector.peak, vector.bws, vector.ais, want.binding)
    fields = [
        Field("cap_o", want.cap, cap, "GFLOP/s"),
        Field("mem_bound_o", int(want.mem_bound), int(mem_bound)),
        Field("binding_o", want.binding, binding, "index"),
    ]
    fields += [
        Field(f"level_cap_o[{level}]", want.level_caps[level], level_caps[level], "GFLOP/s") for level in range(levels)
    ]
    if document is not None:
        fields += _document_fields(document, cap, binding, level_caps)
    sb.check(vector_id, label, lambda: inputs_text(fmt, vector.peak, vector.bws, vector.ais), fields,
             lambda: exact_context(fmt, vector.peak, vector.bws, vector.ais)[0])
    products = [ai * bw for ai, bw in zip(vector.ais, vector.bws, strict=True)]
    check_rate_error_bound(sb, vector_id, "cap_o", cap, vector.peak, products)
    for level in range(levels):
        check_rate_error_bound(sb, vector_id, f"level_cap_o[{level}]", level_caps[level], vector.peak, [products[level]])


def _document_fields(document: cases.RatesCase, cap: int, binding: int, level_caps: list[int]) -> list[Field]:
    fields = []
    if document.expect_cap is not None:
        fields.append(Field("cap_o vs documents", document.expect_cap, cap, "GFLOP/s"))
    if document.expect_binding is not None:
        fields.append(Field("binding_o vs documents", document.expect_binding, binding, "index"))
    for level, expected in enumerate(document.expect_level_caps or ()):
        fields.append(Field(f"level_cap_o[{level}] vs documents", expected, level_caps[level], "GFLOP/s"))
    return fields
