"""`make mutants`: every mutant of the catalogue through every layer of verification that applies
to it, and a kill matrix, mutant by layer; then Yosys `mutate` mutants judged by the benches.

Each mutant in mutants/catalogue.toml is one text substitution in one rtl/ file, applied to a copy
in the mutant's own folder and swapped in with the drop-in rule. The layers:
- bench: the cocotb bench of the module it breaks (roofline_core.runner.run_bench, Icarus), as
  `make sim RTL=<the mutant>` runs it;
- sweep: a bulk sweep (roofline_bulk.simulation.run_sweep, Icarus) of a combinational module built
  from the mutated file (the bulk testbench's own registers are roofline_pipe_reg), else n/a;
- proof: the SymbiYosys tasks that read the mutated file and that the project's RTL passed in the
  last make prove (build/prove/times.json), through sby.run with the drop-in rule again: the
  catalogue's `proof` tasks first, then the fastest first while their times fit --proof-budget;
  the first that fails kills it. Covers are not run.
Each cell is killed, survived or n/a (error: it did not build, or a proof timed out). A mutant that
no layer kills fails the run, as does one that does not build. The matrix is printed and written
to build/mutants/kill-matrix.json; `make docs` puts a complete run's in docs/mutants-and-coverage.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_bulk.simulation import BULK_TB, run_sweep
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, TOPS
from roofline_core.paths import BUILD_ROOT, shown
from roofline_core.runner import run_bench
from roofline_core.tools import ToolError, tool_version, yosys_command
from roofline_flows import kill_matrix, rtl_mutants_yosys, sby
from roofline_flows.kill_matrix import KILL_MATRIX, LAYERS, write_matrix
from roofline_flows.rtl_mutant_catalogue import CATALOGUE, Mutant, apply, load_catalogue

PROVE_TIMES = BUILD_ROOT / "prove" / "times.json"
# rtl/ modules the bulk testbench itself instantiates (its input and output registers)
BULK_TB_MODULES = tuple(name for name in MODULES if re.search(rf"\b{name}\b", BULK_TB.read_text()))


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    killed: bool
    detail: str  # the first failure that killed it, or why it proves nothing
    seconds: float


def run_mutant(mutant: Mutant, seed: int, sweep: int) -> Verdict:
    """The bench layer alone (tests/cocotb/test_dropin.py): killed, or why not."""
    try:
        mutated = apply(mutant, BUILD_ROOT / "mutants" / mutant.id)
    except ValueError as problem:
        return Verdict(mutant, False, f"not applied: {problem}", 0.0)
    return _bench(mutant, mutated, seed, sweep)


def icarus_version() -> str:
    run = subprocess.run(["iverilog", "-V"], capture_output=True, text=True)
    return (run.stdout.splitlines() or ["Icarus Verilog (version unknown)"])[0].split(" (")[0]


@dataclass(frozen=True)
class Cell:
    """One mutant through one layer."""

    outcome: str  # killed, survived, n/a, error
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Row:
    mutant: Mutant
    cells: dict[str, Cell] = field(default_factory=dict)

    @property
    def killed(self) -> bool:
        return any(cell.outcome == "killed" for cell in self.cells.values())

    @property
    def broken(self) -> bool:
        """It did not build or apply: it proves nothing."""
        return any(cell.outcome == "error" and ("did not build" in cell.detail or "not applied" in cell.detail)
                   for cell in self.cells.values())


def bench_layer(mutant: Mutant, mutated: Path, seed: int, vectors: int) -> Cell:
    if mutant.top not in TOPS:
        return Cell("n/a", f"{mutant.top} has no bench")
    verdict = _bench(mutant, mutated, seed, vectors)
    if verdict.killed:
        return Cell("killed", verdict.detail, verdict.seconds)
    outcome = "survived" if verdict.detail.startswith(("SURVIVED", "killed, but")) else "error"
    return Cell(outcome, verdict.detail, verdict.seconds)


def _bench(mutant: Mutant, mutated: Path, seed: int, vectors: int) -> Verdict:
    started = time.monotonic()
    try:
        result = run_bench(BenchConfig(mutant.top, "icarus", mutant.param_set, seed, sweep=vectors, rtl=str(mutated)),
                           quiet=True)
    except SystemExit:
        return Verdict(mutant, False, "did not build, so it proves nothing", time.monotonic() - started)
    seconds = time.monotonic() - started
    if result.failed == 0:
        return Verdict(mutant, False, f"SURVIVED: {result.passed} tests passed", seconds)
    if mutant.expect_in_failure and not any(mutant.expect_in_failure in f for f in result.failures):
        return Verdict(mutant, False, f"killed, but no failure says {mutant.expect_in_failure!r}", seconds)
    return Verdict(mutant, True, result.failures[0].splitlines()[0], seconds)


def sweep_top(mutant: Mutant) -> str | None:
    """The combinational module a bulk sweep of this mutant runs, or None (the layer does not apply)."""
    stem = Path(mutant.file).stem
    if mutant.top in BULK_TOPS:
        return mutant.top
    users = [top for top in BULK_TOPS if stem in MODULES[top].sources]
    if users:
        return users[0]
    return BULK_TOPS[0] if stem in BULK_TB_MODULES else None


def sweep_layer(mutant: Mutant, mutated: Path, seed: int, vectors: int) -> Cell:
    top = sweep_top(mutant)
    if top is None:
        return Cell("n/a", "no bulk sweep runs this file")
    started = time.monotonic()
    cfg = SweepConfig(top=top, sim="icarus", param_set=mutant.param_set, seed=seed, count=vectors, lanes=1,
                      rtl=str(mutated))
    try:
        result, _ = run_sweep(cfg, variant=mutant.id, quiet=True)
    except SystemExit:
        return Cell("error", "the sweep did not build or run", time.monotonic() - started)
    seconds = time.monotonic() - started
    if result.failed:
        return Cell("killed", f"{top}: " + result.failures[0].splitlines()[0][:200], seconds)
    return Cell("survived", f"{top}: {vectors} vectors passed", seconds)


def proof_tasks(mutant: Mutant) -> list[sby.Task]:
    """The tasks that read the mutated file, the catalogue's first, then the fastest first."""
    stem = Path(mutant.file).stem
    times = json.loads(PROVE_TIMES.read_text()) if PROVE_TIMES.exists() else {}
    found = [task for task in sby.tasks() if task.mode != "cover" and f"{task.unit}.{task.name}" in times
             and any(Path(line).stem == stem for line in sby.task_lines(task, "files"))]
    first = [name for name in mutant.proof if any(f"{t.unit}.{t.name}" == name for t in found)]
    return sorted(found, key=lambda t: (f"{t.unit}.{t.name}" not in first,
                                        first.index(f"{t.unit}.{t.name}") if f"{t.unit}.{t.name}" in first else 0,
                                        times.get(f"{t.unit}.{t.name}", 1e9)))


