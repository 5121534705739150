"""The designs a testbench lab runs a student's testbench against: correct ones and faulty ones.

A group of a testbench lab names its designs by id, each optionally at another format
(`@16.12` for UQ16.12):

- `model:reference`  the golden model (roofline_golden.fixed) behind the ports: the correct design,
                     and the only one the student copy needs;
- `example:<name>`   a bug of EXAMPLES below, written on the golden model (the handout describes them);
- `rtl:reference`    the project's RTL in rtl/ (instructors only);
- `catalogue:<id>`   a mutant of flows/mutants/catalogue.toml, applied to rtl/ (instructors only);
- `lab:<id>`         a mutant of the lab's own mutant file (labs/labN/mutants.toml, same fields as the
                     catalogue; kept out of the student copy, like the catalogue).

A student is told the *kind* of each bug (`kind`, from the mutant's class) and never its id, its
description, its source or a vector. `KIND_HINTS` gives each kind the contract clause to test.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from roofline_core.contract import ParamSet
from roofline_core.paths import RTL_DIR
from roofline_flows.rtl_mutant_catalogue import CATALOGUE, Mutant, apply, load_catalogue
from roofline_golden import QFormat, fixed

Model = Callable[[QFormat, int, int, int], tuple[int, bool]]  # (fmt, peak, bw, ai) -> (cap, mem_bound)
FAMILIES = ("model", "rtl")  # a faulty design is compared with the correct design of its family
SOURCES = ("model", "example", "rtl", "catalogue", "lab")
LAB_MUTANTS = "mutants.toml"
FORMAT_SUFFIX = re.compile(r"@(\d+)\.(\d+)$")


class DesignError(ValueError):
    """A design id that names nothing, or a mutant that does not apply; the message says which."""


def _golden(fmt: QFormat, peak: int, bw: int, ai: int) -> tuple[int, bool]:
    out = fixed.attainable(fmt, peak, bw, ai)
    return out.cap, out.mem_bound


def _verdict_inverted(fmt: QFormat, peak: int, bw: int, ai: int) -> tuple[int, bool]:
    cap, mem_bound = _golden(fmt, peak, bw, ai)
    return cap, not mem_bound


def _no_memory_roof(fmt: QFormat, peak: int, bw: int, ai: int) -> tuple[int, bool]:
    return peak, _golden(fmt, peak, bw, ai)[1]


def _no_compute_roof(fmt: QFormat, peak: int, bw: int, ai: int) -> tuple[int, bool]:
    rounded = fixed.round_shift(ai * bw, fmt.frac_bits)
    return min(rounded, fmt.max_raw), _golden(fmt, peak, bw, ai)[1]


# The visible bugs: (kind, what goes wrong, the model). The handout lists these three.
EXAMPLES: dict[str, tuple[str, str, Model]] = {
    "verdict_inverted": ("verdict", "mem_bound_o is the opposite of the contract's verdict", _verdict_inverted),
    "no_memory_roof": ("memory roof", "cap_o is always peak: the memory roof is never applied", _no_memory_roof),
    "no_compute_roof": ("compute roof", "cap_o is always the rounded product (saturated to W bits): peak never caps it",
                        _no_compute_roof),
}

# Each kind of bug a student may be told about, with the part of the contract that catches it.
KIND_HINTS = {
    "verdict": "mem_bound_o is 1 exactly when ai x bw < peak: check it on every vector, not only cap_o",
    "memory roof": "left of the ridge cap_o is the product, rounded: check memory-bound kernels",
    "compute roof": "right of the ridge cap_o is peak: check compute-bound kernels",
    "comparison direction": "memory-bound means ai x bw below peak: check both sides of the ridge",
    "ridge tie": "at the ridge (ai x bw == peak exactly) the compute roof binds: mem_bound_o = 0, cap_o = peak",
    "rounding constant": "a memory-bound cap is the product rounded to nearest: products with fraction bits below "
                         "the output's LSB, just under and just over half an LSB",
    "rounding tie": "a tie (exactly half an LSB) rounds up: products whose dropped bits are exactly 1000...0",
    "truncation": "caps as wide as the format: memory-bound caps with the top bit of cap_o set",
    "narrowed product": "ai x bw has 2W bits: products that do not fit in W bits",
    "product width": "ai x bw has 2W bits, up to its top bit: products at and just above 2^(2W-1)",
    "saturation": "a product above the format (at or above 2^(W+FRAC_BITS)) is compute-bound, whatever its low bits",
    "scale": "peak is compared with the product at the product's scale (peak x 2^FRAC_BITS): kernels between half "
             "the ridge and the ridge, and one step below it",
    "verdict from a rounded product": "the verdict compares the full-precision product, never a rounded one: one "
                                      "full-precision step below the ridge is memory-bound (its cap may round up to peak)",
    "zero inputs": "ai = 0 or bw = 0 gives cap 0, memory-bound (when peak > 0)",
    "zero peak": "peak = 0 gives cap 0, compute-bound, whatever ai and bw",
    "stuck bit": "compute-bound caps are peak, every bit of it: odd and even peaks",
    "undriven output": "every output is driven on every vector: no X or Z on cap_o and mem_bound_o",
    "port connection": "peak, bw and ai each play their own part: vectors where they differ",
    "hard-coded format": "the testbench runs at another format too: read INT_BITS and FRAC_BITS from the design",
}


@dataclass(frozen=True)
class Design:
    """One design a testbench runs against, at one format."""

    id: str  # as the lab names it, with its format suffix if any
    source: str  # one of SOURCES
    name: str
    param_set: ParamSet
    kind: str = ""  # the kind of bug a student is told; "" for a correct design
    what: str = ""  # what goes wrong: instructors only
    mutant: Mutant | None = None  # the rtl/ edit (catalogue and lab mutants)

    @property
    def correct(self) -> bool:
        return self.source in ("model", "rtl")

    @property
    def family(self) -> str:
        return "model" if self.source in ("model", "example") else "rtl"

    @property
    def column(self) -> str:
        """The design's column in a bank: one per design, whatever the format (a bank holds one format)."""
        return f"{self.source}:{self.name}"

    @property
    def model(self) -> Model:
        if self.source == "model":
            return _golden
        if self.source == "example":
            return EXAMPLES[self.name][2]
        raise DesignError(f"{self.id} is RTL, not a model")


