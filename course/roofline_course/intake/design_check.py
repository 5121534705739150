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

Then the checked tree is written out as the canonical design (intake.canonical): the only text any
tool is given from here on, in every group, synthesis included. It must read back as the same
tokens, and each simulator's own preprocessor must make the same of it; Verilator's own parse of it
is held to the allow-list again (intake.tool_outputs), as Icarus's program and Yosys's netlist are
by the precheck's later steps.

The reply (stdout) is JSON: {"problems": [...], "notes": [...], "canonical": {...}}, a problem
naming the file, the line and the construct; or {"compile": "..."} when the design does not parse
(pyslang's errors, or the simulator's preprocessor's), each as "file:line: error: message".
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyslang

from roofline_course.intake import canonical
from roofline_course.intake.tool_outputs import ALLOWED, verilator_problems

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
VERILATOR_SUMMARY = "%Error: Exiting due to"  # Verilator's count of its errors: no error of the student's
VERILATOR_ERROR = re.compile(r"^%Error(?:-\w+)?: ([^\s:]+:\d+): (.*)$")


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


def parse(files: list[str], includes: list[str], defines: list[str]) -> pyslang.syntax.SyntaxTree:
    """The design as pyslang's preprocessor and parser make it with these macros defined."""
    options = pyslang.parsing.PreprocessorOptions()
    options.predefines = defines
    options.additionalIncludePaths = includes
    return pyslang.syntax.SyntaxTree.fromFiles(files, pyslang.SourceManager(), pyslang.Bag([options]))


def source_tokens(files: list[str], includes: list[str], defines: list[str]) -> tuple[list[Token], list[str]]:
    """The design as pyslang's preprocessor makes it with these macros defined, every token placed."""
    return read_tokens(parse(files, includes, defines), located=True)


def _where(manager: pyslang.SourceManager, location: pyslang.SourceLocation) -> str:
    original = manager.getFullyOriginalLoc(location)
    return f"{_base_name(manager.getFileName(original))}:{manager.getLineNumber(original)}"


@functools.cache
def _base_name(name: str) -> str:
    return Path(name).name or "?"


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


@functools.cache
def verilator_defines() -> tuple[str, ...]:
    """The macros Verilator itself defines, asked of it."""
    run = subprocess.run(["verilator", "-E", "--dump-defines", "/dev/null"], capture_output=True, text=True, timeout=60)
    found = re.findall(r"^`define (\w+)(?: (.*))?$", run.stdout, re.M)
    return tuple(f"{name}={value}" if value else name for name, value in found if not value.startswith("/*"))


def check(files: list[str], includes: list[str], tools: list[str], root: str) -> dict:
    """The reply for a design built by these tools: a simulator (icarus or verilator), and yosys
    when its view counts (the port check and synthesis read the design as Yosys does). root: the
    submission's folder, which every file read must be in."""
    reply = checked_design(files, includes, tools, root)
    if "canonical" in reply:
        design = canonical.Canonical.from_json(reply["canonical"])
        reply["problems"] = as_the_tools_read_it(design, tools)[:MAX_PROBLEMS]
    return reply


def checked_design(files: list[str], includes: list[str], tools: list[str], root: str,
                   preprocessors: bool = True) -> dict:
    """The reply before any tool reads the canonical design: the allow-list's problems, or the
    canonical design. preprocessors: hold pyslang's view to each simulator's own preprocessor
    (a differential test of pyslang alone leaves them out, and reads the tools' outputs instead)."""
    if bad := not_utf8(files, includes):
        raise PreprocessorError("\n".join(bad))
    problems, trees = allow_list(files, includes, tools, preprocessors)
    if problems:
        return {"problems": problems, "notes": []}
    tree = trees[tools[0]]
    if errors := syntax_errors(tree, root):
        raise PreprocessorError("\n".join(errors))
    try:
        design = canonical.write(tree, lambda name: _inside(name, root))
        canonical.check_round_trip(design, tree)
    except canonical.NotPrintable as problem:
        return {"problems": [str(problem)], "notes": []}
    design = canonical.Canonical(design.text, [(_relative(name, root), line) for name, line in design.lines])
    return {"problems": [], "notes": [], "canonical": design.to_json()}


HDL_SUFFIXES = (".sv", ".svh", ".v", ".vh")


def not_utf8(files: list[str], includes: list[str]) -> list[str]:
    """A compile error for each file (or file an include folder holds) that is not UTF-8 text, at the
    line of its first such byte: pyslang reads UTF-8, so a Latin-1 comment once ended the check with
    a UnicodeDecodeError, shown as a construct not allowed."""
    found = []
    named = [Path(name) for name in files]
    named += [path for folder in includes for path in sorted(Path(folder).iterdir())
              if path.suffix in HDL_SUFFIXES and path.is_file() and path not in named]
    for path in named:
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            line = data.count(b"\n", 0, bad.start) + 1
            found.append(f"{path}:{line}: error: byte 0x{data[bad.start]:02x} is not UTF-8 text: save the file as UTF-8 "
                         "(or plain ASCII)")
    return found


def allow_list(files: list[str], includes: list[str], tools: list[str], preprocessors: bool = True
               ) -> tuple[list[str], dict[str, pyslang.syntax.SyntaxTree]]:
    """(problems, each tool's parse): the three looks of the module's text."""
    problems: list[str] = []
    views: dict[str, list[Token]] = {}
    trees: dict[str, pyslang.syntax.SyntaxTree] = {}
    seen: set[str] = set()
    for tool in tools:
        defines = DEFINES[tool] + (list(verilator_defines()) if tool == "verilator" else [])
        trees[tool] = parse(files, includes, defines)
        tokens, found = read_tokens(trees[tool], located=True)
        views[tool] = tokens
        problems += found
        for call in forbidden(tokens):
            seen.add(call.text)
            problems.append(f"{call.where}: {call.text}: a design may not call it (the grader allows only "
                            "elaboration checks, $display and its kind, and assertion functions)")
    for tool in (t for t in tools if t in SIMULATORS and preprocessors):
        problems += _as_the_simulator_sees_it(tool, files, includes, views[tool], seen)
    first, *others = tools
    for other in others:
        if _stream(views[other]) != _stream(views[first]):
            where = _where_they_differ(views[first], views[other])
            problems.append(f"{where}the design is not the same for {TOOL_NAMES[first]} and {TOOL_NAMES[other]} (code "
                            "under `ifdef SYNTHESIS, VERILATOR, COCOTB_SIM or another macro a tool defines): the grader "
                            "grades one design, so every tool must build the same one")
    return list(dict.fromkeys(problems))[:MAX_PROBLEMS], trees


def syntax_errors(tree: pyslang.syntax.SyntaxTree, root: str) -> list[str]:
    """pyslang's parse errors as "file:line: error: message", in the student's files only."""
    manager = tree.sourceManager
    engine = pyslang.DiagnosticEngine(manager)
    places = canonical.Places(manager)
    errors = []
    for diagnostic in tree.diagnostics:
        if not diagnostic.isError():
            continue
        name, line = places.of(diagnostic.location)
        if _inside(name, root):
            errors.append(f"{_relative(name, root)}:{line}: error: {engine.formatMessage(diagnostic)}")
        else:  # nothing of a file that is not the student's is quoted, not even pyslang's words about it
            site = canonical.include_site(manager, diagnostic.location, places)
            errors.append(f"{_relative(site[0], root)}:{site[1]}: error: {canonical.FOREIGN}"
                          if site and _inside(site[0], root) else f"error: {canonical.FOREIGN}")
    return errors[:MAX_PROBLEMS]


@functools.cache
def _inside(name: str, root: str) -> bool:
    return bool(name) and Path(name).resolve().is_relative_to(Path(root).resolve())


@functools.cache
def _relative(name: str, root: str) -> str:
    return str(Path(name).resolve().relative_to(Path(root).resolve()))


def as_the_tools_read_it(design: canonical.Canonical, tools: list[str]) -> list[str]:
    """The canonical text as each simulator's own preprocessor makes it (the same tokens, or a
    problem), and Verilator's own parse of it held to the allow-list."""
    problems = []
    wanted = canonical.stream(pyslang.syntax.SyntaxTree.fromText(design.text, pyslang.SourceManager(), canonical.NAME))

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / canonical.NAME
        path.write_text(design.text)
        for tool in (t for t in tools if t in SIMULATORS):
            text, error = real_preprocessor(tool, [str(path)], [])
            if error or canonical.stream(pyslang.syntax.SyntaxTree.fromText(text, "preprocessed")) != wanted:
                problems.append(f"{TOOL_NAMES[tool]}'s preprocessor reads the design written out otherwise than the "
                                f"grader did{': ' + design.to_source(error) if error else ''}: the design is not built")
        if "verilator" in tools:
            problems += verilator_parse(path, design)
    return problems


def verilator_parse(path: Path, design: canonical.Canonical) -> list[str]:
    """Verilator's own parse of the canonical design (--json-only), held to the allow-list."""
    folder = path.parent / "verilator"
    run = subprocess.run(["verilator", "--json-only", "-Wno-fatal", "--Mdir", str(folder), str(path)],
                         capture_output=True, text=True, errors="replace", timeout=120)
    trees = sorted(folder.glob("*.tree.json"))
    if run.returncode or not trees:
        errors = [VERILATOR_ERROR.sub(r"\1: error: \2", design.to_source(line))
                  for line in (run.stderr + run.stdout).splitlines()
                  if line.startswith("%Error") and not line.startswith(VERILATOR_SUMMARY)]
        raise PreprocessorError("\n".join(errors[:MAX_PROBLEMS]) or "Verilator could not read the design")
    return verilator_problems(json.loads(trees[0].read_text()), design.place)


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
        where = _where_they_differ(view, tokens)
        problems.append(f"{where}{TOOL_NAMES[tool]} preprocesses the design otherwise than the grader reads it "
                        "(a macro that only it defines?): write the design without tool-specific macros")
    return problems


def _where_they_differ(located: list[Token], other: list[Token]) -> str:
    """"file:line: " of the first token where two token streams differ: a token of `located` that
    differs, or its first one past the end of `other`; when `other` only goes on longer, its first
    extra token's place if it has one (else the last token of `located`, after which it goes on)."""
    for a, b in zip(located, other, strict=False):
        if (a.kind, a.text) != (b.kind, b.text):
            return a.where + ": "
    if len(located) > len(other):
        return located[len(other)].where + ": "
    place = other[len(located)].where if len(other) > len(located) else ""
    place = place or (located[-1].where if located else "")
    return place + ": " if place else ""


def _stream(tokens: list[Token]) -> list[tuple[str, str]]:
    return [(token.kind, token.text) for token in tokens]


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        reply = check(job["files"], job["includes"], job["tools"], job["root"])
    except PreprocessorError as error:
        reply = {"compile": str(error)}
    print(json.dumps(reply))
    return 0


if __name__ == "__main__":
    sys.exit(main())
