"""The canonical writer on text, no tool run: every comment, attribute, pragma and directive kind
is left out, the code around and between them kept, the normal form is the one its module states,
each canonical line maps back to the student's own file and line, and what cannot be printed back
is refused with its file and line."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyslang
import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course.intake import canonical

HEAD = "module m (input logic [3:0] a, output logic [3:0] y);\n"
TAIL = "assign y = a;\nendmodule\n"
# Each spelling a tool obeys and pyslang does not build: Verilator's attribute lexing and
# metacomments, Yosys's comment pragmas and attributes, Icarus's attributes, directives.
HIDDEN = {
    "attribute string (Verilator)": '(* note = "*) initial void\'($system(C)); (* note = " *)\n',
    "attribute": "(* keep *) (* full_case, parallel_case *) (* blackbox *) (* anyconst *)\n",
    "attribute on a statement": "always_comb begin (* parallel_case *) case (a) 4'd0: ; endcase end\n",
    "Icarus attribute": "(* ivl_synthesis_off *) (* ivl_do_not_elide *)\n",
    "line comment": "// a comment with (* and *) and $system\n",
    "block comment": "/* a block comment over\n two lines $fopen */\n",
    "verilator line metacomment": "// verilator lint_off WIDTH\n",
    "verilator block metacomment": "/*verilator public_flat_rw*/ /*verilator tag x*/\n",
    "verilator metacomment after a port": "wire w /*verilator public*/ /*verilator forceable*/;\n",
    "synthesis translate_off": "// synthesis translate_off\n",
    "synopsys translate_on": "// synopsys translate_on\n",
    "pragma translate_off": "/* pragma translate_off */\n",
    "synopsys case pragma": "always_comb case (a) // synopsys full_case parallel_case\n 4'd1: ; endcase\n",
    "synthesis comment pragma": "wire k /* synthesis syn_keep = 1 */;\n",
    "pragma directive": "`pragma protect begin\n`pragma protect end\n",
    "line directive": '`line 40 "/etc/passwd" 0\n',
    "celldefine": "`celldefine\n`endcelldefine\n",
    "define and use": "`define WIDE 4\nwire [`WIDE-1:0] wide_w;\n`undef WIDE\n",
    "ifdef": "`ifdef NEVER_DEFINED\ninitial $system(\"id\");\n`endif\n",
    "undefineall": "`undefineall\n",
}
GONE = re.compile(r"\(\*|\*\)|//|/\*|\*/|\$system|\$fopen|verilator|translate|full_case|parallel_case|blackbox|anyconst|"
                  r"ivl_|syn_keep|`(?!default_nettype|timescale|resetall)")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def tree_of(tmp_path: Path, files: dict[str, str], includes: tuple[str, ...] = ()) -> pyslang.syntax.SyntaxTree:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    options = pyslang.parsing.PreprocessorOptions()
    options.additionalIncludePaths = [str(tmp_path / folder) for folder in includes] or [str(tmp_path)]
    design = [str(tmp_path / name) for name in files if name.endswith(".sv")]
    return pyslang.syntax.SyntaxTree.fromFiles(design, pyslang.SourceManager(), pyslang.Bag([options]))


def written(tmp_path: Path, files: dict[str, str]) -> canonical.Canonical:
    tree = tree_of(tmp_path, files)
    design = canonical.write(tree, lambda name: Path(name).resolve().is_relative_to(tmp_path.resolve()))
    canonical.check_round_trip(design, tree)
    return design


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_every_comment_attribute_pragma_and_directive_kind_is_left_out_and_the_code_kept(kind: str,
                                                                                         tmp_path: Path) -> None:
    text = HEAD + "localparam string C = \"x\";\n" + HIDDEN[kind] + "wire kept_marker;\n" + TAIL
    design = written(tmp_path, {"m.sv": text})
    code = STRING.sub('""', design.text)
    assert not GONE.search(code), design.text
    assert "wire kept_marker ;" in design.text and "assign y = a ;" in design.text


def test_code_between_translate_off_and_on_is_built_by_every_tool(tmp_path: Path) -> None:
    text = HEAD + "// synthesis translate_off\nwire [3:0] simulated_only = a;\n// synthesis translate_on\n" + TAIL
    assert "wire [ 3 : 0 ] simulated_only = a ;" in written(tmp_path, {"m.sv": text}).text


def test_the_normal_form_is_the_one_the_module_states(tmp_path: Path) -> None:
    """One space between tokens, a sized number and a cast written together, escaped names plain,
    strings re-escaped to printable ASCII, the kept directives on lines of their own."""
    text = ("`timescale 1ns / 1ps\n`default_nettype none\nmodule  m(input logic[3:0]\\a ,output logic [7:0] y);\n"
            "  assign y = 8'h 0f + 4 'b1010 + int'(\\a ) + 'd3; // sum\n"
            "  initial $display(\"tab\\there caf\u00e9 \\\"q\\\" \\\\ %d\", \\a );\nendmodule\n`default_nettype wire\n")
    assert written(tmp_path, {"m.sv": text}).text == (
        "`timescale 1ns/1ps\n"
        "`default_nettype none\n"
        "module m ( input logic [ 3 : 0 ] a , output logic [ 7 : 0 ] y ) ;\n"
        "assign y = 8'h0f + 4'b1010 + int'( a ) + 'd3 ;\n"
        "initial $display ( \"tab\\011here caf\\303\\251 \\\"q\\\" \\\\ %d\" , a ) ;\n"
        "endmodule\n"
        "`default_nettype wire\n")


def test_each_canonical_line_maps_back_to_the_students_file_and_line(tmp_path: Path) -> None:
    files = {
        "top.sv": ("`define ADD(x) (x + 4'd1)\n"        # 1
                   "module m (input logic [3:0] a,\n"  # 2
                   "  output logic [3:0] y);\n"        # 3
                   "\n"                                # 4
                   "  `include \"inc/part.svh\"\n"     # 5
                   "  assign y = `ADD(a);\n"           # 6
                   "endmodule\n"),                     # 7
        "inc/part.svh": "// a part\nwire [3:0] from_include;\n",  # 2
    }
    design = written(tmp_path, files)
    lines = design.text.splitlines()
    places = [(Path(name).name, line) for name, line in design.lines]
    assert places == [("top.sv", 2), ("top.sv", 3), ("part.svh", 2), ("top.sv", 6), ("top.sv", 7)], design.text
    assert lines[3] == "assign y = ( a + 4'd1 ) ;"
    inside = f"/submission/{canonical.NAME}"
    message = f"{inside}:4: syntax error\n{inside}:3:12: error: x\n%Error: {inside}:1:5: Cannot find\nno place here"
    mapped = design.to_source(message)
    assert mapped.splitlines()[:3] == [f"{tmp_path / 'top.sv'}:6: syntax error", f"{tmp_path / 'inc/part.svh'}:2: error: x",
                                       f"%Error: {tmp_path / 'top.sv'}:2: Cannot find"]
    assert mapped.splitlines()[3] == "no place here"
    assert design.to_source(f"{canonical.NAME}:99: beyond the design") == f"{canonical.NAME}:99: beyond the design"


def test_the_map_survives_the_reply_and_the_folder(tmp_path: Path) -> None:
    design = canonical.Canonical("module m;\nendmodule\n", [("a.sv", 3), ("sub/b.sv", 9)])
    assert canonical.Canonical.from_json(design.to_json()) == design
    path = design.write(tmp_path / "design")
    assert [p.name for p in path.parent.iterdir()] == [canonical.NAME]  # alone: the tools see no other file
    assert path.read_text() == design.text


@pytest.mark.parametrize(("text", "refused"), [
    ("wire \\a//b ;\n", r"m\.sv:2: the escaped identifier \\a//b"),
    ("wire \\a*)b ;\n", r"m\.sv:2: the escaped identifier"),
    ("`unconnected_drive pull1\n`nounconnected_drive\n", r"m\.sv:2: `unconnected_drive"),
    ("`begin_keywords \"1364-2005\"\n`end_keywords\n", r"m\.sv:2: `begin_keywords"),
    ("logic \\module ;\n", r"m\.sv:\d+: the design cannot be written out as plain tokens"),
])
def test_what_cannot_be_printed_back_is_refused_with_file_and_line(text: str, refused: str, tmp_path: Path) -> None:
    with pytest.raises(canonical.NotPrintable, match=refused):
        written(tmp_path, {"m.sv": HEAD + text + TAIL})


def test_an_include_of_a_file_that_is_not_the_students_is_refused_at_the_include(tmp_path: Path) -> None:
    outside = tmp_path / "outside.svh"
    outside.write_text("wire from_outside;\n")
    (tmp_path / "student").mkdir()
    text = HEAD + f'`include "{outside}"\n' + TAIL
    tree = tree_of(tmp_path / "student", {"m.sv": text})
    with pytest.raises(canonical.NotPrintable, match=r"m\.sv:2: an `include of a file that is not one of yours"):
        canonical.write(tree, lambda name: Path(name).resolve().is_relative_to((tmp_path / "student").resolve()))


def test_a_round_trip_that_reads_back_other_tokens_is_refused(tmp_path: Path) -> None:
    tree = tree_of(tmp_path, {"m.sv": HEAD + TAIL})
    design = canonical.write(tree, lambda name: True)
    with pytest.raises(canonical.NotPrintable, match="read back the same"):
        canonical.check_round_trip(canonical.Canonical(design.text.replace("assign y = a", "assign y = ~a"),
                                                       design.lines), tree)
    with pytest.raises(canonical.NotPrintable, match="LineComment"):
        canonical.check_round_trip(canonical.Canonical(design.text.replace("endmodule", "// x\nendmodule"),
                                                       design.lines), tree)


def test_a_design_that_expands_past_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = HEAD + "wire [3:0] w0 = a;\n" + TAIL
    size = len(written(tmp_path, {"m.sv": text}).text)
    monkeypatch.setattr(canonical, "MAX_BYTES", size)
    written(tmp_path, {"m.sv": text})  # at the cap
    monkeypatch.setattr(canonical, "MAX_BYTES", size - 1)
    with pytest.raises(canonical.NotPrintable, match="expands to more than"):
        written(tmp_path, {"m.sv": text})


def test_a_tools_error_on_the_canonical_design_names_and_quotes_the_students_line(tmp_path: Path) -> None:
    """precheck.Built.errors: Icarus's, Yosys's or Verilator's message on canonical.sv comes back as
    the student's file and line, quoting that line of the student's own file."""
    from roofline_course import sandbox
    from roofline_course.intake.precheck import Built, Runner
    from roofline_course.intake.submission import Submission

    staged = tmp_path / "staged"
    (staged / "sub").mkdir(parents=True)
    (staged / "sub" / "top.sv").write_text("module m;\n\n  wire [3:0] = 4'd1;\nendmodule\n")
    student = Submission(staged, [staged / "sub" / "top.sv"])
    design = canonical.Canonical("module m ;\nwire [ 3 : 0 ] = 4'd1 ;\nendmodule\n",
                                 [("sub/top.sv", 1), ("sub/top.sv", 3), ("sub/top.sv", 4)])
    built = Built(student, design, student, Runner(student, sandbox.Limits()))
    errors = built.errors(f"{sandbox.SUBMISSION}/{canonical.NAME}:2: syntax error\n"
                          f"{sandbox.SUBMISSION}/{canonical.NAME}:2: error: invalid module item.\n")
    assert errors == ["sub/top.sv:3: syntax error\n      | wire [3:0] = 4'd1;", "sub/top.sv:3: error: invalid module item."]


def test_mapping_a_message_back_is_linear_in_its_length() -> None:
    """A simulator's log holds what the design prints (up to 8 MiB): a run of path-like characters
    must not make the mapping quadratic, and a folder is looked for only so far back."""
    design = canonical.Canonical("module m ;\n", [("top.sv", 7)])
    long_word = "a/" * (1 << 20)
    assert design.to_source(long_word + f"{canonical.NAME}:1: error") == long_word[:-canonical.MAX_FOLDER] + "top.sv:7: error"
    assert design.to_source(long_word) == long_word


# ---------------------------------------------------------------- the map back, at its edges

MAPPED = canonical.Canonical("module m ;\nwire w ;\nendmodule\n", [("top.sv", 4), ("sub/part.sv", 7), ("top.sv", 9)])


@pytest.mark.parametrize(("line", "source", "place"), [(0, None, "?"), (1, ("top.sv", 4), "top.sv:4"),
                                                       (3, ("top.sv", 9), "top.sv:9"), (4, None, "?"), (-1, None, "?")])
def test_a_canonical_line_maps_to_its_students_line_and_one_outside_the_design_to_nothing(
        line: int, source: tuple[str, int] | None, place: str) -> None:
    assert MAPPED.source_of(line) == source
    assert MAPPED.place(line) == place


@pytest.mark.parametrize(("message", "mapped"), [
    # the folder the tool named it by goes, back to the character that cannot be in a path
    (f"at /run/abc/{canonical.NAME}:2:17: oops", "at sub/part.sv:7: oops"),
    (f"'/ab/{canonical.NAME}:1' and (x/{canonical.NAME}:3)", "'top.sv:4' and (top.sv:9)"),
    # a name that only ends in it keeps what is before it; one at the very start has nothing before it
    (f"foo_{canonical.NAME}:2: x", "foo_sub/part.sv:7: x"),
    (f"{canonical.NAME}:3: x", "top.sv:9: x"),
    # a line outside the design is left as the tool wrote it, and the references after it still map
    (f"/a/{canonical.NAME}:9: far; /b/{canonical.NAME}:1: near", f"/a/{canonical.NAME}:9: far; top.sv:4: near"),
    # a folder is looked for only after the reference before it
    (f"/x/{canonical.NAME}:1/{canonical.NAME}:2", "top.sv:4sub/part.sv:7"),
])
def test_a_tools_message_names_the_students_files_and_lines(message: str, mapped: str) -> None:
    assert MAPPED.to_source(message) == mapped
    assert MAPPED.to_source(message, "/submission/") == mapped.replace("top.sv", "/submission/top.sv").replace(
        "sub/part.sv", "/submission/sub/part.sv")


def test_a_folder_as_long_as_the_system_allows_goes_whole() -> None:
    """PATH_MAX: the longest path a tool can have named the design by, and no further back."""
    longest = os.pathconf("/", "PC_PATH_MAX")
    folder = "/" + "d/" * ((longest - 1) // 2)
    folder += "e" * (longest - len(folder) - 1) + "/"
    assert len(folder) == longest
    assert MAPPED.to_source(f"x {folder}{canonical.NAME}:1") == "x top.sv:4"
    assert MAPPED.to_source(f"xy{folder}{canonical.NAME}:1") == "xytop.sv:4"  # no further back than that


@pytest.mark.parametrize("exists", [False, True])
def test_the_design_is_written_into_its_folder_new_or_not_and_the_map_beside_it(exists: bool, tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "design"
    if exists:
        folder.mkdir(parents=True)
    path = MAPPED.write(folder)
    assert path == folder / canonical.NAME and path.read_text() == MAPPED.text
    assert [p.name for p in folder.iterdir()] == [canonical.NAME]
    assert json.loads((tmp_path / "deep" / canonical.MAP_NAME).read_text()) == [["top.sv", 4], ["sub/part.sv", 7],
                                                                                ["top.sv", 9]]


def test_the_cap_the_threat_model_states_is_the_codes() -> None:
    text = " ".join((REPO_ROOT / "docs" / "threat-model.md").read_text().split())
    assert f"is at most {canonical.MAX_BYTES >> 20} MiB (`canonical.MAX_BYTES`)" in text
    assert canonical.MAX_BYTES % (1 << 20) == 0


def test_a_sized_number_over_two_lines_is_placed_where_it_begins(tmp_path: Path) -> None:
    design = written(tmp_path, {"m.sv": HEAD + "wire [3:0] w = 4\n  'd1;\n" + TAIL})
    assert design.text.splitlines()[1:3] == ["wire [ 3 : 0 ] w = 4'd1", ";"]
    assert design.lines[1:3] == [(str(tmp_path / "m.sv"), 2), (str(tmp_path / "m.sv"), 3)]


def test_a_sized_number_that_ends_in_a_file_not_the_students_is_refused_at_the_include(tmp_path: Path) -> None:
    (tmp_path / "outside.svh").write_text("'d1")
    (tmp_path / "student").mkdir()
    text = HEAD + f'wire [3:0] w = 4\n`include "{tmp_path / "outside.svh"}"\n;\n' + TAIL
    tree = tree_of(tmp_path / "student", {"m.sv": text})
    with pytest.raises(canonical.NotPrintable, match=r"m\.sv:3: an `include of a file that is not one of yours"):
        canonical.write(tree, lambda name: Path(name).resolve().is_relative_to((tmp_path / "student").resolve()))


def test_a_deep_chain_of_foreign_includes_is_refused_at_the_students_own_include(tmp_path: Path) -> None:
    """However deep the chain (pyslang allows 1024), the message names the student's line, never a foreign file's."""
    outside = tmp_path / "outside"
    outside.mkdir()
    depth = 150
    for level in range(depth):
        (outside / f"f{level}.svh").write_text(f'`include "f{level + 1}.svh"\n' if level + 1 < depth else "wire deep;\n")
    (tmp_path / "student").mkdir()
    tree = tree_of(tmp_path / "student", {"m.sv": HEAD + f'`include "{outside / "f0.svh"}"\n' + TAIL}, ("../outside",))
    with pytest.raises(canonical.NotPrintable, match=r"^m\.sv:2: an `include of a file that is not one of yours$"):
        canonical.write(tree, lambda name: Path(name).resolve().is_relative_to((tmp_path / "student").resolve()))


@pytest.mark.parametrize("before", ["", "// a comment\n", "/* a block */ ", "   "])
def test_a_kept_directive_after_other_trivia_is_kept_on_a_line_of_its_own(before: str, tmp_path: Path) -> None:
    text = "module first; endmodule " + before + "`default_nettype none\n" + HEAD + TAIL
    lines = written(tmp_path, {"m.sv": text}).text.splitlines()
    assert lines[:2] == ["module first ; endmodule", "`default_nettype none"] and lines[2].startswith("module m (")


@pytest.mark.parametrize("before", ["", "// a comment\n", "  "])
def test_a_refused_directive_after_other_trivia_is_refused(before: str, tmp_path: Path) -> None:
    with pytest.raises(canonical.NotPrintable, match=r"m\.sv:\d: `unconnected_drive"):
        written(tmp_path, {"m.sv": HEAD + before + "`unconnected_drive pull1\n`nounconnected_drive\n" + TAIL})


def test_every_printable_character_is_written_as_itself_and_the_first_line_takes_a_cast(tmp_path: Path) -> None:
    """The edges of printable ASCII (space and ~) in a string and as an operator; a cast on the design's first line."""
    text = "module m #(parameter int P = int'(3)) (input logic [3:0] a, output logic [3:0] y);\n" \
           "  initial $display(\" ~!\");\n  assign y = ~a;\nendmodule\n"
    assert written(tmp_path, {"m.sv": text}).text == (
        "module m # ( parameter int P = int'( 3 ) ) ( input logic [ 3 : 0 ] a , output logic [ 3 : 0 ] y ) ;\n"
        "initial $display ( \" ~!\" ) ;\n"
        "assign y = ~ a ;\n"
        "endmodule\n")


