"""The first wall on text, no tool run: design_check's allow-list (pyslang, each tool's macros)
and the canonical writer, against every disguise of tests/support/design_soup.py. Each disguised
call is refused, or the canonical design written of it holds no call outside the allow-list, no
DPI and nothing a tool could read as code but pyslang did not (a comment, an attribute)."""

from __future__ import annotations

import re
from pathlib import Path

import design_soup
import pyslang
import pytest

from roofline_course.intake import design_check
from roofline_course.intake.tool_outputs import ALLOWED

TOOLS = ["icarus", "verilator", "yosys"]
CALLS = {"$system": design_soup.CALLS["$system"], "$fopen": design_soup.CALLS["$fopen"],
         "$c": design_soup.CALLS["$c"], "DPI": design_soup.QUOTED_CALLS["DPI import"]}
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def verdict(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "m.sv"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    try:
        return design_check.checked_design([str(path)], [str(tmp_path)], TOOLS, str(tmp_path), preprocessors=False)
    except design_check.PreprocessorError as error:
        return {"problems": [f"compile: {error}"]}


PAIRS = [(name, call) for name, quote_free, _ in design_soup.DISGUISES for call in sorted(CALLS)
         if not (quote_free and '"' in CALLS[call])]  # a disguise in a string holds no quote


@pytest.mark.parametrize(("disguise", "call"), PAIRS)
def test_every_disguised_call_is_refused_or_left_out_of_the_canonical_design(disguise: str, call: str,
                                                                              tmp_path: Path) -> None:
    _, _, wrap = next(d for d in design_soup.DISGUISES if d[0] == disguise)
    text = design_soup.HEAD.format(i=0) + wrap(CALLS[call], 0) + "\nendmodule\n"
    reply = verdict(tmp_path, text)
    if reply["problems"]:
        return
    written = reply["canonical"]["text"]
    tree = pyslang.syntax.SyntaxTree.fromText(written)
    tokens, problems = design_check.read_tokens(tree, located=False)
    assert not problems and not [t.text for t in design_check.forbidden(tokens)], written
    assert not re.search(r"\(\*|\*\)|//|/\*|import", STRING.sub('""', written)), written


# Every file, shell, native-code, run-ending, plusarg, dump and random task the tools know, and Icarus's aliases.
REFUSED_CALLS = [
    "$system", "$c", "$c8", "$c16", "$c32", "$c64", "$cpure",
    "$fopen", "$fopenr", "$fopenw", "$fopena", "$fclose", "$fflush", "$feof", "$ferror", "$fgetc", "$fgets",
    "$fread", "$fscanf", "$fseek", "$ftell", "$rewind", "$ungetc", "$fdisplay", "$fdisplayb", "$fdisplayh",
    "$fdisplayo", "$fwrite", "$fwriteb", "$fwriteh", "$fwriteo", "$fstrobe", "$fmonitor", "$swrite", "$sscanf",
    "$readmemh", "$readmemb", "$writememh", "$writememb", "$sreadmemh", "$ivlh_file_open", "$ivlh_file_close",
    "$dumpfile", "$dumpvars", "$dumpon", "$dumpoff", "$dumpall", "$dumpflush", "$dumplimit", "$dumpports",
    "$finish", "$stop", "$exit", "$test$plusargs", "$value$plusargs", "$random", "$urandom", "$urandom_range",
    "$dist_uniform", "$sdf_annotate", "$printtimescale", "$timeformat", "$save", "$restart", "$key", "$log", "$input",
]


@pytest.mark.parametrize("name", REFUSED_CALLS)
def test_each_call_outside_the_allow_list_is_refused_with_its_file_and_line(name: str, tmp_path: Path) -> None:
    assert name not in ALLOWED
    reply = verdict(tmp_path, f"module m;\ninteger x;\ninitial x = {name}(1);\nendmodule\n")
    assert reply["problems"][0].startswith(f"m.sv:3: {name}: a design may not call it"), reply


@pytest.mark.parametrize("import_line", [
    'import "DPI-C" function int f(input int a);', 'import "DPI-C" context function int f(input int a);',
    'import "DPI-C" pure function int f(input int a);', 'import "DPI" function int f(input int a);',
    'import "DPI-C" task t(input int a);', 'import "DPI-C" f = function int g(input int a);',
    'export "DPI-C" function h;', 'export "DPI-C" task t2;'])
def test_every_dpi_import_and_export_is_refused_with_its_file_and_line(import_line: str, tmp_path: Path) -> None:
    body = "function int h; return 0; endfunction\ntask t2; endtask\n" if import_line.startswith("export") else ""
    reply = verdict(tmp_path, f"module m;\n{body}{import_line}\nendmodule\n")
    line = 4 if body else 2
    assert any(problem.startswith(f"m.sv:{line}: a DPI import or export") for problem in reply["problems"]), reply


@pytest.mark.parametrize("directive", ["systemc_header", "systemc_interface", "systemc_imp_header",
                                       "systemc_implementation", "systemc_ctor", "systemc_dtor", "verilog",
                                       "NOT_DEFINED_ANYWHERE"])
def test_verilators_c_sections_and_every_unknown_directive_are_refused(directive: str, tmp_path: Path) -> None:
    reply = verdict(tmp_path, f"module m;\n`{directive}\nint x;\nendmodule\n")
    assert any(problem.startswith(f"m.sv:2: an unknown directive or undefined macro `{directive}")
               for problem in reply["problems"]), reply


MODULE = "module m(input logic a_i, output logic b_o);\n{body}\nendmodule\n"
PLAIN = "assign b_o = a_i;"


@pytest.mark.parametrize("macro", ["SYNTHESIS", "YOSYS", "VERILATOR", "COCOTB_SIM", "__ICARUS__"])
@pytest.mark.parametrize("form", ["ifdef", "ifndef"])
def test_a_design_that_differs_under_a_macro_a_tool_defines_is_refused(macro: str, form: str, tmp_path: Path) -> None:
    """One design for every tool: the circuit synthesized (and whose ports are checked) is the one simulated."""
    stub = f"`{form} {macro}\nassign b_o = 1'b0;\n`else\nassign b_o = a_i;\n`endif"
    reply = verdict(tmp_path, MODULE.format(body=stub))
    assert any("the design is not the same for" in problem for problem in reply["problems"]), reply


@pytest.mark.parametrize("body", [PLAIN, f"`ifdef NO_TOOL_DEFINES_IT\nassign b_o = 1'b0;\n`else\n{PLAIN}\n`endif"])
def test_a_design_that_every_tool_reads_alike_is_written_out(body: str, tmp_path: Path) -> None:
    reply = verdict(tmp_path, MODULE.format(body=body))
    assert reply["problems"] == [] and "assign b_o = a_i ;" in reply["canonical"]["text"], reply


# ---------------------------------------------------------------- the later looks, each tool faked
# check() holds the source to each simulator's own preprocessor, and the canonical design to each
# tool's reading of it; here the tools answer what the test says (test_canonical.py runs the real ones).

DESIGN = MODULE.format(body=PLAIN)


def as_written(tool: str, files: list[str], includes: list[str]) -> tuple[str, str]:
    """A preprocessor that changes nothing: what a design without macros comes out as."""
    return "".join(Path(name).read_text() for name in files), ""


def checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, preprocessor: object = as_written,
            verilator: object = lambda path, design: []) -> dict:
    monkeypatch.setattr(design_check, "real_preprocessor", preprocessor)
    monkeypatch.setattr(design_check, "verilator_parse", verilator)
    path = tmp_path / "m.sv"
    path.write_text(DESIGN)
    return design_check.check([str(path)], [str(tmp_path)], TOOLS, str(tmp_path))


