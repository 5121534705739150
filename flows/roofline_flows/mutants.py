"""`make mutants`: run the regression's benches against every mutant; every non-equivalent one must die.

Each mutant in mutants/catalogue.toml is one text substitution in one rtl/ file. It is applied
to a copy in the mutant's own folder, swapped in with the drop-in rule, and run through the
bench of the module it breaks (Icarus). A mutant that does not build proves nothing and counts
as a failure of the catalogue, as does a survivor.
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from roofline_core.config import BenchConfig
from roofline_core.contract import PARAM_SETS, ParamSet
from roofline_core.paths import BUILD_ROOT, MUTANT_CATALOGUE, RTL_DIR, shown
from roofline_core.runner import run_bench
from roofline_core.tools import ToolError, tool_version, yosys_command

from . import mutants_yosys

CATALOGUE = MUTANT_CATALOGUE
PARAMS = {"default": PARAM_SETS[0], "other": PARAM_SETS[1], "small": PARAM_SETS[2]}


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

    @property
    def param_set(self) -> ParamSet:
        return PARAMS[self.params]


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    killed: bool
    detail: str  # the first failure that killed it, or why it proves nothing
    seconds: float


def load_catalogue(path: Path = CATALOGUE) -> list[Mutant]:
    entries = tomllib.loads(path.read_text())["mutant"]
    mutants = [Mutant(id=e["id"], bug_class=e["class"], bug=e["bug"], file=e["file"], original=e["original"],
                      mutated=e["mutated"], top=e["top"], params=e.get("params", "default"),
                      expect_in_failure=e.get("expect_in_failure")) for e in entries]
    ids = [m.id for m in mutants]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"{path}: mutant ids used twice: {', '.join(sorted(duplicates))}")
    return mutants


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


def run_mutant(mutant: Mutant, seed: int, sweep: int) -> Verdict:
    started = time.monotonic()
    try:
        mutated = apply(mutant, BUILD_ROOT / "mutants" / mutant.id)
        result = run_bench(BenchConfig(mutant.top, "icarus", mutant.param_set, seed, sweep=sweep, rtl=str(mutated)))
    except ValueError as problem:
        return Verdict(mutant, False, f"not applied: {problem}", time.monotonic() - started)
    except SystemExit:
        return Verdict(mutant, False, "did not build, so it proves nothing", time.monotonic() - started)
    seconds = time.monotonic() - started
    if result.failed == 0:
        return Verdict(mutant, False, f"SURVIVED: {result.passed} tests passed", seconds)
    if mutant.expect_in_failure and not any(mutant.expect_in_failure in f for f in result.failures):
        return Verdict(mutant, False, f"killed, but no failure says {mutant.expect_in_failure!r}", seconds)
    return Verdict(mutant, True, result.failures[0].splitlines()[0], seconds)


def icarus_version() -> str:
    run = subprocess.run(["iverilog", "-V"], capture_output=True, text=True)
    return (run.stdout.splitlines() or ["Icarus Verilog (version unknown)"])[0].split(" (")[0]


def run_catalogue(pool: ProcessPoolExecutor, mutants: list[Mutant], seed: int, sweep: int,
                  catalogue: Path = CATALOGUE) -> list[Verdict]:
    print(f"make mutants: {len(mutants)} hand-written mutants from {shown(catalogue)}, "
          f"{icarus_version()}, seed {seed}, sweep {sweep}", flush=True)
    futures = [pool.submit(run_mutant, m, seed, sweep) for m in mutants]
    verdicts = []
    for done, future in enumerate(futures, 1):
        verdict = future.result()
        verdicts.append(verdict)
        mark = "killed " if verdict.killed else "ALIVE  "
        print(f"  [{done:>2}/{len(mutants)}] {mark} {verdict.mutant.id:<28} {verdict.mutant.bug_class:<22} "
              f"{verdict.seconds:5.1f} s  {verdict.detail[:110]}", flush=True)
    return verdicts


def run_mechanical(pool: ProcessPoolExecutor, per_top: int, per_sequential: int,
                   seed: int) -> list[mutants_yosys.MechanicalVerdict] | None:
    """Yosys `mutate` mutants of each module; None when an unmutated netlist fails its bench."""
    jobs = []
    for top in mutants_yosys.TOPS:
        count = per_sequential if mutants_yosys.sequential(top) else per_top
        if count <= 0:
            continue
        original, detail = mutants_yosys.baseline(top, seed)
        if original is None:
            print(f"make mutants: the unmutated {top} netlist fails its bench ({detail}); no mutant can be judged")
            return None
        listed = mutants_yosys.list_mutations(top, count, seed, BUILD_ROOT / "mutants-yosys" / f"{top}-list")
        jobs += [(m, original) for m in listed]
    print(f"make mutants: {len(jobs)} Yosys `mutate` mutants of {', '.join(mutants_yosys.TOPS)} at UQ4.4 "
          f"(mutation seed {seed}, {tool_version(yosys_command())}); the unmutated netlists pass", flush=True)
    futures = [pool.submit(mutants_yosys.judge, m, original, seed) for m, original in jobs]
    verdicts = []
    for done, future in enumerate(futures, 1):
        verdict = future.result()
        verdicts.append(verdict)
        print(f"  [{done:>2}/{len(jobs)}] {verdict.outcome:<10} {verdict.mutant.id:<16} {verdict.mutant.describe:<48} "
              f"{verdict.detail[:80]}", flush=True)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make mutants", description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sweep", type=int, default=300, help="random vectors per sweep in each bench run")
    parser.add_argument("-k", "--only", default=None, help="only hand-written mutants whose id or class contains this")
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE,
                        help="the hand-written mutants (default: flows/mutants/catalogue.toml); its file fields name rtl/ files")
    parser.add_argument("--jobs", type=int, default=None, help="parallel runs (default: one per core)")
    parser.add_argument("--mechanical", type=int, default=30,
                        help="Yosys mutate mutants per combinational module (0: none)")
    parser.add_argument("--mechanical-sequential", type=int, default=10,
                        help="Yosys mutate mutants per sequential module (0: none); their benches run longer")
    args = parser.parse_args(argv)
    try:
        catalogue = load_catalogue(args.catalogue)
    except KeyError as field:
        print(f"error: --catalogue {args.catalogue}: a [[mutant]] entry has no {field} field", file=sys.stderr)
        return 2
    except (OSError, ValueError) as problem:  # tomllib's errors are ValueErrors
        print(f"error: --catalogue {args.catalogue}: {problem}", file=sys.stderr)
        return 2
    mutants = [m for m in catalogue if args.only is None or args.only in m.id or args.only in m.bug_class]
    if not mutants:
        print(f"error: no mutant matches {args.only!r}", file=sys.stderr)
        return 2
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        verdicts = run_catalogue(pool, mutants, args.seed, args.sweep, args.catalogue)
        try:
            mechanical = (run_mechanical(pool, args.mechanical, args.mechanical_sequential, args.seed)
                          if args.mechanical + args.mechanical_sequential > 0 and args.only is None else [])
        except ToolError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    killed = sum(v.killed for v in verdicts)
    print(f"make mutants: hand-written {killed}/{len(verdicts)} killed ({100 * killed / len(verdicts):.0f}%)")
    for verdict in verdicts:
        if not verdict.killed:
            print(f"  not killed: {verdict.mutant.id} ({verdict.mutant.bug}): {verdict.detail}")
    ok = killed == len(verdicts)
    if mechanical is None:
        return 1
    if mechanical:
        counts = {o: sum(v.outcome == o for v in mechanical) for o in ("killed", "equivalent", "test gap", "error")}
        judged = len(mechanical) - counts["equivalent"]
        print(f"make mutants: Yosys mutate {counts['killed']}/{judged} non-equivalent killed "
              f"({100 * counts['killed'] / max(judged, 1):.0f}%); {counts['equivalent']} proved equivalent, "
              f"{counts['test gap']} test gaps, {counts['error']} errors")
        for verdict in mechanical:
            if verdict.outcome != "killed":
                print(f"  {verdict.outcome}: {verdict.mutant.id} {verdict.mutant.describe}: {verdict.detail}")
        ok &= counts["test gap"] == 0 and counts["error"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
