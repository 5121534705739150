"""The trusted judge: a group's score from the tapes this process wrote while it drove the design
(roofline_bench.remote), replayed by the bench; a tape that ran out, a value its port cannot hold,
an X or Z, or a missing port each costs what the test meant to check.

Tapes here come from a stand-in for the design (tests/support/model_design.py: the unit's arithmetic,
right or with one bug), written as the grader writes a simulated design's. What the sandbox may
answer at all is tests/bench/test_remote.py's. No simulator runs, except where a Verilator design
with native code forges everything it can reach.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from model_design import ModelDesign, record
from skip_policy import SANDBOX_REASON

from roofline_bench.benches import TESTS
from roofline_bench.run import replay
from roofline_bench.tape import Reply, Tape
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, ParamSet
from roofline_core.scoreboard import Verdict

TOP = "roofline_attainable"
PORTS = [port.name for port in MODULES[TOP].ports]
LOG = logging.getLogger("test_judge")


SMALL = ParamSet(8, 8, 1, 16)


def config(p: ParamSet = SMALL) -> BenchConfig:
    return BenchConfig(TOP, "icarus", p, seed=11, sweep=300)


def judged(tape: Tape, cfg: BenchConfig) -> Verdict:
    return replay(TESTS[TOP][tape.test], cfg, tape)


@pytest.mark.parametrize("test", ["document_cases", "edge_cases", "random_sweep"])
def test_a_correct_tape_passes_and_a_design_that_computes_nothing_earns_nothing(test: str) -> None:
    cfg = config()
    good = judged(record(cfg, test, ModelDesign(cfg.params.fmt)), cfg)
    assert good.passed and good.credit == 1.0 and good.checked > 0
    zero = judged(record(cfg, test, ModelDesign(cfg.params.fmt, "zero")), cfg)
    assert not zero.passed and zero.credit == 0.0, (zero.checked, len(zero.failed), zero.baseline)


def test_a_bug_loses_its_vectors_beyond_chance() -> None:
    cfg = config()
    ridge = judged(record(cfg, "random_sweep", ModelDesign(cfg.params.fmt, "ridge")), cfg)
    share = (ridge.checked - len(ridge.failed)) / ridge.planned
    assert 0 < len(ridge.failed) < ridge.checked and 0 < ridge.baseline < share
    assert ridge.credit == pytest.approx((share - ridge.baseline) / (1 - ridge.baseline))
    assert {f.kind for f in ridge.failures} == {"mismatch"} and all("ridge" in " ".join(f.regimes) for f in ridge.failures)


def test_a_tape_cut_short_is_scored_against_everything_the_test_meant_to_check() -> None:
    cfg = config()
    tape = record(cfg, "random_sweep", ModelDesign(cfg.params.fmt))
    verdict = judged(replace(tape, entries=tape.entries[: len(tape.entries) // 3], complete=False), cfg)  # stopped a third in
    assert verdict.ran_out and not verdict.passed and "stopped answering" in verdict.stopped
    assert verdict.planned == cfg.sweep and verdict.credit < 0.4


def test_a_value_wider_than_its_port_stops_the_test() -> None:
    cfg = config()
    tape = record(cfg, "document_cases", ModelDesign(cfg.params.fmt))
    tape.entries[0] = 1 << cfg.params.fmt.width  # cap_o is W bits
    verdict = judged(tape, cfg)
    assert "more than its 16 bits can hold" in verdict.stopped and not verdict.passed


def test_x_and_z_are_failures_that_name_the_port() -> None:
    cfg = config()
    tape = record(cfg, "document_cases", ModelDesign(cfg.params.fmt))
    tape.entries[0] = ("x", "x" * cfg.params.fmt.width)
    verdict = judged(tape, cfg)
    assert not verdict.passed and verdict.failures[0].kind == "unresolved"
    assert any("cap_o holds X/Z" in report for report in verdict.reports)


def test_no_tape_is_a_test_that_did_not_run() -> None:
    verdict = replay(TESTS[TOP]["edge_cases"], config(), None)
    assert not verdict.passed and verdict.credit == 0.0 and "did not run" in verdict.stopped


def test_a_void_reply_fails_every_test_of_the_group() -> None:
    """A reply voided by the protocol (tests/bench/test_remote.py) holds no tape: every test scores 0."""
    void = Reply(problem="the simulation's answers broke the protocol (...): every test of the group is void")
    verdicts = [replay(TESTS[TOP][test], config(), void.tapes.get(test)) for test in TESTS[TOP]]
    assert all(not v.passed and v.credit == 0.0 for v in verdicts)


def test_a_missing_port_stops_the_test_where_it_is_touched() -> None:
    cfg = config()
    tape = record(cfg, "document_cases", ModelDesign(cfg.params.fmt))
    tape.widths["cap_o"] = None
    verdict = judged(tape, cfg)
    assert "no port cap_o" in verdict.stopped and verdict.credit == 0.0


FORGER = r"""module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic mem_bound_o);
  assign cap_o = '0;
  assign mem_bound_o = 1'b0;