def test_a_refused_name_is_quoted_to_its_first_40_characters(tmp_path: Path) -> None:
    name = "\\" + "a+" * 30
    with pytest.raises(canonical.NotPrintable, match="the escaped identifier") as refused:
        written(tmp_path, {"m.sv": HEAD + f"wire {name} ;\n" + TAIL})
    assert f"identifier {name[:40]}: " in str(refused.value)


def test_a_design_past_the_cap_is_refused_saying_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(canonical, "MAX_BYTES", 1 << 20)
    body = f'localparam string S = "{"s" * (1 << 20)}";\n'  # one long token: the writer's cost is per token
    with pytest.raises(canonical.NotPrintable, match=r"^the design expands to more than 1 MiB of code \(a macro that grows\?\)$"):
        written(tmp_path, {"m.sv": HEAD + body + TAIL})


# ---------------------------------------------------------------- the round trip names where it broke

ROUND = HEAD + "wire [3:0] w = a;\n" + TAIL  # canonical lines 1-4 from m.sv lines 1-4


def round_trip(tmp_path: Path, text: str, mapped: bool = True) -> str:
    tree = tree_of(tmp_path, {"m.sv": ROUND})
    design = canonical.write(tree, lambda name: True)
    with pytest.raises(canonical.NotPrintable) as refused:
        canonical.check_round_trip(canonical.Canonical(text(design.text) if callable(text) else text,
                                                       design.lines if mapped else []), tree)
    return str(refused.value)


