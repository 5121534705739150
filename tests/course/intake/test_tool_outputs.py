"""The allow-list on each tool's own output, on text and no tool run: Icarus's vvp program,
Verilator's --json-only parse, Yosys's netlist. Each refused construct in each disguise the tool's
output can give it is refused and names the tool; what a lab design needs passes. The outputs
here are written in each tool's format as seen from Icarus 11, Verilator 5 and Yosys 0.23/0.70."""

from __future__ import annotations

import pytest

from roofline_course.intake.tool_outputs import (
    ALLOWED,
    VERILATOR_REFUSED,
    YOSYS_CELLS,
    icarus_problems,
    verilator_problems,
    yosys_problems,
)

VVP_HEAD = """#! /usr/bin/vvp
:ivl_version "11.0 (stable)";
:ivl_delay_selection "TYPICAL";
:vpi_time_precision - 12;
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/system.vpi";
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/vhdl_sys.vpi";
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/vhdl_textio.vpi";
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/v2005_math.vpi";
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/va_math.vpi";
:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/v2009.vpi";
S_0x55664cdbcdc0 .scope package, "$unit" "$unit" 2 1;
 .timescale -9 -12;
"""


def place(line: int) -> str:
    return f"m.sv:{line + 100}"  # a map that shows it was used


def vvp(*lines: str) -> str:
    return VVP_HEAD + "\n".join(lines) + "\n"


def test_a_program_calling_only_what_a_lab_design_needs_passes() -> None:
    program = vvp('    %vpi_call/w 3 4 "$display", "hi *) there %d", 32\'sb11 {0 0 0};',
                  'L_0x1 .sfunc 3 2 "$clog2", "v32v32", L_0x2;',
                  '    %vpi_func 3 9 "$time" 64 {0 0 0};',
                  '    %vpi_call/w 3 8 "$error", "bad" {0 0 0};',
                  '    %vpi_call/w 3 9 "$display", "%vpi_call 3 3 \\042$system\\042" {0 0 0};')
    assert icarus_problems(program, place) == []


@pytest.mark.parametrize("line", [
    '    %vpi_call/w 3 5 "$system", "id" {0 0 0};',
    '    %vpi_func 3 5 "$fopen" 32, "x", "w" {0 0 0};',
    '    %vpi_call/w 3 5 "$fdisplay", v0x558a3008c7f0_0, "a" {0 0 0};',
    '    %vpi_call/w 3 5 "$readmemh", "m", v0x558a300d7260 {0 0 0};',
    '    %vpi_func 3 5 "$test$plusargs" 32, "x" {0 0 0};',
    '    %vpi_call/w 3 5 "$finish" {0 0 0};',
    '    %vpi_call/w 3 5 "$dumpfile", "x" {0 0 0};',
    '    %vpi_call/i 3 5 "$ivlh_file_open", "x" {0 0 0};',
    '    %vpi_func/r 3 5 "$bitstoreal" {0 0 0};',
    '    %vpi_func/s 3 5 "$sformatf_evil" {0 0 0};',
    'L_0x55664ce05740 .sfunc 3 5 "$random", "v32";',
    'L_0x55664ce05741 .sfunc/e 3 5 "$urandom", "v32";',
])
def test_each_call_outside_the_allow_list_in_icarus_program_is_refused_naming_icarus(line: str) -> None:
    name = line.split('"')[1]
    assert name not in ALLOWED
    assert icarus_problems(vvp(line), place) == [f"m.sv:105: Icarus compiled a call to {name}: a design may not call it"]


def test_a_vpi_module_icarus_does_not_ship_is_refused() -> None:
    program = VVP_HEAD.replace("v2009.vpi", "v2009.vpi\";\n:vpi_module \"/submission/evil.vpi")
    assert icarus_problems(program, place) == [
        "Icarus's program loads the VPI module /submission/evil.vpi: the grader loads none but Icarus's own"]


