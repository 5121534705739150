"""Answers hiding in a tree: every module a tree holds, and a wrapper that puts it behind a lab's ports.

A module "fits" a lab when each of its inputs can be fed from the lab's ports (by name, without
the _i/_o suffix; a `product` input from ai x bw at full precision, as the contract forms it) and
at least one of its outputs drives a lab output by name. The wrapper is the lab's starter with its
body replaced by an instance of the module (the rest of the outputs tied to 0); for lab 5, a module
that fits lab 4's ports also goes behind a plain valid/ready pipeline of 3 + MUL_STAGES stages. That
is the few lines a student would write around a synthesizable statement of the contract: the test
grades each and compares it with the starter.

The modules are read with pyslang, from every file that holds `endmodule` (SystemVerilog files
whole, other files' module texts one at a time, embedded strings included); a text that does not
parse is listed, and when it is named as a lab's module it is kept, to be graded as it is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import pyslang

from roofline_core.contract import MODULES
from roofline_course.labs.definitions import Lab

HDL = (".sv", ".v", ".svh", ".vh")
BLOCK = re.compile(r"\bmodule\s+([A-Za-z_]\w*)[\s\S]*?\bendmodule\b")
SUFFIX = re.compile(r"_(i|o)$")
LAB_TOPS = frozenset(("roofline_attainable", "roofline_hierarchy", "roofline_intensity", "roofline_hierarchy_pipe"))


@dataclass(frozen=True)
class Port:
    name: str
    output: bool
    width: int


@dataclass(frozen=True)
class Candidate:
    """One module a tree holds: where, its name, the text that defines it (with its neighbours), its ports."""

    path: str  # relative to the tree
    name: str
    text: str
    ports: tuple[Port, ...]
    parameters: tuple[str, ...]


@dataclass
class Found:
    candidates: list[Candidate] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # "path: module" texts that did not parse


def _names(text: str) -> list[str]:
    """The modules a text defines, as pyslang reads it (a module named in a comment is not one)."""
    compilation = pyslang.ast.Compilation()
    compilation.addSyntaxTree(pyslang.syntax.SyntaxTree.fromText(text))
    return [d.name for d in compilation.getDefinitions() if str(d.definitionKind).endswith("Module")]


def _ports(text: str, top: str) -> tuple[tuple[Port, ...], tuple[str, ...]] | None:
    tree = pyslang.syntax.SyntaxTree.fromText(text)
    options = pyslang.ast.CompilationOptions()
    options.topModules = {top}
    compilation = pyslang.ast.Compilation(pyslang.Bag([options]))
    compilation.addSyntaxTree(tree)
    instances = [i for i in compilation.getRoot().topInstances if i.name == top]
    if not instances or any(d.isError for d in tree.diagnostics):
        return None
    body = instances[0].body
    ports = tuple(Port(p.name, str(p.direction).endswith("Out"), p.type.bitWidth) for p in body.portList
                  if hasattr(p, "direction"))
    return ports, tuple(p.name for p in body.parameters if not p.isLocalParam)


def modules(root: Path, skip: tuple[str, ...] = ()) -> Found:
    """Every module under `root` (files under a `skip` prefix left out), with its ports."""
    found = Found()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(skip):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if "endmodule" not in text:
            continue
        texts = [text] if path.suffix in HDL else [m[0] for m in BLOCK.finditer(text)]
        for source in texts:
            names = _names(source)
            if not names:
                names = [BLOCK.search(source)[1]]  # type: ignore[index]
            for name in names:
                read = _ports(source, name)
                if read is None:
                    found.unreadable.append(f"{relative}: {name}")
                    if name in LAB_TOPS:  # the grader's own compile decides: it is graded as it is
                        found.candidates.append(Candidate(relative, name, source, (), ()))
                    continue
                found.candidates.append(Candidate(relative, name, source, *read))
    return found


def _stem(name: str) -> str:
    return SUFFIX.sub("", name)


def _header(lab: Lab) -> str:
    """The starter's module header, up to and including its port list's `);`."""
    text = (lab.starter / f"{lab.top}.sv").read_text()
    start = text.index(f"module {lab.top}")
    return text[start:text.index(");", start) + 2]


def _connections(top: str, candidate: Candidate, rename: str = "") -> tuple[list[str], set[str], bool] | None:
    """The instance's connections, the lab outputs it drives and whether it needs the product; None if it does not fit."""
    ports = MODULES[top].ports
    inputs = {_stem(p.name): p.name for p in ports if not p.output}
    outputs = {_stem(p.name): p.name for p in ports if p.output}
    connections, driven, product = [], set(), False
    for port in candidate.ports:
        stem = _stem(port.name)
        if not port.output:
            if stem in inputs:
                connections.append(f".{port.name}({inputs[stem]})")
            elif stem == "product" and {"ai", "bw"} <= inputs.keys():
                connections.append(f".{port.name}(answer_product)")
                product = True
            else:
                return None
        elif stem in outputs and outputs[stem] not in driven:
            connections.append(f".{port.name}({rename}{outputs[stem]})")
            driven.add(outputs[stem])
        else:
            connections.append(f".{port.name}()")
    return (connections, driven, product) if driven else None


