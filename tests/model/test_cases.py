"""The golden model against the documents' numbers and the spec's edge cases (cases.toml)."""

from __future__ import annotations

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_golden import QFormat, cases, exact, fixed

DEFAULT = cases.Params(QFormat(24, 16), levels=3, count_bits=64)
ALL_CASES = cases.load_cases()


def rate_cases() -> list[cases.Case]:
    return [c for c in ALL_CASES if c.has_rates]


def count_cases() -> list[cases.Case]:
    return [c for c in ALL_CASES if c.count_levels]


def test_every_spec_section_4_case_is_in_the_table() -> None:
    documents = {c.id for c in ALL_CASES if c.group == "document"}
    assert documents == {
        "calculator_check_1", "calculator_check_2_ridge", "calculator_check_3", "dot_product_fp32",
        "stencil_7pt_fp64", "tiled_gemm_fp32_n512", "stencil_doubled_traffic", "per_level_ceilings",
    }
    assert all(c.source for c in ALL_CASES), "every case records where its numbers come from"


@pytest.mark.parametrize("case", rate_cases(), ids=lambda c: c.id)
def test_model_gives_the_expected_cap_and_binding(case: cases.Case) -> None:
    resolved = cases.rates(case, DEFAULT)
    out = fixed.hierarchy(DEFAULT.fmt, resolved.peak, resolved.bws, resolved.ais)
    if resolved.expect_cap is not None:
        assert out.cap == resolved.expect_cap
    if resolved.expect_binding is not None:
        assert out.binding == resolved.expect_binding
        assert out.mem_bound == (resolved.expect_binding < DEFAULT.levels)
    if resolved.expect_level_caps is not None:
        assert out.level_caps[: resolved.used_levels] == resolved.expect_level_caps


@pytest.mark.parametrize("case", rate_cases(), ids=lambda c: c.id)
def test_exact_reference_agrees_with_the_documents(case: cases.Case) -> None:
    resolved = cases.rates(case, DEFAULT)
    fmt = DEFAULT.fmt
    real = exact.hierarchy(fmt.to_real(resolved.peak), [fmt.to_real(b) for b in resolved.bws],
                           [fmt.to_real(a) for a in resolved.ais])
    if resolved.expect_cap is not None:
        assert abs(real.cap - fmt.to_real(resolved.expect_cap)) <= fmt.lsb / 2
    if resolved.expect_binding is not None:
        assert real.binding == resolved.expect_binding


@pytest.mark.parametrize("case", count_cases(), ids=lambda c: c.id)
def test_model_intensity_from_counts(case: cases.Case) -> None:
    for item in cases.counts(case, DEFAULT):
        out = fixed.intensity(DEFAULT.fmt, DEFAULT.count_bits, item.ops, item.bytes)
        if item.expect_ai is not None:
            allowed = max(item.expect_ai_within, DEFAULT.fmt.lsb / 2)
            assert abs(DEFAULT.fmt.to_real(out.ai) - item.expect_ai) <= allowed
        if item.expect_sat is not None:
            assert out.sat == item.expect_sat
        if item.expect_div0 is not None:
            assert out.div0 == item.expect_div0


def test_document_kernels_capped_from_counts_round_once() -> None:
    """The documents' caps from the counts themselves, rounded once (spec section 2)."""
    fmt = DEFAULT.fmt
    peak, bw = fmt.quantize(100), fmt.quantize(20)
    assert fixed.cap_from_counts(fmt, peak, bw, 2_000_000, 8_000_000) == fixed.AttainableOut(fmt.quantize(5), True)
    assert fixed.cap_from_counts(fmt, peak, bw, 13, 16) == fixed.AttainableOut(fmt.quantize("16.25"), True)
    assert fixed.cap_from_counts(fmt, peak, bw, 13, 32) == fixed.AttainableOut(fmt.quantize("8.125"), True)
    assert fixed.cap_from_counts(fmt, peak, bw, 268_435_456, 22_400_000) == fixed.AttainableOut(peak, False)


def test_rounding_once_beats_capping_a_rounded_intensity() -> None:
    """Why spec section 2 says round once: a rounded intensity times a large bandwidth drifts."""
    fmt = QFormat(24, 16)
    peak, bw = fmt.max_raw, fmt.quantize(1_000_000)
    ops, bytes_moved = 1, 3
    once = fixed.cap_from_counts(fmt, peak, bw, ops, bytes_moved).cap
    twice = fixed.attainable(fmt, peak, bw, fixed.intensity(fmt, 64, ops, bytes_moved).ai).cap
    exact_cap = fmt.to_real(bw) / 3
    assert abs(fmt.to_real(once) - exact_cap) <= fmt.lsb / 2
    assert abs(twice - once) > 100  # hundreds of LSBs, as the spec warns


def test_ridge_is_peak_over_bandwidth() -> None:
    assert exact.ridge(100, 20) == 5  # FLOP/B, not the inverted 0.2 B/FLOP
    with pytest.raises(ValueError):
        exact.ridge(100, 0)


def test_the_docs_case_table_is_generated_from_the_data_file() -> None:
    design = (REPO_ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert cases.markdown_table("document") in design, "regenerate: make docs"


def test_unrepresentable_cases_are_skipped_with_a_reason() -> None:
    small = cases.Params(QFormat(8, 8), levels=1, count_bits=16)
    per_level = next(c for c in ALL_CASES if c.id == "per_level_ceilings")
    with pytest.raises(cases.NotRepresentable, match="LEVELS = 1"):
        cases.rates(per_level, small)
    with pytest.raises(cases.NotRepresentable, match="not exactly representable"):
        cases.rate("0.1", small)


def test_case_expressions_reject_anything_but_arithmetic() -> None:
    with pytest.raises(ValueError, match="unsupported expression"):
        cases.evaluate("__import__('os')", {})
    assert cases.evaluate("2**(W+1) - 1", {"W": 8}) == 511