def on_the_source(extra: str) -> object:
    """A preprocessor that adds `extra` to the student's files (a macro only the tool defines), not to the canonical design."""
    def preprocess(tool: str, files: list[str], includes: list[str]) -> tuple[str, str]:
        text, error = as_written(tool, files, includes)
        return (text.replace("endmodule", extra + "\nendmodule") if Path(files[0]).name == "m.sv" else text), error
    return preprocess


def test_a_design_every_tool_reads_as_checked_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = checked(tmp_path, monkeypatch)
    assert reply["problems"] == [] and "canonical" in reply  # the control of the tests below


def test_a_call_only_the_simulators_preprocessor_builds_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = checked(tmp_path, monkeypatch, on_the_source("initial $system(\"id\");"))
    assert any("$system: Icarus builds a call to it that the source shows only under a macro" in problem
               for problem in reply["problems"]), reply


def test_a_dpi_import_only_the_simulators_preprocessor_builds_is_refused(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    reply = checked(tmp_path, monkeypatch, on_the_source('import "DPI-C" function int f(input int a);'))
    assert any("a DPI import or export" in problem and "(Icarus builds it)" in problem for problem in reply["problems"])


def test_other_tokens_from_the_simulators_preprocessor_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = checked(tmp_path, monkeypatch, on_the_source("wire extra;"))
    assert any("preprocesses the design otherwise than the grader reads it" in problem for problem in reply["problems"])


def test_a_canonical_design_a_simulators_preprocessor_reads_otherwise_is_not_built(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def preprocess(tool: str, files: list[str], includes: list[str]) -> tuple[str, str]:
        text, error = as_written(tool, files, includes)
        canonical_file = Path(files[0]).name == design_check.canonical.NAME
        return (text.replace("endmodule", "wire extra;\nendmodule") if canonical_file and tool == "verilator" else text), error

    reply = checked(tmp_path, monkeypatch, preprocess)
    assert reply["problems"] == ["Verilator's preprocessor reads the design written out otherwise than the grader did: "
                                 "the design is not built"], reply


def test_what_verilators_parse_of_the_canonical_design_refuses_refuses_the_design(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    finding = "m.sv:2: Verilator's parse holds a call to $system: a design may not call it"
    reply = checked(tmp_path, monkeypatch, verilator=lambda path, design: [finding])
    assert reply["problems"] == [finding]


@pytest.mark.parametrize(("change", "said"), [
    (lambda text: text.replace("assign b_o = a_i", "assign b_o = ~a_i"), "plain tokens that read back the same"),
    (lambda text: text.replace("endmodule", "// a comment it never had\nendmodule"), "(LineComment in the text written)"),
])
def test_the_design_check_refuses_a_canonical_text_that_does_not_read_back_as_what_it_checked(
        change: object, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round trip is the design check's, not only the writer's: a writer that let one token change
    (a bug of its own, or a spelling pyslang prints otherwise) must never hand the tools a design
    other than the one the allow-list read."""
    write = design_check.canonical.write

    def wrong(tree: object, inside: object) -> object:
        written = write(tree, inside)
        return design_check.canonical.Canonical(change(written.text), written.lines)  # type: ignore[operator]

    monkeypatch.setattr(design_check.canonical, "write", wrong)
    reply = verdict(tmp_path, DESIGN)
    assert "canonical" not in reply and len(reply["problems"]) == 1 and said in reply["problems"][0], reply
    monkeypatch.setattr(design_check.canonical, "write", write)
    assert verdict(tmp_path, DESIGN)["problems"] == []  # the control: the writer as it is


@pytest.mark.parametrize(("place", "bad"), [("a comment", b"  // caf\xe9\n"), ("a string", b'  initial $display("\xff\xfe");\n'),
                                            ("an included file", b"  `include \"inc.svh\"\n")])
def test_a_file_that_is_not_utf8_is_a_compile_error_at_its_file_and_line(place: str, bad: bytes, tmp_path: Path) -> None:
    """pyslang reads UTF-8: a Latin-1 comment once ended the check with a UnicodeDecodeError, which the
    grader showed as a construct not allowed, with no file or line."""
    (tmp_path / "m.sv").write_bytes(b"module m;\n" + bad + b"endmodule\n")
    (tmp_path / "inc.svh").write_bytes(b"// caf\xe9\n")
    with pytest.raises(design_check.PreprocessorError) as error:
        design_check.checked_design([str(tmp_path / "m.sv")], [str(tmp_path)], TOOLS, str(tmp_path), preprocessors=False)
    where = "inc.svh:1" if place == "an included file" else "m.sv:2"
    assert f"{where}: error: byte 0x" in str(error.value) and "is not UTF-8 text" in str(error.value), str(error.value)


def test_utf8_text_beyond_ascii_passes_the_encoding_check(tmp_path: Path) -> None:
    (tmp_path / "m.sv").write_text("module m; // café, ü, 漢\nendmodule\n", encoding="utf-8")
    reply = design_check.checked_design([str(tmp_path / "m.sv")], [str(tmp_path)], TOOLS, str(tmp_path), preprocessors=False)
    assert reply["problems"] == [] and "canonical" in reply
