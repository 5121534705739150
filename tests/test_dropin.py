"""The harness accepts any correct implementation and rejects one with a single real bug.

An independent implementation (tests/dropin/independent) must pass; each mutant below is the
project's RTL with one bug of a class the contract rules out, and must fail. Icarus only, on
the parameter set that can expose the bug: the full matrix is `make test RTL=...`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from roofline_tb.config import PARAM_SETS, TOPS, BenchConfig, ParamSet
from roofline_tb.runner import run_bench
from roofline_tb.sources import RTL_DIR

INDEPENDENT = Path(__file__).parent / "dropin" / "independent"
DEFAULT_SET, OTHER_FORMAT_SET, SMALL_SET = PARAM_SETS


@dataclass(frozen=True)
class Mutant:
    id: str
    bug: str
    file: str
    original: str
    mutated: str
    top: str
    param_set: ParamSet = DEFAULT_SET


MUTANTS = (
    Mutant("no_rounding", "wrong rounding: truncates instead of adding half an LSB", "roofline_round_cap.sv",
           "ROUND_HALF = ROUND_W'(1) << (FRAC_BITS - 1)", "ROUND_HALF = '0", "roofline_attainable"),
    Mutant("ridge_memory_bound", "tie rule: the ridge counted as memory-bound (<=)", "roofline_round_cap.sv",
           "product_i < peak_scaled", "product_i <= peak_scaled", "roofline_attainable"),
    Mutant("truncated_product", "product truncated to W bits (self-determined inside a concatenation)", "roofline_level.sv",
           "PRODUCT_W'(ai_i) * PRODUCT_W'(bw_i)", "{{(PRODUCT_W/2){1'b0}}, ai_i * bw_i}", "roofline_attainable"),
    Mutant("hard_coded_frac", "hard-coded format: peak scaled by 2^16 whatever FRAC_BITS", "roofline_round_cap.sv",
           "{peak_i, {FRAC_BITS{1'b0}}}", "{peak_i, 16'b0}", "roofline_attainable", OTHER_FORMAT_SET),
    Mutant("last_level_left_out", "a level left out of the binding search", "roofline_binding.sv",
           "if (mem_bound_i[l] &&", "if ((l != LEVELS - 1) && mem_bound_i[l] &&",
           "roofline_hierarchy"),
    Mutant("level_tie_last_wins", "level tie rule: the higher index wins", "roofline_binding.sv",
           "PRODUCT_W] < best_product))", "PRODUCT_W] <= best_product))",
           "roofline_hierarchy"),
    Mutant("no_sat_on_rounding_overflow", "missing flag: no saturation when rounding reaches 2^W",
           "roofline_intensity.sv", "assign saturates          = overflow_d | (&quotient_d);",
           "assign saturates          = overflow_d;", "roofline_intensity"),
    Mutant("divider_truncates", "divider rounding: truncates the quotient", "roofline_intensity.sv",
           "quotient_d + QUOTIENT_W'(1)", "quotient_d", "roofline_intensity"),
    Mutant("div0_flag_missing", "missing flag: div0_o never set", "roofline_intensity.sv",
           "sat_o  <= 1'b1;\n            div0_o <= 1'b1;", "sat_o  <= 1'b1;\n            div0_o <= 1'b0;",
           "roofline_intensity", SMALL_SET),
    Mutant("cap_undriven", "an output left at Z: must fail naming the signal", "roofline_round_cap.sv",
           ": peak_i;", ": {(INT_BITS+FRAC_BITS){1'bz}};", "roofline_attainable"),
    Mutant("done_not_a_pulse", "handshake: done_o stays high", "roofline_intensity.sv",
           "      done_o <= 1'b0;\n      if (!busy_o)", "      if (!busy_o)", "roofline_intensity"),
)


def sweep_size() -> int:
    return int(os.environ.get("ROOFLINE_MUTANT_SWEEP", "300"))


@pytest.mark.sim
@pytest.mark.parametrize("top", TOPS)
def test_an_independent_correct_implementation_passes(top: str, seed: int) -> None:
    cfg = BenchConfig(top, "icarus", OTHER_FORMAT_SET, seed, sweep=sweep_size(), rtl=str(INDEPENDENT))
    result = run_bench(cfg)
    assert result.failed == 0 and result.passed > 0, "\n\n".join(result.failures)


@pytest.mark.sim
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_a_single_bug_is_caught(mutant: Mutant, seed: int, tmp_path: Path) -> None:
    source = (RTL_DIR / mutant.file).read_text()
    assert source.count(mutant.original) == 1, f"{mutant.id}: the text to mutate is gone from {mutant.file}"
    mutated = tmp_path / mutant.file
    mutated.write_text(source.replace(mutant.original, mutant.mutated))
    cfg = BenchConfig(mutant.top, "icarus", mutant.param_set, seed, sweep=sweep_size(), rtl=str(mutated))
    try:
        result = run_bench(cfg)
    except SystemExit:
        pytest.fail(f"{mutant.id}: the mutant did not build, so it proves nothing")
    assert result.failed > 0, f"{mutant.id} ({mutant.bug}) survived every test"
    if mutant.id == "cap_undriven":
        assert any("cap_o holds X/Z" in failure for failure in result.failures), result.failures
