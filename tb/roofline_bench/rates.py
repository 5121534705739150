"""Vectors of rates: driving them, reading the outputs, and judging them against the model, the
documents and the exact math. The combinational benches and the pipeline bench share it."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import TYPE_CHECKING

from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports, Unresolved
from roofline_bench.run import Run
from roofline_bench.stimulus import RateVector, rate_vectors
from roofline_core.config import BenchConfig
from roofline_core.edges import rate_edges
from roofline_core.scoreboard import Field, Scoreboard, selected
from roofline_core.vector_text import exact_context, inputs_text
from roofline_golden import QFormat, cases, fixed, format_fraction

if TYPE_CHECKING:  # numpy comes with it: imported where a sweep is judged, not by every bench
    from roofline_bench.batch import RateBatch

SETTLE_NS = 1

Outputs = tuple[int, ...]  # (cap, mem_bound) or (cap, mem_bound, binding, packed level caps)


def bench_rng(cfg: BenchConfig, test: str) -> random.Random:
    """Each test draws from its own stream of the run's seed, so ONLY= reruns match."""
    return random.Random(f"{cfg.seed}:{test}")


def sweep(run: Run, test: str, levels: int) -> list[RateVector]:
    vectors = rate_vectors(bench_rng(run.cfg, test), run.params.fmt, levels, run.cfg.sweep)
    run.log.info("%s: seed %d, %d vectors over kinds %s", test, run.cfg.seed, len(vectors), sorted({v.kind for v in vectors}))
    return vectors


def directed(run: Run, group: str) -> list[cases.RatesCase]:
    """The table's cases of `group` that give rates and fit the parameters; skips are logged."""
    resolved = []
    for case in cases.load_cases():
        if case.group != group or not case.has_rates:
            continue
        try:
            resolved.append(cases.rates(case, run.params))
        except cases.NotRepresentable as why:
            run.log.info("skipped %s: %s", case.id, why)
    return resolved


def pack_levels(values: tuple[int, ...], width: int) -> int:
    """A flat bus: level l at bits [l*width +: width]."""
    return sum(value << (level * width) for level, value in enumerate(values))


def drive_rates(ports: Ports, width: int, vector: RateVector) -> None:
    ports.write("peak_i", vector.peak)
    ports.write("bw_i", pack_levels(vector.bws, width))
    ports.write("ai_i", pack_levels(vector.ais, width))


def read_attainable_outputs(ports: Ports) -> Outputs:
    return ports.read("cap_o"), ports.read("mem_bound_o")


def read_hierarchy_outputs(ports: Ports) -> Outputs:
    """(cap, mem_bound, binding, packed level caps); Unresolved names an X/Z port."""
    return ports.read("cap_o"), ports.read("mem_bound_o"), ports.read("binding_o"), ports.read("level_cap_o")


def check_widths(run: Run, expected: dict[str, int]) -> None:
    """Every port has the width the parameters give it (a wrong one means they did not reach the design)."""
    for name, width in expected.items():
        actual = run.ports.widths.get(name)
        run.sb.check(name, f"the width of {name}", [f"parameters: {_parameters(run.cfg)}"],
                     [Field(f"{name} width", width, -1 if actual is None else actual, "bits")], values=False)


def _parameters(cfg: BenchConfig) -> str:
    return ", ".join(f"{name}={value}" for name, value in cfg.param_set.for_module(cfg.top).items())


def check_error_bound(sb: Scoreboard, vector_id: str | int, name: str, actual_raw: int, exact_cap: Fraction,
                      regimes: tuple[str, ...] = ()) -> None:
    """|cap - min(peak, ai*bw)| <= 2^-(F+1) for exactly representable inputs (spec section 2)."""
    fmt = sb.cfg.params.fmt
    error = abs(Fraction(actual_raw, fmt.one) - exact_cap)  # a raw value beyond the format is simply far off
    if error > fmt.lsb / 2:
        sb.fail(
            vector_id,
            f"ERROR BOUND {sb.cfg.top} [{sb.test} {vector_id}]: {name} = {fmt.describe(actual_raw, 'GFLOP/s')} is "
            f"{format_fraction(error)} from the exact {format_fraction(exact_cap)}; the bound is 2^-{fmt.frac_bits + 1}",
            kind="error bound", regimes=regimes,
        )


def check_rate_error_bound(sb: Scoreboard, vector_id: str | int, name: str, actual_raw: int, peak: int,
                           products: list[int], vector: RateVector) -> None:
    """The same bound in integers, for rates given as raw values: the exact cap is
    min(peak, ai * bw over the levels given), which is min(peak * 2^F, products) / 2^2F, so
    |cap - exact| <= 2^-(F+1) is 2 * |cap * 2^F - that| <= 2^F. No Fraction unless it fails."""
    fmt = sb.cfg.params.fmt
    scaled = min(peak << fmt.frac_bits, *products)
    if 2 * abs((actual_raw << fmt.frac_bits) - scaled) > 1 << fmt.frac_bits:
        check_error_bound(sb, vector_id, name, actual_raw, Fraction(scaled, 1 << (2 * fmt.frac_bits)), regimes(fmt, vector))


