"""The allow-list, and the second wall: what each tool itself made of the design, read back.

design_check holds the source to ALLOWED. That is a reading of the text by pyslang; a tool that
lexes a corner otherwise would build what the check never saw. So the allow-list is checked again
on what each tool produced from the canonical design, in its own terms:

- Icarus: the compiled vvp program names every system task and function it will call
  (`%vpi_call`, `%vpi_func`, `.sfunc`) and every VPI module it loads;
- Verilator: its own parse of the design (`verilator --json-only`), whose nodes name file access,
  the shell, C++ (`$c`, `systemc_*`), DPI, plusargs, dumps and ending the run;
- Yosys: the netlist after `proc`, whose cells must be the word-level cells of a circuit (plus
  `$print` and `$check`, what $display and assertions become), or modules of the design.

A finding refuses the design and names the tool (and, through the canonical map, the student's line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePath

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
Place = Callable[[int], str]  # a canonical line -> "file:line" in the student's files

# Icarus: a call names its file index and line, then the task: `%vpi_call/w 3 5 "$system", ...`.
ICARUS_CALL = re.compile(r'^\s*(?:\S+\s+)?(%vpi_call|%vpi_func|\.sfunc)\S*\s+(\d+)\s+(\d+)\s+"([^"]*)"', re.M)
ICARUS_ANY_CALL = re.compile(r"%vpi_call|%vpi_func|\.sfunc")
ICARUS_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
ICARUS_MODULE = re.compile(r'^:vpi_module\s+"([^"]*)"', re.M)
ICARUS_MODULES = frozenset({"system", "vhdl_sys", "vhdl_textio", "v2005_math", "va_math", "v2009"})  # iverilog's own


def icarus_problems(vvp: str, place: Place) -> list[str]:
    """What the Icarus program would call or load outside the allow-list."""
    problems = []
    for module in ICARUS_MODULE.findall(vvp):
        if PurePath(module).name.removesuffix(".vpi") not in ICARUS_MODULES:
            problems.append(f"Icarus's program loads the VPI module {module}: the grader loads none but Icarus's own")
    calls = list(ICARUS_CALL.finditer(vvp))
    if len(calls) != sum(bool(ICARUS_ANY_CALL.search(ICARUS_STRING.sub("", line))) for line in vvp.splitlines()):
        problems.append("Icarus's program holds a call the grader cannot read: the design is not built")
    for call in calls:
        if call[4] not in ALLOWED:
            problems.append(f"{place(int(call[3]))}: Icarus compiled a call to {call[4]}: a design may not call it")
    return list(dict.fromkeys(problems))


# Verilator's node types for what a design may not do, in Verilator 5's own AST (V3AstNode*.h).
VERILATOR_REFUSED = {
    **dict.fromkeys(("FOPEN", "FOPENMCD", "FCLOSE", "FEOF", "FERROR", "FFLUSH", "FGETC", "FGETS", "FREAD",
                     "FREWIND", "FSCANF", "FSEEK", "FTELL", "FUNGETC", "READMEM", "WRITEMEM"), "file access"),
    "SYSTEMT": "the shell ($system)", "SYSTEMF": "the shell ($system)",
    "CSTMTUSER": "C++ code ($c)", "CEXPRUSER": "C++ code ($c)", "SYSTEMCSECTION": "C++ code (`systemc_*)",
    "DPIEXPORT": "a DPI export", "TESTPLUSARGS": "plusargs", "VALUEPLUSARGS": "plusargs",
    "DUMPCTL": "a waveform dump", "FINISH": "ending the run ($finish)", "FINISHFORK": "ending the run",
    "STOP": "ending the run ($stop)", "STACKTRACEF": "a stack trace", "STACKTRACET": "a stack trace",
}
VERILATOR_FILE_ARGUMENT = {"DISPLAY", "SFORMAT"}  # $fdisplay, $fwrite: a display with a file


def verilator_problems(tree: object, place: Place) -> list[str]:
    """What Verilator's own parse of the design holds outside the allow-list (its --json-only tree)."""
    problems = []
    for node in _nodes(tree):
        kind = node.get("type")
        what = VERILATOR_REFUSED.get(str(kind))
        if what is None and (node.get("dpiImport") or node.get("dpiExport")):
            what = "a DPI import or export (C code)"
        if what is None and kind in VERILATOR_FILE_ARGUMENT and node.get("filep"):
            what = "file access (a display to a file)"
        if what:
            problems.append(f"{place(_verilator_line(node))}: Verilator parsed {what} ({kind}): a design may not do it")
    return list(dict.fromkeys(problems))


def _nodes(tree: object) -> Iterator[dict]:
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "type" in node:
                yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _verilator_line(node: dict) -> int:
    match = re.match(r"\w+,(\d+):", str(node.get("loc", "")))
    return int(match[1]) if match else 0


# The cells Yosys's frontend and `proc` make of a synthesizable design (RTLIL's word-level cells),
# and $print and $check: what $display and assertions become.
YOSYS_CELLS = frozenset({
    "$not", "$pos", "$neg", "$and", "$or", "$xor", "$xnor", "$reduce_and", "$reduce_or", "$reduce_xor",
    "$reduce_xnor", "$reduce_bool", "$logic_not", "$logic_and", "$logic_or", "$shl", "$shr", "$sshl", "$sshr",
    "$shift", "$shiftx", "$lt", "$le", "$eq", "$ne", "$eqx", "$nex", "$ge", "$gt", "$add", "$sub", "$mul", "$div",
    "$mod", "$divfloor", "$modfloor", "$pow", "$mux", "$pmux", "$bmux", "$buf", "$demux", "$bwmux", "$tribuf", "$concat",
    "$slice", "$lut", "$sop", "$alu", "$lcu", "$macc", "$fa",
    "$dff", "$dffe", "$adff", "$adffe", "$aldff", "$aldffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
    "$dlatch", "$adlatch", "$dlatchsr", "$sr", "$ff",
    "$mem", "$mem_v2", "$memrd", "$memrd_v2", "$memwr", "$memwr_v2", "$meminit", "$meminit_v2",
    "$print", "$check", "$assert", "$assume", "$cover", "$scopeinfo",
})


def yosys_problems(netlist: dict) -> list[str]:
    """Cells of Yosys's netlist (write_json after proc) that are neither a circuit's nor the design's modules."""
    modules = netlist.get("modules", {})
    problems = []
    for name, module in modules.items():
        for cell in module.get("cells", {}).values():
            kind = str(cell.get("type", ""))
            if kind not in YOSYS_CELLS and kind not in modules and kind.lstrip("\\") not in modules:
                problems.append(f"Yosys built a {kind} cell in {name}: not part of a lab circuit "
                                "(a formal or vendor cell?), so the design is not synthesized")
        if module.get("processes"):
            problems.append(f"Yosys left a process in {name} after proc: the design is not synthesized")
    return list(dict.fromkeys(problems))
