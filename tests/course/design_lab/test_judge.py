"""The trusted judge: a reply is judged by replaying the bench from its tape, and nothing a reply
says gains a design more than the outputs it shows.

Tapes here come from a stand-in for the design (tests/support/model_design.py: the unit's arithmetic,
right or with one bug), recorded exactly as the cocotb harness records a simulator's. No
simulator runs, except where a Verilator design with native code forges everything it can reach.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from model_design import ModelDesign
from model_design import record as record_model

from roofline_bench.benches import TESTS
from roofline_bench.run import replay
from roofline_bench.tape import MAX_WIDTH, Reply, parse
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, ParamSet

TOP = "roofline_attainable"
PORTS = [port.name for port in MODULES[TOP].ports]
LOG = logging.getLogger("test_judge")


SMALL = ParamSet(8, 8, 1, 16)


def config(p: ParamSet = SMALL) -> BenchConfig:
    return BenchConfig(TOP, "icarus", p, seed=11, sweep=300)


def record(folder: Path, test: str, design: ModelDesign, cfg: BenchConfig) -> list[str]:
    return record_model(folder, cfg, test, design)


def judged(lines: list[str], test: str, cfg: BenchConfig) -> tuple[Reply, object]:
    reply = parse(lines, [test], PORTS)
    return reply, replay(TESTS[TOP][test], cfg, reply.tapes.get(test))


@pytest.mark.parametrize("test", ["document_cases", "edge_cases", "random_sweep"])
def test_a_correct_tape_passes_and_a_design_that_computes_nothing_earns_nothing(test: str, tmp_path: Path) -> None:
    cfg = config()
    _, good = judged(record(tmp_path, test, ModelDesign(cfg.params.fmt), cfg), test, cfg)
    assert good.passed and good.credit == 1.0 and good.checked > 0
    _, zero = judged(record(tmp_path, test, ModelDesign(cfg.params.fmt, "zero"), cfg), test, cfg)
    assert not zero.passed and zero.credit == 0.0, (zero.checked, len(zero.failed), zero.baseline)


def test_a_bug_loses_its_vectors_beyond_chance(tmp_path: Path) -> None:
    cfg = config()
    _, ridge = judged(record(tmp_path, "random_sweep", ModelDesign(cfg.params.fmt, "ridge"), cfg), "random_sweep", cfg)
    share = (ridge.checked - len(ridge.failed)) / ridge.planned
    assert 0 < len(ridge.failed) < ridge.checked and 0 < ridge.baseline < share
    assert ridge.credit == pytest.approx((share - ridge.baseline) / (1 - ridge.baseline))
    assert {f.kind for f in ridge.failures} == {"mismatch"} and all("ridge" in " ".join(f.regimes) for f in ridge.failures)


def test_a_tape_cut_short_is_scored_against_everything_the_test_meant_to_check(tmp_path: Path) -> None:
    cfg = config()
    lines = record(tmp_path, "random_sweep", ModelDesign(cfg.params.fmt), cfg)
    values = json.loads(lines[1])["v"]
    cut = [lines[0], json.dumps({"v": values[: len(values) // 3]})]  # killed a third of the way in
    _, verdict = judged(cut, "random_sweep", cfg)
    assert verdict.ran_out and not verdict.passed and "stopped answering" in verdict.stopped
    assert verdict.planned == cfg.sweep and verdict.credit < 0.4


@pytest.mark.parametrize(("forged", "at", "why"), [
    ('{"v": [1, 2, 3]}', 0, "values outside a test"),
    ('{"test": "random_sweep", "widths": {"cap_o": -1}}', 0, "impossible width"),
    ('{"test": "random_sweep", "widths": {"cap_o": 99999999}}', 0, "impossible width"),
    ('{"test": "port_widths", "widths": {}}', 0, "did not run"),
    ('{"v": [-5]}', 1, "negative"),
    ('{"v": [1.5]}', 1, "neither"),
    ('{"v": "all passed"}', 1, "not a list"),
    ('["not", "a", "line"]', 1, "not a tape line"),
    ('{"passed": true}', 1, "not a tape line"),
    ('{"end": "document_cases"}', 1, "did not start"),
    ("{", 1, "malformed"),
    ("[" * 100000, 1, "malformed"),
])
def test_a_malformed_reply_is_dropped_from_where_it_goes_wrong(forged: str, at: int, why: str, tmp_path: Path) -> None:
    cfg = config()
    lines = record(tmp_path, "random_sweep", ModelDesign(cfg.params.fmt), cfg)
    reply = parse([*lines[:at], forged, *lines[at:]], ["random_sweep"], PORTS)
    assert f"line {at + 1}" in reply.problem and why in reply.problem, reply.problem
    verdict = replay(TESTS[TOP]["random_sweep"], cfg, reply.tapes.get("random_sweep"))
    assert not verdict.passed and verdict.credit == 0.0


def test_a_second_copy_of_a_test_cannot_replace_the_first(tmp_path: Path) -> None:
    """A design that appends a forged tape after the real one (or before it) gains nothing."""
    cfg = config()
    real = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt, "zero"), cfg)
    forged = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)
    reply, verdict = judged([*real, *forged], "document_cases", cfg)
    assert "twice" in reply.problem and verdict.credit == 0.0


def test_a_value_wider_than_its_port_stops_the_test(tmp_path: Path) -> None:
    cfg = config()
    lines = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)
    values = json.loads(lines[1])["v"]
    values[0] = 1 << cfg.params.fmt.width  # cap_o is W bits
    reply, verdict = judged([lines[0], json.dumps({"v": values}), *lines[2:]], "document_cases", cfg)
    assert not reply.problem and "more than its 16 bits can hold" in verdict.stopped and not verdict.passed


def test_x_and_z_are_failures_that_name_the_port(tmp_path: Path) -> None:
    cfg = config()
    lines = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)
    values = json.loads(lines[1])["v"]
    values[0] = ["x", "x" * cfg.params.fmt.width]
    _, verdict = judged([lines[0], json.dumps({"v": values}), *lines[2:]], "document_cases", cfg)
    assert not verdict.passed and verdict.failures[0].kind == "unresolved"
    assert any("cap_o holds X/Z" in report for report in verdict.reports)


def test_no_tape_is_a_test_that_did_not_run() -> None:
    verdict = replay(TESTS[TOP]["edge_cases"], config(), None)
    assert not verdict.passed and verdict.credit == 0.0 and "did not run" in verdict.stopped


def test_a_missing_port_stops_the_test_where_it_is_touched(tmp_path: Path) -> None:
    cfg = config()
    lines = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)
    header = json.loads(lines[0])
    header["widths"]["cap_o"] = None
    _, verdict = judged([json.dumps(header), *lines[1:]], "document_cases", cfg)
    assert "no port cap_o" in verdict.stopped and verdict.credit == 0.0


def test_the_parser_bounds_what_it_holds() -> None:
    assert MAX_WIDTH == 1 << 16
    huge = json.dumps({"test": "random_sweep", "widths": {}}) + "\n" + json.dumps({"v": [0] * 10}) + "\n"
    reply = parse(huge.splitlines() + ["x" * (2 << 20)], ["random_sweep"], PORTS)
    assert "too long" in reply.problem and len(reply.tapes["random_sweep"].entries) == 10


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
    tape and writes a verdict on every descriptor: the judge, reading only the tapes it replays,
    gives it what its ports showed: the ports group."""
    from roofline_course import sandbox
    from roofline_course.design_lab import grade
    from roofline_course.intake import submission as intake
    from roofline_course.intake.canonical import Canonical
    from roofline_course.intake.precheck import Precheck
    from roofline_course.labs.definitions import load_lab

    if sandbox.available():
        pytest.skip(sandbox.available())
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
    ports = sum(g.weight for g in lab.groups if g.tests == ("port_widths",))
    # The simulation ran (its real port widths were judged) and the forger with it (its tape came first).
    assert marks["ports and widths"] == ports, details
    assert "test document_cases twice" in details, details
    assert marks["document cases"] == marks["edge cases"] == 0 and sum(marks.values()) == ports, marks


def test_a_design_that_never_answers_is_told_so_and_earns_nothing(tmp_path: Path) -> None:
    cfg = config()
    header = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)[0]  # hung before its first read
    _, verdict = judged([header], "document_cases", cfg)
    assert verdict.ran_out and verdict.credit == 0.0 and verdict.checked == 0 and verdict.planned > 0
    assert "never answered" in verdict.stopped


def test_a_port_wider_than_the_format_is_judged_and_reported_not_a_crash(tmp_path: Path) -> None:
    """A design whose cap_o has a bit too many really reads values the format cannot hold."""
    cfg = config()
    lines = record(tmp_path, "document_cases", ModelDesign(cfg.params.fmt), cfg)
    header = json.loads(lines[0])
    header["widths"]["cap_o"] = cfg.params.fmt.width + 1
    values = json.loads(lines[1])["v"]
    values[0] = 1 << cfg.params.fmt.width  # cap_o's extra bit set
    _, verdict = judged([json.dumps(header), json.dumps({"v": values}), *lines[2:]], "document_cases", cfg)
    assert not verdict.stopped and not verdict.passed and verdict.failed[0] == "calculator_check_1"
    assert "beyond UQ8.8" in verdict.reports[0]