def proof_layer(mutant: Mutant, mutated: Path, timeout: float, budget: float) -> Cell:
    found = proof_tasks(mutant)
    times = json.loads(PROVE_TIMES.read_text()) if PROVE_TIMES.exists() else {}
    # The catalogue's tasks, then the fastest ones while their times from make prove fit the budget.
    within, spent = [], 0.0
    for task in found:
        name = f"{task.unit}.{task.name}"
        if name not in mutant.proof and spent + times.get(name, 0.0) > budget:
            continue
        within.append(task)
        spent += 0.0 if name in mutant.proof else times.get(name, 0.0)
    skipped = len(found) - len(within)
    found = within
    if not PROVE_TIMES.exists():
        return Cell("error", f"no {shown(PROVE_TIMES)}: run make prove first (a mutant is judged by the proofs the RTL passes)")
    if not found:
        return Cell("n/a", "no proof that the project's RTL passes reads this file")
    try:
        command, _ = sby.toolchain()
    except ToolError as problem:
        return Cell("error", str(problem))
    started, tried, problems = time.monotonic(), [], []
    for task in found:
        outcome = sby.run(task, BUILD_ROOT / "mutants" / mutant.id / "prove", command, timeout, str(mutated))
        tried.append(f"{task.unit}.{task.name}")
        if not outcome.passed and outcome.summary in ("assertion fails", "induction did not close") \
                or task.mode == "cover" and not outcome.passed:
            where = next((line for line in outcome.detail if line.startswith("failed: ")), outcome.summary)
            return Cell("killed", f"{task.unit}.{task.name}: {where}", time.monotonic() - started)
        if not outcome.passed:
            problems.append(f"{task.unit}.{task.name}: {outcome.summary}")
    seconds = time.monotonic() - started
    if problems:
        return Cell("error", "; ".join(problems), seconds)
    beyond = f"; {skipped} slower ones beyond the --proof-budget not run" if skipped else ""
    return Cell("survived", f"{len(tried)} tasks passed{beyond}", seconds)


