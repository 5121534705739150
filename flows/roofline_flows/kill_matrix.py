"""The kill matrix of `make mutants`: mutant by layer (bench, sweep, proof), killed, survived or
n/a. Its JSON file and its Markdown table; no simulator is imported here (make docs renders it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roofline_core.paths import BUILD_ROOT

LAYERS = ("bench", "sweep", "proof")
KILL_MATRIX = BUILD_ROOT / "mutants" / "kill-matrix.json"


def write_matrix(entries: list[dict[str, Any]], command: str, complete: bool, path: Path = KILL_MATRIX,
                 seeds: tuple[int, ...] = (1,)) -> dict[str, Any]:
    """complete: every mutant through every layer (what the docs' table may show)."""
    document = {"command": command, "complete": complete, "layers": list(LAYERS), "seeds": list(seeds), "mutants": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")
    return document


def table(document: dict[str, Any]) -> str:
    """One row per mutant, one column per layer, and the proof task that killed it with its
    counterexample's first failing property. Every number comes from the run's document."""
    layers = document["layers"]
    seeds = document.get("seeds", [1])
    lines = ["| mutant | class | " + " | ".join(layers) + " | proof that kills it (counterexample) |",
             "|---|---|" + "---|" * (len(layers) + 1)]
    for entry in document["mutants"]:
        cells = [entry["layers"][layer]["outcome"] for layer in layers]
        proof = entry["layers"].get("proof", {})
        killer = ""
        if proof.get("outcome") == "killed":
            task, _, failed = proof["detail"].partition(": ")
            killer = f"{task} ({failed.rsplit('failed: ', 1)[-1]})" if "failed: " in failed else task
        elif entry.get("proof_survives"):
            killer = f"none can: {entry['proof_survives']}"
        lines.append(f"| `{entry['id']}` | {entry['class']} | " + " | ".join(cells) + f" | {killer} |")
    mutants = document["mutants"]
    killed = {layer: sum(e["layers"][layer]["outcome"] == "killed" for e in mutants) for layer in layers}
    by_layer = ", ".join(f"{layer} {count}" for layer, count in killed.items())
    if "seeds" not in document:  # a run from before kills needed a counterexample
        anywhere = sum(any(e["layers"][layer]["outcome"] == "killed" for layer in layers) for e in mutants)
        lines += ["", f"From `{document['command']}`, one seed, a proof's kill not yet required to hold a counterexample: "
                  f"{len(mutants)} mutants, {anywhere} killed by some layer; killed by {by_layer}."]
        return "\n".join(lines)
    caught = sum(bool(e.get("caught")) for e in mutants)
    lines += ["", f"From `{document['command']}`, bench and sweep at seed{'s' if len(seeds) > 1 else ''} "
              f"{', '.join(map(str, seeds))} (killed: at every one): {len(mutants)} mutants, {caught} caught by a bench "
              "or sweep at every seed and, where a proof reads the file, by a proof with a counterexample; killed by "
              f"{by_layer}."]
    return "\n".join(lines)


def kill_matrix_table(path: Path) -> str:
    return table(json.loads(path.read_text()))
