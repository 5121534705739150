"""`make mutants`: every mutant of the catalogue through every layer of verification that applies
to it, and a kill matrix, mutant by layer; then Yosys `mutate` mutants judged by the benches.

Each mutant in mutants/catalogue.toml is one text substitution in one rtl/ file, applied to a copy
in the mutant's own folder and swapped in with the drop-in rule. The layers:
- bench: the cocotb bench of the module it breaks (roofline_core.runner.run_bench, Icarus), as
  `make sim RTL=<the mutant>` runs it, or for a building block with a unit bench (roofline_pipe_reg)
  that bench at each of its lint sets (roofline_core.runner.run_units);
- sweep: a bulk sweep (roofline_bulk.simulation.run_sweep, Icarus) of a combinational module built
  from the mutated file (the bulk testbench's own registers are roofline_pipe_reg), else n/a;
- proof: the SymbiYosys tasks that read the mutated file and that the project's RTL passed in the
  last make prove (build/prove/times.json), through sby.run with the drop-in rule again: the
  catalogue's `proof` tasks first, then the fastest first while their times fit --proof-budget.
  Covers are not run. A kill needs a counterexample (roofline_flows.counterexamples): a failed
  assertion of the harness in a trace from reset, its inputs decoded and its trace file kept. A
  proof that does not close (induction), or that fails only the project's internal invariants, is
  rerun from reset without them (BMC, to the task's ports-only depth): killed if that finds a trace,
  else unknown. A proof that timed out or could not attach is never a kill (error).
The bench and sweep layers run at every --seeds seed; their cell is killed only when every seed
kills. Each cell is killed, survived, unknown, error or n/a. A mutant fails the run unless a bench or
sweep kills it at every seed and, where a proof reads its file, a proof kills it with a counterexample
(or the catalogue's `proof_survives` says why none can); one that does not build fails it too. The
matrix is printed and written to build/mutants/kill-matrix.json; `make docs` puts a complete run's
in docs/mutants-and-coverage.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_bulk.simulation import BULK_TB, run_sweep
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES, TOPS, modules_with
from roofline_core.paths import BUILD_ROOT, shown
from roofline_core.runner import run_bench, run_units
from roofline_core.tools import ToolError, tool_version, yosys_command
from roofline_flows import counterexamples, kill_matrix, rtl_mutants_yosys, sby
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

    outcome: str  # killed, survived, unknown, n/a, error
    detail: str = ""
    seconds: float = 0.0
    evidence: tuple[str, ...] = ()  # a proof's kill: the counterexample decoded, its trace, the replay line
    by_seed: dict[str, str] = field(default_factory=dict)  # bench and sweep: each seed's outcome


SIMULATION = ("bench", "sweep")


@dataclass
class Row:
    mutant: Mutant
    cells: dict[str, Cell] = field(default_factory=dict)

    @property
    def simulation_killed(self) -> bool:
        """A bench or a sweep killed it at every seed run."""
        seeds = {seed for layer in SIMULATION if layer in self.cells for seed in self.cells[layer].by_seed}
        return bool(seeds) and all(any(self.cells[layer].by_seed.get(seed) == "killed" for layer in SIMULATION
                                       if layer in self.cells) for seed in seeds)

    @property
    def proof_gap(self) -> str:
        """Why the proof layer falls short ('' when a proof killed it, none applies, or the catalogue
        says why none can)."""
        proof = self.cells.get("proof")
        if proof is None or proof.outcome in ("killed", "n/a") or self.mutant.proof_survives:
            return ""
        return f"proof {proof.outcome} ({proof.detail})"

    @property
    def caught(self) -> bool:
        return self.simulation_killed and not self.proof_gap and not self.broken

    @property
    def broken(self) -> bool:
        """It did not build or apply: it proves nothing."""
        return any(cell.outcome == "error" and ("did not build" in cell.detail or "not applied" in cell.detail)
                   for cell in self.cells.values())


def bench_layer(mutant: Mutant, mutated: Path, seed: int, vectors: int) -> Cell:
    if mutant.top not in TOPS and mutant.top not in modules_with("unit"):
        return Cell("n/a", f"{mutant.top} has no bench")
    verdict = _bench(mutant, mutated, seed, vectors)
    if verdict.killed:
        return Cell("killed", verdict.detail, verdict.seconds)
    outcome = "survived" if verdict.detail.startswith(("SURVIVED", "killed, but")) else "error"
    return Cell(outcome, verdict.detail, verdict.seconds)


def _bench(mutant: Mutant, mutated: Path, seed: int, vectors: int) -> Verdict:
    """The mutant's top through its bench, or a building block through its unit bench at each of its lint sets."""
    started = time.monotonic()
    try:
        if mutant.top in modules_with("unit"):
            results = run_units(mutant.top, "icarus", seed, str(mutated), quiet=True)
        else:
            results = [run_bench(BenchConfig(mutant.top, "icarus", mutant.param_set, seed, sweep=vectors,
                                             rtl=str(mutated)), quiet=True)]
    except SystemExit:
        return Verdict(mutant, False, "did not build, so it proves nothing", time.monotonic() - started)
    seconds = time.monotonic() - started
    failures = [failure for result in results for failure in result.failures]
    if not any(result.failed for result in results):
        return Verdict(mutant, False, f"SURVIVED: {sum(result.passed for result in results)} tests passed", seconds)
    if mutant.expect_in_failure and not any(mutant.expect_in_failure in f for f in failures):
        return Verdict(mutant, False, f"killed, but no failure says {mutant.expect_in_failure!r}", seconds)
    return Verdict(mutant, True, failures[0].splitlines()[0], seconds)


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