def test_a_call_in_a_shape_the_reader_does_not_know_is_refused_not_passed() -> None:
    assert icarus_problems(vvp('    %vpi_call/w "$system", "id";'), place) == [
        "Icarus's program holds a call the grader cannot read: the design is not built"]


def node(kind: str, line: int = 4, **fields: object) -> dict:
    return {"type": kind, "name": "", "addr": "(B)", "loc": f"e,{line}:3,{line}:9", **fields}


def tree(*stmts: dict) -> dict:
    return {"type": "NETLIST", "name": "$root", "modulesp": [node("MODULE", 1, name="m", stmtsp=[
        node("INITIAL", 2, stmtsp=[node("BEGIN", 3, stmtsp=list(stmts))])])]}


def test_verilators_parse_of_what_a_lab_design_needs_passes() -> None:
    parse = tree(node("DISPLAY", fmtp=[node("SFORMATF", name="hi")], filep=[]), node("ASSIGN"), node("CLOG2"),
                 node("FUNC", name="f", dpiImport=False), node("ASSERT"))
    assert verilator_problems(parse, place) == []


@pytest.mark.parametrize("kind", sorted(VERILATOR_REFUSED))
def test_each_refused_node_in_verilators_parse_is_refused_naming_verilator(kind: str) -> None:
    [problem] = verilator_problems(tree(node(kind, line=7)), place)
    assert problem.startswith("m.sv:107: Verilator parsed ") and f"({kind})" in problem


@pytest.mark.parametrize(("found", "what"), [
    (node("FUNC", name="system", dpiImport=True, prototype=True), "DPI"),
    (node("TASK", name="t", dpiExport=True), "DPI"),
    (node("DISPLAY", fmtp=[node("SFORMATF", name="a")], filep=[node("VARREF", name="f")]), "a display to a file"),
])
def test_dpi_and_a_display_to_a_file_in_verilators_parse_are_refused(found: dict, what: str) -> None:
    [problem] = verilator_problems(tree(found), place)
    assert problem.startswith("m.sv:104: Verilator parsed") and what in problem


def test_a_refused_node_deep_in_verilators_parse_is_found() -> None:
    deep = node("SYSTEMT", line=9)
    for _ in range(5000):  # no recursion limit is hit
        deep = node("BEGIN", stmtsp=[deep])
    assert len(verilator_problems(tree(deep), place)) == 1


def netlist(cells: dict[str, str], modules: tuple[str, ...] = ()) -> dict:
    top = {"cells": {name: {"type": kind, "parameters": {}} for name, kind in cells.items()}}
    return {"modules": {"m": top, **{name: {"cells": {}} for name in modules}}}


def test_yosys_netlist_of_a_circuit_with_displays_and_assertions_passes() -> None:
    derived = "$paramod\\roofline_level\\INT_BITS=s32'00000000000000000000000000011000"
    found = netlist({"a": "$add", "m": "$pmux", "d": "$dff", "p": "$print", "c": "$check", "mem": "$mem_v2",
                     "sub": "roofline_level", "derived": derived}, modules=("roofline_level", derived))
    assert yosys_problems(found) == []


@pytest.mark.parametrize("kind", ["$anyconst", "$anyseq", "$allconst", "$allseq", "$anyinit", "$initstate", "$equiv",
                                  "$specify2", "$specrule", "$future_ff", "$get_tag", "SB_LUT4", "\\blackbox_helper"])
def test_a_cell_that_is_not_a_circuits_or_the_designs_is_refused_naming_yosys(kind: str) -> None:
    assert kind not in YOSYS_CELLS
    [problem] = yosys_problems(netlist({"x": kind}))
    assert problem.startswith(f"Yosys built a {kind} cell in m")


def test_a_process_left_in_yosys_netlist_is_refused() -> None:
    found = netlist({})
    found["modules"]["m"]["processes"] = {"$proc$m.sv:3$1": {}}
    assert yosys_problems(found) == ["Yosys left a process in m after proc: the design is not synthesized"]
