"""Where a refusal on Verilator's parse is placed (make mutation's tests for intake/tool_outputs.py, beside
test_tool_outputs.py): a node's `loc` names its canonical line, which the canonical map turns into the
student's file and line; a node without one is placed nowhere ('?'), never on a real line."""

from __future__ import annotations

from roofline_course.intake.canonical import Canonical
from roofline_course.intake.tool_outputs import verilator_problems

DESIGN = Canonical("module m; endmodule\n", [("m.sv", 7)])


def test_a_verilator_node_without_a_location_is_placed_nowhere_not_on_the_first_line() -> None:
    assert verilator_problems({"type": "FOPEN"}, DESIGN.place) == [
        "?: Verilator parsed file access (FOPEN): a design may not do it"]
    assert verilator_problems({"type": "FOPEN", "loc": "e,1:3,1:9"}, DESIGN.place) == [
        "m.sv:7: Verilator parsed file access (FOPEN): a design may not do it"]