def run_row(mutant: Mutant, seed: int, vectors: int, sweep_vectors: int, layers: tuple[str, ...],
            proof_timeout: float, proof_budget: float) -> Row:
    row = Row(mutant)
    try:
        mutated = apply(mutant, BUILD_ROOT / "mutants" / mutant.id)
    except ValueError as problem:
        row.cells = {layer: Cell("error", f"not applied: {problem}") for layer in layers}
        return row
    for layer in LAYERS:
        if layer not in layers:
            row.cells[layer] = Cell("n/a", "not run (--layers)")
        elif layer == "bench":
            row.cells[layer] = bench_layer(mutant, mutated, seed, vectors)
        elif layer == "sweep":
            row.cells[layer] = sweep_layer(mutant, mutated, seed, sweep_vectors)
        else:
            row.cells[layer] = proof_layer(mutant, mutated, proof_timeout, proof_budget)
    return row


def run_catalogue(pool: ProcessPoolExecutor, mutants: list[Mutant], seed: int, vectors: int, sweep_vectors: int,
                  layers: tuple[str, ...], proof_timeout: float, proof_budget: float,
                  catalogue: Path = CATALOGUE) -> list[Row]:
    print(f"make mutants: {len(mutants)} hand-written mutants from {shown(catalogue)} through "
          f"{', '.join(layers)} ({icarus_version()}, seed {seed}, {vectors} bench vectors, {sweep_vectors} sweep vectors)",
          flush=True)
    futures = [pool.submit(run_row, m, seed, vectors, sweep_vectors, layers, proof_timeout, proof_budget) for m in mutants]
    rows = []
    for done, future in enumerate(futures, 1):
        row = future.result()
        rows.append(row)
        marks = " ".join(f"{layer}:{row.cells[layer].outcome:<8}" for layer in LAYERS)
        print(f"  [{done:>2}/{len(mutants)}] {'killed ' if row.killed else 'ALIVE  '} {row.mutant.id:<30} {marks}",
              flush=True)
    return rows