# (task, work folder, timeout, drop-in, use probes) -> its outcome: sby.run, or a fake in the tests
Prover = Callable[[sby.Task, Path, float, str, bool], sby.Outcome]


def proof_layer(mutant: Mutant, mutated: Path, timeout: float, budget: float, prover: Prover | None = None) -> Cell:
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
    if prover is None:
        try:
            command, _ = sby.toolchain()
        except ToolError as problem:
            return Cell("error", str(problem))
        prover = partial(_sby_prover, command)
    return judge_proofs(found, mutated, BUILD_ROOT / "mutants" / mutant.id / "prove", timeout, prover, skipped)


def _sby_prover(command: list[str], task: sby.Task, work: Path, timeout: float, drop_in: str, use_probes: bool
                ) -> sby.Outcome:
    return sby.run(task, work, command, timeout, drop_in, use_probes)


def judge_proofs(found: list[sby.Task], mutated: Path, work: Path, timeout: float, prover: Prover,
                 skipped: int = 0) -> Cell:
    """The proof layer's verdict over its tasks, in order: the first counterexample kills. A task
    that does not close, or fails only internal invariants, is rerun as BMC from reset without them;
    nothing but a trace from reset is a kill."""
    started, tried, unknown, problems = time.monotonic(), [], [], []
    for task in found:
        name = f"{task.unit}.{task.name}"
        tried.append(name)
        outcome = prover(task, work, timeout, str(mutated), True)
        if outcome.passed:
            if outcome.bounded:
                unknown.append(f"{name}: {outcome.summary}")
            continue
        found_trace = counterexamples.from_outcome(outcome)
        how = ""
        if found_trace is None and outcome.summary in counterexamples.RERUN_FROM_RESET:
            why = counterexamples.why_rerun(outcome)
            rerun = prover(counterexamples.bmc_task(task), work / "bmc", timeout, str(mutated), False)
            found_trace = counterexamples.from_outcome(rerun)
            how = f"{why}; BMC from reset without the invariants, depth {rerun.task.depth_for(False)}, found it: "
            if found_trace is None:
                result = (f"no failure in {rerun.task.depth_for(False)} cycles from reset" if rerun.passed
                          else rerun.summary)
                unknown.append(f"{name}: {why}; BMC from reset without the invariants: {result}")
                continue
        if found_trace is None:
            problems.append(f"{name}: {outcome.summary} (never a kill: no counterexample)")
            continue
        evidence = (*found_trace.decoded, f"trace: {found_trace.trace}")
        replay = counterexamples.replay_command(task, found_trace.trace, str(mutated))
        return Cell("killed", f"{name}: {how}{found_trace.failed}", time.monotonic() - started,
                    evidence + ((f"replay: {replay}",) if replay else ()))
    seconds = time.monotonic() - started
    if problems:
        return Cell("error", "; ".join(problems + unknown), seconds)
    if unknown:
        return Cell("unknown", "; ".join(unknown), seconds)
    beyond = f"; {skipped} slower ones beyond the --proof-budget not run" if skipped else ""
    return Cell("survived", f"{len(tried)} tasks passed{beyond}", seconds)


