"""The hand-written mutant catalogue (flows/mutants/catalogue.toml): one real bug per entry, a text
substitution in one rtl/ file. Pure data and file copies, no simulator: the grader of lab 6 plants
the same bugs (roofline_course.labs.designs) and must not import a simulator library.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from roofline_core.contract import MODULES, PADDING_SETS, PARAM_SETS, ParamSet
from roofline_core.paths import MUTANT_CATALOGUE, RTL_DIR

CATALOGUE = MUTANT_CATALOGUE
PARAMS = {"default": PARAM_SETS[0], "other": PARAM_SETS[1], "small": PARAM_SETS[2], "mul4": PARAM_SETS[3],
          **{f"pad{p.mul_stages}": p for p in PADDING_SETS}}


@dataclass(frozen=True)
class Mutant:
    id: str
    bug_class: str
    bug: str
    file: str
    original: str
    mutated: str
    top: str
    params: str = "default"
    expect_in_failure: str | None = None
    proof: tuple[str, ...] = ()  # unit.task names the proof layer tries first (the rest follow)
    bench_survives: str = ""  # why today's bench does not kill it (the proofs must)
    proof_survives: str = ""  # why no proof that reads its file can kill it (its bug is outside their reach)

    @property
    def param_set(self) -> ParamSet:
        return PARAMS[self.params]


def load_catalogue(path: Path = CATALOGUE) -> list[Mutant]:
    """The catalogue's mutants, each checked; a file read again only when it changed (its size, time or
    inode): every lab-6 design a lab names reads it, so collecting the tests read it a hundred times."""
    status = path.stat()
    return list(_load(path.resolve(), status.st_mtime_ns, status.st_size, status.st_ino))


@lru_cache(maxsize=16)
def _load(path: Path, mtime_ns: int, size: int, inode: int) -> tuple[Mutant, ...]:
    entries = tomllib.loads(path.read_text())["mutant"]
    mutants = [Mutant(id=e["id"], bug_class=e["class"], bug=e["bug"], file=e["file"], original=e["original"],
                      mutated=e["mutated"], top=e["top"], params=e.get("params", "default"),
                      expect_in_failure=e.get("expect_in_failure"), proof=tuple(e.get("proof", ())),
                      bench_survives=e.get("bench_survives", ""), proof_survives=e.get("proof_survives", ""))
               for e in entries]
    ids = [m.id for m in mutants]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"{path}: mutant ids used twice: {', '.join(sorted(duplicates))}")
    for mutant in mutants:
        problem = _why_unusable(mutant)
        if problem:
            raise ValueError(f"{path}: mutant {mutant.id}: {problem}")
    return tuple(mutants)


def _why_unusable(mutant: Mutant) -> str:
    """Why an entry cannot be judged as it is written, or '': a bench that does not build the mutated
    file, or a parameter set that does not exist, would report a survivor (or a kill) of nothing."""
    if mutant.top not in MODULES:
        return f"top {mutant.top!r} is no module of the contract ({', '.join(MODULES)})"
    if mutant.params not in PARAMS:
        return f"params {mutant.params!r} is none of {', '.join(PARAMS)}"
    stem = Path(mutant.file).stem
    if stem not in MODULES[mutant.top].sources:
        users = [name for name, module in MODULES.items() if stem in module.sources]
        return (f"its top {mutant.top} does not build {mutant.file}, so that bench cannot see the bug; "
                f"top is a module that does: {', '.join(users) or 'none'}")
    return ""


def ridge_mutant_edit() -> tuple[str, str, str]:
    """(file, original, mutated) of the catalogue's ridge bug, the one tests and benchmarks plant."""
    mutant = next(m for m in load_catalogue() if m.id == "ridge_memory_bound")
    return mutant.file, mutant.original, mutant.mutated


def apply(mutant: Mutant, folder: Path) -> Path:
    """The mutated copy of the file; raises when the original text is not there exactly once."""
    source = (RTL_DIR / mutant.file).read_text()
    count = source.count(mutant.original)
    if count != 1:
        raise ValueError(f"{mutant.id}: the text to mutate appears {count} times in rtl/{mutant.file}")
    folder.mkdir(parents=True, exist_ok=True)
    mutated = folder / mutant.file
    mutated.write_text(source.replace(mutant.original, mutant.mutated))
    return mutated
