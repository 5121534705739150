"""What the tools will build of a submission, read with a real SystemVerilog front end (pyslang),
and checked against an allow-list: `python -m roofline_course.intake.design_check < job.json`.

It runs in the sandbox on the staged files, and no code of the submission runs in it: only the
tools' preprocessors and pyslang read its text.

Three looks at the design:
1. The source, preprocessed by pyslang with the macros each tool defines (COCOTB_SIM and the
   simulator's own for the simulation, SYNTHESIS and YOSYS for Yosys, which the port check and
   synthesis use): every token of every file, packages, $unit and every module (bind targets
   included), with its file and line. Only the system tasks and functions of ALLOWED may appear;
   DPI imports and exports, Verilator's `systemc_* sections and `verilog, and any directive or
   macro pyslang does not know, are refused.
2. The text the simulator's own preprocessor produces (iverilog -E, verilator -E) with the real
   build's options: scanned again, and held against the first look, so that a macro only the
   tool defines cannot switch on what the first look did not see.
3. One design for every tool: the simulator's view and Yosys's must be the same token stream. A
   design whose code differs under `ifdef SYNTHESIS, VERILATOR, COCOTB_SIM ... is refused, so the
   circuit synthesized (and whose ports are checked) is the one simulated.

The reply (stdout) is JSON: {"problems": [...], "notes": [...]}, a problem naming the file, the
line and the construct; or {"compile": "..."} when the simulator's preprocessor rejects the design.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyslang

# The system tasks and functions a lab design may use: elaboration-time checks and math, the
# display family, simulation time, and assertion functions. Everything else (file and shell
# access, $c in any spelling, plusargs, dumps, memory files, vendor and VPI tasks) is refused.
ALLOWED = frozenset({
    "$clog2", "$bits", "$signed", "$unsigned", "$size", "$high", "$low", "$left", "$right", "$increment",
    "$dimensions", "$unpacked_dimensions", "$countones", "$countbits", "$onehot", "$onehot0", "$isunknown",
    "$error", "$fatal", "$warning", "$info",
    "$display", "$displayb", "$displayh", "$displayo", "$write", "$writeb", "$writeh", "$writeo",
    "$strobe", "$strobeb", "$strobeh", "$strobeo", "$monitor", "$monitorb", "$monitorh", "$monitoro",
    "$monitoron", "$monitoroff", "$sformatf", "$sformat", "$psprintf",
    "$time", "$stime", "$realtime",
    "$past", "$rose", "$fell", "$stable", "$changed", "$sampled",
})
# The macros each tool defines in the real build (besides its own predefined ones for verilator,
# which are asked of it); the first look preprocesses with these.
DEFINES = {
    "icarus": ["COCOTB_SIM=1", "__ICARUS__=1"],
    "verilator": ["COCOTB_SIM=1"],
    "yosys": ["SYNTHESIS=1", "YOSYS=1"],
}
TOOL_NAMES = {"icarus": "Icarus", "verilator": "Verilator", "yosys": "Yosys (synthesis)"}
SIMULATORS = ("icarus", "verilator")
MARKER = re.compile(r"^\s*`(line|file_push|file_pop)\b.*$", re.M)  # the tools' own location markers
MAX_PROBLEMS = 8


class PreprocessorError(Exception):
    """The simulator's preprocessor rejects the design (a missing `include, say): a compile error."""


@dataclass(frozen=True)
class Token:
    """A token as plain data (pyslang's own die with their tree): its kind, text and place."""

    kind: str
    text: str
    where: str  # "file:line" in the source, or "" in a tool's preprocessed text


def read_tokens(tree: pyslang.syntax.SyntaxTree, located: bool) -> tuple[list[Token], list[str]]:
    """Every token of a parsed design, and the problems its syntax shows (DPI, unknown directives)."""
    manager = tree.sourceManager
    tokens: list[Token] = []
    problems: list[str] = []

    def visit(node: object) -> bool:
        if isinstance(node, pyslang.parsing.Token):
            if node.kind != pyslang.parsing.TokenKind.EndOfFile:
                tokens.append(Token(node.kind.name, node.valueText, _where(manager, node.location) if located else ""))
        elif isinstance(node, pyslang.syntax.SyntaxNode) and node.kind in (pyslang.syntax.SyntaxKind.DPIImport,
                                                                            pyslang.syntax.SyntaxKind.DPIExport):
            where = _where(manager, node.sourceRange.start) + ": " if located else ""
            problems.append(f"{where}a DPI import or export: the grader runs no C code of yours")
        return True

    tree.root.visit(visit)
    for diagnostic in tree.diagnostics:
        if diagnostic.code == pyslang.Diags.UnknownDirective:
            where = _where(manager, diagnostic.location) + ": " if located else ""
            problems.append(f"{where}an unknown directive or undefined macro `{_directive_at(manager, diagnostic.location)}: "
                            "the grader builds no Verilator C++ section (`systemc_*) and no macro it cannot see defined")
    return tokens, problems


def source_tokens(files: list[str], includes: list[str], defines: list[str]) -> tuple[list[Token], list[str]]:
    """The design as pyslang's preprocessor makes it with these macros defined, every token placed."""
    options = pyslang.parsing.PreprocessorOptions()
    options.predefines = defines
    options.additionalIncludePaths = includes
    tree = pyslang.syntax.SyntaxTree.fromFiles(files, pyslang.SourceManager(), pyslang.Bag([options]))
    return read_tokens(tree, located=True)