def merge_seeds(cells: dict[int, Cell]) -> Cell:
    """One layer's cell over every seed: killed only when each seed killed it."""
    by_seed = {str(seed): cell.outcome for seed, cell in cells.items()}
    outcomes = set(by_seed.values())
    seconds = sum(cell.seconds for cell in cells.values())
    if outcomes == {"n/a"}:
        return Cell("n/a", next(iter(cells.values())).detail, seconds, by_seed=by_seed)
    first = next(iter(cells.values()))
    if outcomes == {"killed"}:
        return Cell("killed", f"{first.detail} (killed at seed{'s' if len(cells) > 1 else ''} "
                    f"{', '.join(by_seed)})", seconds, by_seed=by_seed)
    outcome = "error" if "error" in outcomes else "survived"
    detail = "; ".join(f"seed {seed}: {cell.outcome} ({cell.detail})" for seed, cell in cells.items())
    return Cell(outcome, detail, seconds, by_seed=by_seed)


def run_row(mutant: Mutant, seeds: tuple[int, ...], vectors: int, sweep_vectors: int, layers: tuple[str, ...],
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
            row.cells[layer] = merge_seeds({seed: bench_layer(mutant, mutated, seed, vectors) for seed in seeds})
        elif layer == "sweep":
            row.cells[layer] = merge_seeds({seed: sweep_layer(mutant, mutated, seed, sweep_vectors) for seed in seeds})
        else:
            row.cells[layer] = proof_layer(mutant, mutated, proof_timeout, proof_budget)
    return row


def run_catalogue(pool: ProcessPoolExecutor, mutants: list[Mutant], seeds: tuple[int, ...], vectors: int,
                  sweep_vectors: int, layers: tuple[str, ...], proof_timeout: float, proof_budget: float,
                  catalogue: Path = CATALOGUE) -> list[Row]:
    print(f"make mutants: {len(mutants)} hand-written mutants from {shown(catalogue)} through "
          f"{', '.join(layers)} ({icarus_version()}, seeds {', '.join(map(str, seeds))}, {vectors} bench vectors, "
          f"{sweep_vectors} sweep vectors)", flush=True)
    futures = [pool.submit(run_row, m, seeds, vectors, sweep_vectors, layers, proof_timeout, proof_budget) for m in mutants]
    rows = []
    for done, future in enumerate(futures, 1):
        row = future.result()
        rows.append(row)
        marks = " ".join(f"{layer}:{row.cells[layer].outcome:<8}" for layer in LAYERS)
        print(f"  [{done:>2}/{len(mutants)}] {'caught ' if row.caught else 'GAP    '} {row.mutant.id:<34} {marks}",
              flush=True)
    return rows


def entry(row: Row) -> dict:
    """A row of the kill matrix's JSON."""
    mutant = row.mutant
    return {"id": mutant.id, "class": mutant.bug_class, "bug": mutant.bug, "file": mutant.file, "top": mutant.top,
            "params": mutant.params, "layers": {layer: asdict(cell) for layer, cell in row.cells.items()},
            "simulation_killed": row.simulation_killed, "proof_survives": mutant.proof_survives,
            "caught": row.caught}


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


def closing_line(rows: list[Row]) -> str:
    """How many hand-written mutants the kill rule caught, and how many each layer killed: a layer's
    error, survival, unknown or n/a is no kill."""
    caught = sum(row.caught for row in rows)
    killed = {layer: sum(row.cells[layer].outcome == "killed" for row in rows if layer in row.cells) for layer in LAYERS}
    return (f"make mutants: hand-written {caught}/{len(rows)} caught (a bench or sweep at every seed, and a proof with a "
            "counterexample where one applies); killed by " + ", ".join(f"{layer} {killed[layer]}" for layer in LAYERS))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="make mutants", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1,2", help="the bench and sweep layers' seeds, comma separated: a bench "
                        "or sweep must kill each mutant at every one")
    parser.add_argument("--seed", type=int, default=None, help="one seed (the same as --seeds <n>)")
    parser.add_argument("--sweep", type=int, default=300, help="random vectors per sweep in each bench run")
    parser.add_argument("--sweep-vectors", type=int, default=20000, help="vectors of the bulk-sweep layer")
    parser.add_argument("--layers", default=",".join(LAYERS), help="the layers to run, comma separated")
    parser.add_argument("--proof-timeout", type=float, default=600.0, help="seconds allowed per proof task")
    parser.add_argument("--proof-budget", type=float, default=120.0,
                        help="seconds of proof (by make prove's times) per mutant beyond its catalogue tasks")
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE,
                        help="the hand-written mutants (default: flows/mutants/catalogue.toml); its file fields name rtl/ files")
    parser.add_argument("-k", "--only", default=None,
                        help="only hand-written mutants whose id or class contains this (several: comma separated)")
    parser.add_argument("--jobs", type=int, default=None, help="parallel runs (default: one per core)")
    parser.add_argument("--mechanical", type=int, default=30,
                        help="Yosys mutate mutants per combinational module (0: none)")
    parser.add_argument("--mechanical-sequential", type=int, default=10,
                        help="Yosys mutate mutants per sequential module (0: none); their benches run longer")
    args = parser.parse_args(argv)
    try:
        seeds = (args.seed,) if args.seed is not None else tuple(dict.fromkeys(int(seed) for seed in args.seeds.split(",")))
    except ValueError:
        print(f"error: --seeds {args.seeds}: whole numbers, comma separated", file=sys.stderr)
        return 2
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
    wanted = None if args.only is None else [word for word in args.only.split(",") if word]
    mutants = [m for m in catalogue if wanted is None or any(w in m.id or w in m.bug_class for w in wanted)]
    if not mutants:
        print(f"error: no mutant matches {args.only!r}", file=sys.stderr)
        return 2
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        rows = run_catalogue(pool, mutants, seeds, args.sweep, args.sweep_vectors, layers, args.proof_timeout,
                             args.proof_budget, args.catalogue)
        try:
            mechanical = (run_mechanical(pool, args.mechanical, args.mechanical_sequential, seeds[0])
                          if args.mechanical + args.mechanical_sequential > 0 and args.only is None else [])
        except ToolError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    command = "make mutants" + (f' ARGS="{" ".join(argv)}"' if argv else "")
    document = write_matrix([entry(row) for row in rows], command, complete=args.only is None and layers == LAYERS
                            and args.catalogue == CATALOGUE, seeds=seeds)
    print("\nkill matrix (bench: make sim RTL=<the mutant>; sweep: a bulk sweep on Icarus; proof: make prove RTL=<the mutant>):")
    for line in kill_matrix.table(document).splitlines():
        print("  " + line)
    print(f"kill matrix written to {shown(KILL_MATRIX)}")
    print(closing_line(rows))
    options = f" --seeds {','.join(map(str, seeds))}" + (f" --sweep {args.sweep}" if args.sweep != 300 else "")
    for row in rows:
        for line in (row.cells.get("proof", Cell("n/a")).evidence if row.cells.get("proof", Cell("n/a")).outcome == "killed"
                     else ()):
            if line.startswith("replay: "):
                print(f"  {row.mutant.id}: its counterexample as a bench: {line.removeprefix('replay: ')}")
    for row in rows:
        if not row.caught:
            gaps = [] if row.simulation_killed else ["no bench or sweep kills it at every seed"]
            gaps += [row.proof_gap] if row.proof_gap else []
            gaps += ["it does not build"] if row.broken else []
            why = "; ".join(f"{layer}: {cell.outcome} ({cell.detail})" for layer, cell in row.cells.items())
            print(f"  not caught: {row.mutant.id} ({row.mutant.bug}): {'; '.join(gaps)}\n    {why}")
            print(f'    rerun: make mutants ARGS="-k {row.mutant.id}{options} --mechanical 0 --mechanical-sequential 0"')
    ok = all(row.caught for row in rows)
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