@pytest.mark.parametrize(("change", "line"), [
    (lambda text: text.replace("module", "macromodule", 1), 1),  # the very first token differs
    (lambda text: text.replace("w = a", "w = y"), 2),  # a token that differs: its own line
    (lambda text: text.replace("assign y = a ;", "assign y = a ; wire extra ;"), 3),  # one more: the first extra
    (lambda text: text.replace("endmodule", ""), 3),  # one fewer at the end: the last token written
    (lambda text: text + "wire\n", 4),  # one more at the end: the last token both have
])
def test_a_round_trip_that_reads_back_other_tokens_names_the_first_difference(change: object, line: int,
                                                                               tmp_path: Path) -> None:
    assert round_trip(tmp_path, change).startswith(f"m.sv:{line}: the design cannot be written out as plain tokens that "
                                                   "read back the same")


def test_a_difference_outside_the_map_is_placed_nowhere(tmp_path: Path) -> None:
    assert round_trip(tmp_path, lambda text: text.replace("w = a", "w = y"), mapped=False).startswith("?: the design")
    assert round_trip(tmp_path, "").startswith("?: the design cannot be written out as plain tokens that read back")


def test_a_directive_the_normal_form_does_not_keep_fails_the_round_trip(tmp_path: Path) -> None:
    message = round_trip(tmp_path, lambda text: text.replace("wire [", "`define X 1\nwire ["))
    # named by the line of the token it is written before
    assert message == "m.sv:3: the design cannot be written out as plain tokens (Directive in the text written)"


def test_a_written_text_that_does_not_parse_names_its_first_error(tmp_path: Path) -> None:
    tree = tree_of(tmp_path, {"m.sv": HEAD + "wire [3:0] w = a + ;\nwire [3:0] v = a - ;\n" + TAIL})
    design = canonical.write(tree, lambda name: True)
    with pytest.raises(canonical.NotPrintable, match=r"^m\.sv:2: the design written out as plain tokens does not parse$"):
        canonical.check_round_trip(design, tree)


def test_a_kept_directive_after_code_left_out_by_an_ifdef_is_kept(tmp_path: Path) -> None:
    """The text an `ifdef leaves out is trivia of the next token, before the directives after it."""
    text = "`ifdef NEVER_DEFINED\nwire x;\n`endif\n`default_nettype none\n" + HEAD + TAIL
    assert written(tmp_path, {"m.sv": text}).text.splitlines()[0] == "`default_nettype none"