def _instance(lab: Lab, top: str, candidate: Candidate, rename: str = "") -> tuple[list[str], set[str]] | None:
    fitted = _connections(top, candidate, rename)
    if fitted is None:
        return None
    connections, driven, product = fitted
    ours = set(MODULES[top].parameters)
    overrides = [f".{p}({p})" for p in candidate.parameters if p in ours]
    if "LEVELS" in candidate.parameters and "LEVELS" not in ours:
        overrides.append(".LEVELS(1)")
    lines = []
    if product:
        if "LEVELS" in ours:
            lines += ["  logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] answer_product;",
                      "  for (genvar l = 0; l < LEVELS; l++) begin : g_product",
                      "    assign answer_product[l*2*(INT_BITS+FRAC_BITS) +: 2*(INT_BITS+FRAC_BITS)] =",
                      "      (2*(INT_BITS+FRAC_BITS))'(ai_i[l*(INT_BITS+FRAC_BITS) +: INT_BITS+FRAC_BITS]) *",
                      "      (2*(INT_BITS+FRAC_BITS))'(bw_i[l*(INT_BITS+FRAC_BITS) +: INT_BITS+FRAC_BITS]);",
                      "  end"]
        else:
            lines += ["  logic [2*(INT_BITS+FRAC_BITS)-1:0] answer_product;",
                      "  assign answer_product = (2*(INT_BITS+FRAC_BITS))'(ai_i) * (2*(INT_BITS+FRAC_BITS))'(bw_i);"]
    params = f" #({', '.join(overrides)})" if overrides else ""
    lines.append(f"  {candidate.name}{params} u_answer ({', '.join(connections)});")
    return lines, driven


def wrap(lab: Lab, candidate: Candidate) -> str | None:
    """The candidate behind the lab's ports, as a student would wrap it; None when it does not fit."""
    if candidate.name == lab.top:
        return ""  # it is the lab's module already: graded as it is
    found = _instance(lab, lab.top, candidate)
    if found is None:
        return None
    lines, driven = found
    lines += [f"  assign {p.name} = '0;" for p in MODULES[lab.top].ports if p.output and p.name not in driven]
    return "\n".join([_header(lab), *lines, "endmodule", ""])


PIPE_OUTPUTS = ("cap_o", "level_cap_o", "mem_bound_o", "binding_o")


def wrap_in_a_pipe(lab: Lab, candidate: Candidate) -> str | None:
    """Lab 5: a module that fits lab 4's ports, behind a valid/ready pipeline of 3 + MUL_STAGES stages."""
    if lab.top != "roofline_hierarchy_pipe":
        return None
    found = _instance(lab, "roofline_hierarchy", candidate, rename="answer_")
    if found is None:
        return None
    lines, driven = found
    declared = ["  logic [INT_BITS+FRAC_BITS-1:0] answer_cap_o;", "  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] answer_level_cap_o;",
                "  logic answer_mem_bound_o;", "  logic [$clog2(LEVELS+1)-1:0] answer_binding_o;"]
    tied = [f"  assign answer_{name} = '0;" for name in PIPE_OUTPUTS if name not in driven]
    pipe = [
        "  localparam int STAGES = 3 + MUL_STAGES;",
        "  localparam int R = (INT_BITS+FRAC_BITS) + LEVELS*(INT_BITS+FRAC_BITS) + 1 + $clog2(LEVELS+1);",
        "  logic [STAGES-1:0] answer_valid_q;",
        "  logic [STAGES*R-1:0] answer_data_q;",
        "  logic answer_advance;",
        "  assign answer_advance = !answer_valid_q[STAGES-1] || out_ready_i;",
        "  assign in_ready_o = answer_advance;",
        "  assign out_valid_o = answer_valid_q[STAGES-1];",
        "  always_ff @(posedge clk_i or negedge rst_ni)",
        "    if (!rst_ni) answer_valid_q <= '0;",
        "    else if (answer_advance) answer_valid_q <= {answer_valid_q[STAGES-2:0], in_valid_i};",
        "  always_ff @(posedge clk_i)",
        "    if (answer_advance) answer_data_q <= {answer_data_q[(STAGES-1)*R-1:0],",
        "                                          {answer_cap_o, answer_level_cap_o, answer_mem_bound_o, answer_binding_o}};",
        "  assign {cap_o, level_cap_o, mem_bound_o, binding_o} = answer_data_q[STAGES*R-1 -: R];",
    ]
    return "\n".join([_header(lab), *declared, *lines, *tied, *pipe, "endmodule", ""])


def submissions(lab: Lab, candidate: Candidate, folder: Path) -> list[Path]:
    """A folder for each way the candidate fits the lab (none when it fits none): the wrapper, the candidate's text."""
    made = []
    for how, text in (("wrapped", wrap(lab, candidate)), ("piped", wrap_in_a_pipe(lab, candidate))):
        if text is None:
            continue
        # one file may hold several modules of one name (a test's Verilog texts): each its own folder
        text_id = hashlib.sha256(candidate.text.encode()).hexdigest()[:10]
        target = folder / f"lab{lab.number}-{how}-{candidate.name}-{text_id}"
        target.mkdir(parents=True)
        (target / f"answer_{candidate.name}.sv").write_text(candidate.text)
        if text:
            (target / f"{lab.top}.sv").write_text(text)
        made.append(target)
    return made