def report_unresolved(sb: Scoreboard, vector_id: str | int, label: str, problem: Exception, inputs: list[str]) -> None:
    sb.fail(vector_id, f"X/Z {sb.cfg.top} [{sb.test} {vector_id}: {label}]: {problem}\n  inputs  : " + ", ".join(inputs),
            kind="unresolved", label=label)


class RateChecker:
    """Drives a combinational module with one vector, reads its outputs, and judges them."""

    def __init__(self, run: Run, hierarchy: bool) -> None:
        self.run, self.hierarchy = run, hierarchy
        self.read = read_hierarchy_outputs if hierarchy else read_attainable_outputs

    async def check(self, vector_id: str | int, label: str, vector: RateVector,
                    document: cases.RatesCase | tuple[int | None, bool | None] | None = None) -> None:
        outputs = await self.sample(vector_id, label, vector)
        if outputs is None:
            return
        if self.hierarchy:
            judge_hierarchy(self.run.sb, self.run.coverage, vector_id, label, vector, outputs, document)  # type: ignore[arg-type]
        else:
            judge_attainable(self.run.sb, self.run.coverage, vector_id, label, vector, outputs,
                             document=document or (None, None))  # type: ignore[arg-type]

    async def sample(self, vector_id: str | int, label: str, vector: RateVector) -> Outputs | None:
        """The outputs for one vector; None when ONLY= skips it or an output is X/Z (reported)."""
        run = self.run
        if not selected(run.cfg, vector_id):
            return None
        drive_rates(run.ports, run.params.fmt.width, vector)
        await run.ports.wait_ns(SETTLE_NS)
        try:
            return self.read(run.ports)
        except Unresolved as problem:
            report_unresolved(run.sb, vector_id, label, problem, inputs_text(run.params.fmt, vector.peak, vector.bws, vector.ais))
            return None

    def batch(self) -> RateBatch:
        """For a sweep: sample each vector, judge them in batches (flush the batch at the end)."""
        return rate_batch(self.run, self.hierarchy)


def rate_batch(run: Run, hierarchy: bool) -> RateBatch:
    """Results judged in batches (of the run's batch size) by the one-vector judges' rules."""
    from roofline_bench.batch import RateBatch  # noqa: PLC0415 (numpy: see the import above)

    sb, coverage, size = run.sb, run.coverage, run.batch_size
    if hierarchy:
        return RateBatch(sb, lambda vector_id, label, vector, outputs, sample: judge_hierarchy(
            sb, coverage, vector_id, label, vector, outputs, sample=sample), hierarchy=True, coverage=coverage, size=size)
    return RateBatch(sb, lambda vector_id, label, vector, outputs, sample: judge_attainable(
        sb, coverage, vector_id, label, vector, outputs, sample=sample), hierarchy=False, coverage=coverage, size=size)


def judge_attainable(sb: Scoreboard, coverage: Coverage, vector_id: str | int, label: str, vector: RateVector,
                     outputs: Outputs, sample: bool = True, document: tuple[int | None, bool | None] = (None, None)) -> None:
    """Check one roofline_attainable result (cap, mem_bound) against the model, the documents when
    given, and the error bound against exact arithmetic."""
    fmt = sb.cfg.params.fmt
    peak, bw, ai = vector.peak, vector.bws[0], vector.ais[0]
    cap, mem_bound = outputs
    want = fixed.attainable(fmt, peak, bw, ai)
    if sample:
        coverage.sample_rates(fmt, peak, (bw,), (ai,))
    fields = [Field("cap_o", want.cap, cap, "GFLOP/s"), Field("mem_bound_o", int(want.mem_bound), int(mem_bound))]
    doc_cap, doc_mem_bound = document
    if doc_cap is not None:
        fields.append(Field("cap_o (the documents' value)", doc_cap, cap, "GFLOP/s"))
    if doc_mem_bound is not None:
        fields.append(Field("mem_bound_o (the documents' verdict)", int(doc_mem_bound), int(mem_bound)))
    sb.check(vector_id, label, lambda: inputs_text(fmt, peak, (bw,), (ai,)), fields,
             lambda: exact_context(fmt, peak, (bw,), (ai,))[0], lambda: regimes(fmt, vector))
    check_rate_error_bound(sb, vector_id, "cap_o", cap, peak, [ai * bw], vector)