def run_mechanical(pool: ProcessPoolExecutor, per_top: int, per_sequential: int,
                   seed: int) -> list[rtl_mutants_yosys.MechanicalVerdict] | None:
    """Yosys `mutate` mutants of each module; None when an unmutated netlist fails its bench."""
    jobs = []
    for top in rtl_mutants_yosys.TOPS:
        count = per_sequential if rtl_mutants_yosys.sequential(top) else per_top
        if count <= 0:
            continue
        original, detail = rtl_mutants_yosys.baseline(top, seed)
        if original is None:
            print(f"make mutants: the unmutated {top} netlist fails its bench ({detail}); no mutant can be judged")
            return None
        listed = rtl_mutants_yosys.list_mutations(top, count, seed, BUILD_ROOT / "mutants-yosys" / f"{top}-list")
        jobs += [(m, original) for m in listed]
    print(f"make mutants: {len(jobs)} Yosys `mutate` mutants of {', '.join(rtl_mutants_yosys.TOPS)} at UQ4.4 "
          f"(mutation seed {seed}, {tool_version(yosys_command())}); the unmutated netlists pass", flush=True)
    futures = [pool.submit(rtl_mutants_yosys.judge, m, original, seed) for m, original in jobs]
    verdicts = []
    for done, future in enumerate(futures, 1):
        verdict = future.result()
        verdicts.append(verdict)
        print(f"  [{done:>2}/{len(jobs)}] {verdict.outcome:<10} {verdict.mutant.id:<16} {verdict.mutant.describe:<48} "
              f"{verdict.detail[:80]}", flush=True)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="make mutants", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sweep", type=int, default=300, help="random vectors per sweep in each bench run")
    parser.add_argument("--sweep-vectors", type=int, default=20000, help="vectors of the bulk-sweep layer")
    parser.add_argument("--layers", default=",".join(LAYERS), help="the layers to run, comma separated")
    parser.add_argument("--proof-timeout", type=float, default=600.0, help="seconds allowed per proof task")
    parser.add_argument("--proof-budget", type=float, default=120.0,
                        help="seconds of proof (by make prove's times) per mutant beyond its catalogue tasks")
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE,
                        help="the hand-written mutants (default: flows/mutants/catalogue.toml); its file fields name rtl/ files")
    parser.add_argument("-k", "--only", default=None, help="only hand-written mutants whose id or class contains this")
    parser.add_argument("--jobs", type=int, default=None, help="parallel runs (default: one per core)")
    parser.add_argument("--mechanical", type=int, default=30,
                        help="Yosys mutate mutants per combinational module (0: none)")
    parser.add_argument("--mechanical-sequential", type=int, default=10,
                        help="Yosys mutate mutants per sequential module (0: none); their benches run longer")
    args = parser.parse_args(argv)
    layers = tuple(layer for layer in args.layers.split(",") if layer)
    if not layers or set(layers) - set(LAYERS):
        print(f"error: --layers takes some of {', '.join(LAYERS)}", file=sys.stderr)
        return 2
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
        rows = run_catalogue(pool, mutants, args.seed, args.sweep, args.sweep_vectors, layers, args.proof_timeout,
                             args.proof_budget, args.catalogue)
        try:
            mechanical = (run_mechanical(pool, args.mechanical, args.mechanical_sequential, args.seed)
                          if args.mechanical + args.mechanical_sequential > 0 and args.only is None else [])
        except ToolError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    entries = [{"id": row.mutant.id, "class": row.mutant.bug_class, "bug": row.mutant.bug, "file": row.mutant.file,
                "top": row.mutant.top, "params": row.mutant.params,
                "layers": {layer: asdict(cell) for layer, cell in row.cells.items()}} for row in rows]
    command = "make mutants" + (f' ARGS="{" ".join(argv)}"' if argv else "")
    document = write_matrix(entries, command, complete=args.only is None and layers == LAYERS
                            and args.catalogue == CATALOGUE)
    print("\nkill matrix (bench: make sim RTL=<the mutant>; sweep: a bulk sweep on Icarus; proof: make prove RTL=<the mutant>):")
    for line in kill_matrix.table(document).splitlines():
        print("  " + line)
    print(f"kill matrix written to {shown(KILL_MATRIX)}")
    killed = sum(row.killed for row in rows)
    print(f"make mutants: hand-written {killed}/{len(rows)} killed by some layer ({100 * killed / len(rows):.0f}%); "
          + ", ".join(f"{layer} {sum(r.cells[layer].outcome == 'killed' for r in rows)}" for layer in LAYERS))
    options = f" --seed {args.seed}" + (f" --sweep {args.sweep}" if args.sweep != 300 else "")
    for row in rows:
        if not row.killed or row.broken:
            why = "; ".join(f"{layer}: {cell.outcome} ({cell.detail})" for layer, cell in row.cells.items())
            print(f"  not killed: {row.mutant.id} ({row.mutant.bug}): {why}")
            print(f'    rerun: make mutants ARGS="-k {row.mutant.id}{options} --mechanical 0 --mechanical-sequential 0"')
    ok = all(row.killed and not row.broken for row in rows)
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
