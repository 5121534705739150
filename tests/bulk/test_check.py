"""A sweep batch judged (roofline_bulk.check): a wrong cap reported with its inputs, expected, actual and
rerun line; a binding error caught; the error bound checked without leaning on the model."""

from __future__ import annotations

import numpy as np
import pytest
from bulk_configs import DEFAULT_SET, config  # noqa: F401

from roofline_bulk import check
from roofline_bulk.stimulus import BLOCK
from roofline_core import vector_check
from roofline_core.contract import ParamSet
from roofline_core.vector_check import Outputs
from roofline_golden import vector


def test_a_wrong_cap_is_reported_with_inputs_expected_actual_and_a_rerun_line() -> None:
    cfg = config(count=5000)
    vectors = cfg.vectors(0, 5000)
    want = vector_check.expected_outputs(cfg, vectors)
    memory_rows = np.flatnonzero(want.mem_bound)
    row = int(memory_rows[7])
    wrong_cap = want.cap.copy()
    wrong_cap[row] ^= np.uint64(1 << 3)
    outcome = check.check_batch(cfg, vectors, Outputs(wrong_cap, want.mem_bound, want.binding, want.level_caps))
    assert outcome.mismatched == 1 and outcome.failing is not None
    assert outcome.failing.row(0) == vectors.row(row)
    report = outcome.reports[0]
    rerun = f"rerun: make sweep TOP=roofline_attainable SIM=verilator INT_BITS=24 FRAC_BITS=16 SEED=11 N=5000 LANES=8 ONLY={row}"
    for text in (f"vector {row}]", "peak_i = 0x", "GB/s", "<-- differs", "should bind: memory level 0", rerun):
        assert text in report, report


def test_a_hierarchy_binding_error_is_caught() -> None:
    cfg = config("roofline_hierarchy", count=3000)
    vectors = cfg.vectors(0, 3000)
    want = vector_check.expected_outputs(cfg, vectors)
    binding = want.binding.copy()
    binding[10] = (binding[10] + 1) % (cfg.levels + 1)
    outcome = check.check_batch(cfg, vectors, Outputs(want.cap, want.mem_bound, binding, want.level_caps))
    assert outcome.mismatched == 1 and "binding_o" in outcome.reports[0]


@pytest.mark.parametrize("param_set", [ParamSet(24, 16), ParamSet(40, 23), ParamSet(4, 4)], ids=lambda p: p.tag)
def test_the_error_bound_check_does_not_lean_on_the_model(param_set: ParamSet) -> None:
    """One LSB off the model's cap is outside the bound, except on a rounding tie (64- and 128-bit paths)."""
    fmt = param_set.params.fmt
    vectors = config(param_set=param_set).vectors(0, BLOCK)
    peak, bw, ai = vectors.peak, vectors.bws[:, 0], vectors.ais[:, 0]
    cap, mem_bound = vector.attainable(fmt, peak, bw, ai)
    product = vector.mul_wide(ai, bw)
    assert not vector_check.outside_error_bound(fmt, peak, product, cap).any()
    nudged = np.where(cap > 0, cap - np.uint64(1), cap)
    flagged = vector_check.outside_error_bound(fmt, peak, product, nudged)
    f = fmt.frac_bits
    tie = (product[1] & np.uint64((1 << f) - 1)) == np.uint64(1 << (f - 1))
    changed = nudged != cap
    assert changed.any()
    assert np.array_equal(flagged[changed], ~(tie & mem_bound)[changed])