def reference(family: str, param_set: ParamSet) -> Design:
    """The correct design a faulty one of this family is compared with."""
    source = "model" if family == "model" else "rtl"
    return Design(f"{source}:reference", source, "reference", param_set)


def split_format(text: str, default: ParamSet) -> tuple[str, ParamSet]:
    """An id with its `@I.F` suffix taken off, and the parameter set it names."""
    match = FORMAT_SUFFIX.search(text)
    if not match:
        return text, default
    return text[: match.start()], ParamSet(int(match[1]), int(match[2]), default.levels, default.count_bits)


def resolve(text: str, default: ParamSet, lab_folder: Path, top: str) -> Design:
    """The design an id names; raises DesignError with the reason."""
    bare, param_set = split_format(text, default)
    source, _, name = bare.partition(":")
    if source not in SOURCES or not name:
        raise DesignError(f"design {text!r}: write it as <source>:<name>, the source one of {', '.join(SOURCES)}")
    if source in ("model", "rtl"):
        if name != "reference":
            raise DesignError(f"design {text!r}: the only {source} design is {source}:reference")
        return Design(text, source, name, param_set)
    if source == "example":
        if name not in EXAMPLES:
            raise DesignError(f"design {text!r}: the example bugs are {', '.join(EXAMPLES)}")
        kind, what, _ = EXAMPLES[name]
        return Design(text, source, name, param_set, kind, what)
    mutants = _mutants(CATALOGUE if source == "catalogue" else lab_folder / LAB_MUTANTS)
    mutant = mutants.get(name)
    if mutant is None:
        raise DesignError(f"design {text!r}: no mutant {name!r} in {'the catalogue' if source == 'catalogue' else LAB_MUTANTS}")
    if mutant.top != top:
        raise DesignError(f"design {text!r}: the mutant breaks {mutant.top}, not {top}")
    return Design(text, source, name, param_set, mutant.bug_class, mutant.bug, mutant)


def _mutants(path: Path) -> dict[str, Mutant]:
    if not path.exists():
        raise DesignError(f"{path.name}: not in this copy of the repository (instructors' file)")
    try:
        return {m.id: m for m in load_catalogue(path)}
    except (KeyError, ValueError) as problem:
        raise DesignError(f"{path}: {problem}") from None


def rtl_files(design: Design, sources: tuple[str, ...], folder: Path) -> list[Path]:
    """The rtl/ files the design is built from, dependencies first; a mutant's edited file written to `folder`."""
    files = [RTL_DIR / f"{stem}.sv" for stem in sources]
    if design.mutant is None:
        return files
    if design.mutant.file not in {path.name for path in files}:
        raise DesignError(f"{design.id}: rtl/{design.mutant.file} is not one of the design's files")
    try:
        edited = apply(design.mutant, folder)
    except ValueError as problem:
        raise DesignError(str(problem)) from None
    return [edited if path.name == edited.name else path for path in files]
