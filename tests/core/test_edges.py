"""The directed edges (roofline_core.edges) are what they say, judged by the golden model and the
spec's definitions, at every parameter set the regression runs: each boundary of each input and
count, products on and one step off the ridge and the rounding tie at every bit position, the
binding comparison at every bit, the saturation threshold. They are the same at every seed (no
random generator reaches them) and few enough for the everyday tier."""

from __future__ import annotations

import pytest

from roofline_core import edges
from roofline_core.contract import PADDING_SETS, PARAM_SETS, ParamSet
from roofline_golden import fixed

SETS = [*PARAM_SETS, *PADDING_SETS, ParamSet(1, 1, 2, 4), ParamSet(2, 1, 1, 3)]


def test_boundaries_are_every_power_of_two_and_all_ones_boundary() -> None:
    assert edges.boundaries(4) == (0, 1, 2, 3, 4, 5, 7, 8, 9, 14, 15)
    assert edges.boundaries(4, around=False) == (0, 1, 2, 3, 4, 7, 8, 14, 15)
    assert edges.powers(4) == (0, 1, 2, 4, 8, 15)
    assert edges.boundaries(1) == (0, 1)
    for k in range(1, 64):
        assert {(1 << k) - 1, 1 << k, (1 << k) + 1} <= set(edges.boundaries(64)) | {1 << 64}


@pytest.mark.parametrize("param_set", SETS, ids=lambda p: p.tag)
def test_every_input_sits_at_every_boundary_and_every_product_bit_is_reached(param_set: ParamSet) -> None:
    fmt = param_set.params.fmt
    found = edges.level_edges(fmt)
    for value in edges.boundaries(fmt.width):
        assert any(e.ais[0] == value and e.bws[0] == fmt.one for e in found), value
        assert any(e.bws[0] == value and e.ais[0] == fmt.one for e in found), value
        assert any(e.peak == value for e in found), value
    tops = {(e.ais[0] * e.bws[0]).bit_length() for e in found}
    assert set(range(2 * fmt.width)) <= tops  # a product whose top bit is each bit k, 0 .. 2W - 1


@pytest.mark.parametrize("param_set", SETS, ids=lambda p: p.tag)
def test_products_land_on_and_one_step_off_the_ridge_and_the_rounding_tie(param_set: ParamSet) -> None:
    fmt = param_set.params.fmt
    f = fmt.frac_bits
    found = edges.level_edges(fmt)
    distance = {(e.ais[0] * e.bws[0]) - (e.peak << f) for e in found}  # product against peak, full precision
    assert {0, 1, -1} <= distance  # on the ridge, one step above, one step below
    fractions = {(e.ais[0] * e.bws[0]) % (1 << f) for e in found
                 if fixed.attainable(fmt, e.peak, e.bws[0], e.ais[0]).mem_bound}
    half = 1 << (f - 1)
    assert {half - 1, half, half + 1} - {1 << f} <= fractions  # memory-bound ties and a step either side
    for e in found:
        fmt.check_raw(e.peak, "peak")
        fmt.check_raw(e.bws[0], "bw")
        fmt.check_raw(e.ais[0], "ai")


@pytest.mark.parametrize("param_set", [p for p in SETS if p.levels > 1], ids=lambda p: p.tag)
def test_the_binding_comparison_is_met_at_every_bit_in_both_orders_and_tied(param_set: ParamSet) -> None:
    fmt, levels = param_set.params.fmt, param_set.levels
    found = [e for e in edges.rate_edges(fmt, levels) if e.kind.startswith("the binding comparison")]
    differing = set()
    for e in found:
        want = fixed.hierarchy(fmt, e.peak, e.bws, e.ais)
        first, last = e.ais[0] * e.bws[0], e.ais[-1] * e.bws[-1]
        assert want.mem_bound and want.binding == (0 if first <= last else levels - 1)
        differing.add((first ^ last).bit_length() - 1)
    assert set(range(fmt.width + fmt.frac_bits - 1)) <= differing  # the top compared bit that differs, every one


@pytest.mark.parametrize("param_set", SETS, ids=lambda p: p.tag)
def test_counts_meet_every_boundary_the_quotient_ties_and_the_saturation_threshold(param_set: ParamSet) -> None:
    fmt, count_bits = param_set.params.fmt, param_set.count_bits
    found = edges.count_edges(fmt, count_bits)
    for value in edges.boundaries(count_bits):
        assert any(e.bytes == value for e in found) and any(e.ops == value for e in found), value
    assert any(e.bytes == 1 << (count_bits - 1) for e in found)  # a division by zero one bit short
    sat = {fixed.intensity(fmt, count_bits, e.ops, e.bytes).sat for e in found if e.bytes}
    assert sat == {True, False}
    results = [fixed.intensity(fmt, count_bits, e.ops, e.bytes) for e in found]
    assert any(r.ai == fmt.max_raw and not r.sat for r in results) or count_bits <= fmt.int_bits  # all ones, unsaturated


@pytest.mark.parametrize("param_set", SETS, ids=lambda p: p.tag)
def test_placements_meet_the_ridge_and_with_levels_the_binding_rule_at_every_ops_bit(param_set: ParamSet) -> None:
    p = param_set.params
    found = edges.placement_edges(p.fmt, p.count_bits, p.levels)
    results = [(e, fixed.counts_hierarchy(p.fmt, p.count_bits, e.peak, e.bws, e.ops, e.bytes)) for e in found]
    assert any(not r.mem_bound and e.kind.endswith("on its ridge") for e, r in results)
    assert any(r.mem_bound for e, r in results if e.kind.endswith("below its ridge"))
    if p.levels >= 2:
        pairs = [(e, r) for e, r in results if e.kind.startswith("two memory-bound levels")]
        assert {e.ops for e, _ in pairs} >= {1 << k for k in range(p.count_bits)}
        assert all(r.mem_bound and r.binding == (1 if e.ops else 0) for e, r in pairs)


def test_the_edges_are_the_same_every_time_and_few() -> None:
    fmt = PARAM_SETS[0].params.fmt
    assert edges.rate_edges(fmt, 3) == edges.rate_edges(fmt, 3)
    assert len(edges.rate_edges(fmt, 3)) < 1500 and len(edges.count_edges(fmt, 64)) < 500
    assert len(edges.placement_edges(fmt, 64, 3)) < 400


@pytest.mark.parametrize("param_set", SETS, ids=lambda p: p.tag)
def test_every_product_bit_is_the_only_reason_some_edge_is_compute_bound(param_set: ParamSet) -> None:
    """ai * bw = 2^k + r with r below peak: a product bit k lost anywhere turns the verdict (spec: a
    product above the format is compute-bound, full width, no overflow)."""
    fmt = param_set.params.fmt
    f = fmt.frac_bits
    reasons = set()
    for e in edges.level_edges(fmt):
        product = e.ais[0] * e.bws[0]
        k = product.bit_length() - 1
        if k >= f and not fixed.attainable(fmt, e.peak, e.bws[0], e.ais[0]).mem_bound and product - (1 << k) < e.peak << f:
            reasons.add(k)
    assert set(range(f, 2 * fmt.width)) <= reasons