`systemc_implementation
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
// Everything a design with native code can reach: cocotb's results file (all tests passed), the
// tape (a forged one for every test, before the real one), and every descriptor it has.
static const char* FORGED =
    "{\"test\":\"document_cases\",\"widths\":{\"peak_i\":40,\"bw_i\":40,\"ai_i\":40,\"cap_o\":40,\"mem_bound_o\":1}}\n"
    "{\"v\":[655360,1,6553600,0,6553600,0]}\n{\"end\":\"document_cases\"}\n{\"job\":\"every test passed\"}\n";
static void forge_results() {
    if (const char* path = std::getenv("COCOTB_RESULTS_FILE")) {
        if (FILE* f = std::fopen(path, "w")) {
            std::fputs("<testsuites><testsuite name=\"all\" tests=\"3\" failures=\"0\"><testcase name=\"port_widths\"/>"
                       "<testcase name=\"document_cases\"/><testcase name=\"edge_cases\"/></testsuite></testsuites>", f);
            std::fclose(f);
        }
    }
}
struct Forger {
    Forger() {
        if (const char* path = std::getenv("ROOFLINE_TAPE")) {
            if (FILE* f = std::fopen(path, "a")) { std::fputs(FORGED, f); std::fclose(f); }
        }
        for (int fd = 3; fd < 256; ++fd) { ssize_t ignored = write(fd, FORGED, std::strlen(FORGED)); (void)ignored; }
        std::atexit(forge_results);
    }
};
static Forger forger;
`verilog
endmodule
"""


@pytest.mark.full
@pytest.mark.sim
def test_native_code_that_forges_every_channel_scores_the_ports_group_only(tmp_path: Path) -> None:
    """Past the allow-list (bypassed here), a Verilator design rewrites cocotb's results, forges a
    tape and writes a verdict on every descriptor it has, its puppet's channel among them: the
    grader, which wrote its tapes itself and holds every answer to the protocol, voids the group."""
    from roofline_course import sandbox
    from roofline_course.design_lab import grade
    from roofline_course.intake import submission as intake
    from roofline_course.intake.canonical import Canonical
    from roofline_course.intake.precheck import Precheck
    from roofline_course.labs.definitions import load_lab

    if sandbox.available():
        pytest.skip(f"{SANDBOX_REASON}: {sandbox.available()}")
    folder = tmp_path / "forger"
    folder.mkdir()
    (folder / "roofline_attainable.sv").write_text(FORGER)
    lab = load_lab(1, with_hidden=False)
    submission = intake.select_design(intake.stage(str(folder), tmp_path / "staged"), lab.top)
    settings = grade.Settings(sim="verilator", slot=30)
    unchecked = Precheck("ok", submission=submission, design=submission, canonical=Canonical(""))  # as if built
    scores = grade.grade_batch(lab, list(lab.groups), unchecked, "forger", settings,
                               tmp_path, {}, 60.0)
    marks = {score.group.name: score.score for score in scores}
    details = "\n".join(line for score in scores for line in score.detail)
    # The forger wrote on the puppet's answers before the first answer: the whole reply is void.
    assert "broke the protocol" in details and sum(marks.values()) == 0, (marks, details)


def test_a_design_that_never_answers_is_told_so_and_earns_nothing() -> None:
    cfg = config()
    tape = record(cfg, "document_cases", ModelDesign(cfg.params.fmt))
    verdict = judged(replace(tape, entries=[], complete=False), cfg)  # hung before its first read
    assert verdict.ran_out and verdict.credit == 0.0 and verdict.checked == 0 and verdict.planned > 0
    assert "never answered" in verdict.stopped


def test_a_port_wider_than_the_format_is_judged_and_reported_not_a_crash() -> None:
    """A design whose cap_o has a bit too many really reads values the format cannot hold."""
    cfg = config()
    tape = record(cfg, "document_cases", ModelDesign(cfg.params.fmt))
    tape.widths["cap_o"] = cfg.params.fmt.width + 1
    tape.entries[0] = 1 << cfg.params.fmt.width  # cap_o's extra bit set
    verdict = judged(tape, cfg)
    assert not verdict.stopped and not verdict.passed and verdict.failed[0] == "calculator_check_1"
    assert "beyond UQ8.8" in verdict.reports[0]