def judge_hierarchy(sb: Scoreboard, coverage: Coverage, vector_id: str | int, label: str, vector: RateVector,
                    outputs: Outputs, document: cases.RatesCase | None = None, sample: bool = True) -> None:
    """Check one hierarchy result (cap, mem_bound, binding, packed level caps) against the model,
    the documents when given, and the error bound against exact arithmetic."""
    cfg = sb.cfg
    fmt, levels = cfg.params.fmt, cfg.params.levels
    cap, mem_bound, binding, packed_caps = outputs
    level_caps = [(packed_caps >> (level * fmt.width)) & fmt.max_raw for level in range(levels)]
    want = fixed.hierarchy(fmt, vector.peak, vector.bws, vector.ais)
    if sample:
        coverage.sample_rates(fmt, vector.peak, vector.bws, vector.ais, want.binding)
    fields = [
        Field("cap_o", want.cap, cap, "GFLOP/s"),
        Field("mem_bound_o", int(want.mem_bound), int(mem_bound)),
        Field("binding_o", want.binding, binding, "index"),
    ]
    fields += [Field(f"level_cap_o[{level}]", want.level_caps[level], level_caps[level], "GFLOP/s") for level in range(levels)]
    if document is not None:
        fields += _document_fields(document, cap, binding, level_caps)
    sb.check(vector_id, label, lambda: inputs_text(fmt, vector.peak, vector.bws, vector.ais), fields,
             lambda: exact_context(fmt, vector.peak, vector.bws, vector.ais)[0], lambda: regimes(fmt, vector, want.binding))
    products = [ai * bw for ai, bw in zip(vector.ais, vector.bws, strict=True)]
    check_rate_error_bound(sb, vector_id, "cap_o", cap, vector.peak, products, vector)
    for level in range(levels):
        check_rate_error_bound(sb, vector_id, f"level_cap_o[{level}]", level_caps[level], vector.peak, [products[level]],
                               vector)


# Regimes of their own (no coverage bin): a W-bit product is too narrow; a ridge compared after
# truncating the product's fraction (ai*bw >> FRAC_BITS <= peak) calls these memory-bound.
WIDE_PRODUCT = "product wider than W bits"
JUST_ABOVE_RIDGE = "less than an LSB above the ridge"


def regimes(fmt: QFormat, vector: RateVector, binding: int | None = None) -> tuple[str, ...]:
    """What a vector was, in the coverage bins' words (the ridge, a rounding tie, a product above
    the format, a level tie at the binding product ...), and whether a product needs more than W bits."""
    seen = Coverage()
    seen.sample_rates(fmt, vector.peak, vector.bws, vector.ais, binding)
    products = [ai * bw for ai, bw in zip(vector.ais, vector.bws, strict=True)]
    wide = any(product >> fmt.width for product in products)
    above = any(product >> fmt.frac_bits == vector.peak and product != vector.peak << fmt.frac_bits for product in products)
    return tuple(sorted(seen.hits)) + ((WIDE_PRODUCT,) if wide else ()) + ((JUST_ABOVE_RIDGE,) if above else ())


def _document_fields(document: cases.RatesCase, cap: int, binding: int, level_caps: list[int]) -> list[Field]:
    fields = []
    if document.expect_cap is not None:
        fields.append(Field("cap_o (the documents' value)", document.expect_cap, cap, "GFLOP/s"))
    if document.expect_binding is not None:
        fields.append(Field("binding_o (the documents' verdict)", document.expect_binding, binding, "index"))
    for level, expected in enumerate(document.expect_level_caps or ()):
        fields.append(Field(f"level_cap_o[{level}] (the documents' value)", expected, level_caps[level], "GFLOP/s"))
    return fields


async def sweep_test(run: Run, hierarchy: bool) -> None:
    """A combinational bench's random_sweep: seeded vectors, sampled one by one, judged in batches."""
    checker = RateChecker(run, hierarchy)
    vectors = sweep(run, run.test, run.params.levels if hierarchy else 1)
    run.sb.plan(len(vectors))
    await check_each(checker, vectors)


async def check_each(checker: RateChecker, vectors: list[RateVector]) -> None:
    """Every vector sampled one by one and judged in batches."""
    batch = checker.batch()
    for index, vector in enumerate(vectors):
        outputs = await checker.sample(index, vector.kind, vector)
        if outputs is not None:
            batch.add(index, vector.kind, vector, outputs)
    batch.flush()


def edge_vectors(run: Run, levels: int) -> list[RateVector]:
    """The contract's boundaries (roofline_core.edges): the same vectors at every seed."""
    vectors = [RateVector(*edge) for edge in rate_edges(run.params.fmt, levels)]
    run.log.info("%s: %d directed vectors (the same at every seed)", run.test, len(vectors))
    return vectors


async def edge_test(run: Run, hierarchy: bool) -> None:
    """A combinational bench's boundaries: every directed edge, sampled one by one, judged in batches."""
    checker = RateChecker(run, hierarchy)
    vectors = edge_vectors(run, run.params.levels if hierarchy else 1)
    run.sb.plan(sum(1 for index in range(len(vectors)) if selected(run.cfg, index)))
    await check_each(checker, vectors)
