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


@pytest.mark.parametrize("name", ["$system", "$fopen", "$fopenr", "$fdisplay", "$fwrite", "$fgetc", "$readmemh",
                                  "$writememh", "$dumpfile", "$dumpvars", "$c", "$c32", "$finish", "$stop",
                                  "$test$plusargs", "$value$plusargs", "$random", "$ivlh_file_open", "$sscanf"])
def test_each_call_outside_the_allow_list_is_refused_with_its_file_and_line(name: str, tmp_path: Path) -> None:
    assert name not in ALLOWED
    reply = verdict(tmp_path, f"module m;\ninteger x;\ninitial x = {name}(1);\nendmodule\n")
    assert reply["problems"][0].startswith(f"m.sv:3: {name}: a design may not call it"), reply