def _where(manager: pyslang.SourceManager, location: pyslang.SourceLocation) -> str:
    original = manager.getFullyOriginalLoc(location)
    name = Path(manager.getFileName(original)).name or "?"
    return f"{name}:{manager.getLineNumber(original)}"


def _directive_at(manager: pyslang.SourceManager, location: pyslang.SourceLocation) -> str:
    line = manager.getSourceText(location.buffer)[location.offset:].split("\n", 1)[0]
    match = re.match(r"`?([\w$]*)", line)
    return match[1] if match else "?"


def forbidden(tokens: list[Token]) -> Iterator[Token]:
    """System tasks and functions outside the allow-list."""
    return (token for token in tokens if token.kind == "SystemIdentifier" and token.text not in ALLOWED)


def real_preprocessor(tool: str, files: list[str], includes: list[str]) -> tuple[str, str]:
    """(text, error) of a simulator's own preprocessor, run with the real build's options."""
    flags = [f"-I{folder}" for folder in includes]
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "preprocessed.sv"
        if tool == "icarus":
            argv = ["iverilog", "-g2012", "-E", "-DCOCOTB_SIM=1", "-o", str(out), *flags, *files]
        else:
            argv = ["verilator", "-E", "-DCOCOTB_SIM=1", *flags, *files]
        run = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=120)
        if run.returncode:
            first = next((line for line in (run.stderr + run.stdout).splitlines() if line.strip()), "failed")
            return "", first.replace("/submission/", "")[:300]
        text = out.read_text(errors="replace") if tool == "icarus" else run.stdout
    return MARKER.sub("", text), ""


def verilator_defines() -> list[str]:
    """The macros Verilator itself defines, asked of it."""
    run = subprocess.run(["verilator", "-E", "--dump-defines", "/dev/null"], capture_output=True, text=True, timeout=60)
    found = re.findall(r"^`define (\w+)(?: (.*))?$", run.stdout, re.M)
    return [f"{name}={value}" if value else name for name, value in found if not value.startswith("/*")]


def check(files: list[str], includes: list[str], tools: list[str]) -> tuple[list[str], list[str]]:
    """(problems, notes) for a design built by these tools: a simulator (icarus or verilator),
    and yosys when its view counts (the port check and synthesis read the design as Yosys does)."""
    problems: list[str] = []
    views: dict[str, list[Token]] = {}
    seen: set[str] = set()
    for tool in tools:
        defines = DEFINES[tool] + (verilator_defines() if tool == "verilator" else [])
        tokens, found = source_tokens(files, includes, defines)
        views[tool] = tokens
        problems += found
        for call in forbidden(tokens):
            seen.add(call.text)
            problems.append(f"{call.where}: {call.text}: a design may not call it (the grader allows only "
                            "elaboration checks, $display and its kind, and assertion functions)")
    for tool in (t for t in tools if t in SIMULATORS):
        problems += _as_the_simulator_sees_it(tool, files, includes, views[tool], seen)
    first, *others = tools
    for other in others:
        if _stream(views[other]) != _stream(views[first]):
            where = next((a.where + ": " for a, b in zip(views[first], views[other], strict=False)
                          if (a.kind, a.text) != (b.kind, b.text)), "")
            problems.append(f"{where}the design is not the same for {TOOL_NAMES[first]} and {TOOL_NAMES[other]} (code "
                            "under `ifdef SYNTHESIS, VERILATOR, COCOTB_SIM or another macro a tool defines): the grader "
                            "grades one design, so every tool must build the same one")
    return list(dict.fromkeys(problems))[:MAX_PROBLEMS], []


def _as_the_simulator_sees_it(tool: str, files: list[str], includes: list[str], view: list[Token], seen: set[str]
                              ) -> list[str]:
    """The simulator's own preprocessed text, scanned again and held against the view above: a
    difference means a macro the tool defines that this check did not know of."""
    text, error = real_preprocessor(tool, files, includes)
    if error:
        raise PreprocessorError(error)
    tokens, found = read_tokens(pyslang.syntax.SyntaxTree.fromText(text, "preprocessed"), located=False)
    problems = [f"{problem} ({TOOL_NAMES[tool]} builds it)" for problem in found if "DPI" in problem]
    for call in forbidden(tokens):
        if call.text not in seen:
            seen.add(call.text)
            problems.append(f"{call.text}: {TOOL_NAMES[tool]} builds a call to it that the source shows only under a "
                            "macro that tool defines; a design may not call it")
    if not problems and _stream(tokens) != _stream(view):
        where = next((a.where + ": " for a, b in zip(view, tokens, strict=False) if (a.kind, a.text) != (b.kind, b.text)), "")
        problems.append(f"{where}{TOOL_NAMES[tool]} preprocesses the design otherwise than the grader reads it "
                        "(a macro that only it defines?): write the design without tool-specific macros")
    return problems


def _stream(tokens: list[Token]) -> list[tuple[str, str]]:
    return [(token.kind, token.text) for token in tokens]


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        problems, notes = check(job["files"], job["includes"], job["tools"])
    except PreprocessorError as error:
        print(json.dumps({"compile": str(error)}))
        return 0
    print(json.dumps({"problems": problems, "notes": notes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
