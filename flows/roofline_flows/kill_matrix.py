"""The kill matrix of `make mutants`: mutant by layer (bench, sweep, proof), killed, survived or
n/a. Its JSON file and its Markdown table; no simulator is imported here (make docs renders it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roofline_core.paths import BUILD_ROOT

LAYERS = ("bench", "sweep", "proof")
KILL_MATRIX = BUILD_ROOT / "mutants" / "kill-matrix.json"


def write_matrix(entries: list[dict[str, Any]], command: str, complete: bool, path: Path = KILL_MATRIX) -> dict[str, Any]:
    """complete: every mutant through every layer (what the docs' table may show)."""
    document = {"command": command, "complete": complete, "layers": list(LAYERS), "mutants": entries}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")
    return document


def table(document: dict[str, Any]) -> str:
    """One row per mutant, one column per layer, and the proof task that killed it."""
    layers = document["layers"]
    lines = ["| mutant | class | " + " | ".join(layers) + " | proof that kills it |", "|---|---|" + "---|" * (len(layers) + 1)]
    for entry in document["mutants"]:
        cells = [entry["layers"][layer]["outcome"] for layer in layers]
        proof = entry["layers"].get("proof", {})
        killer = proof["detail"].split(": ")[0] if proof.get("outcome") == "killed" else ""
        lines.append(f"| `{entry['id']}` | {entry['class']} | " + " | ".join(cells) + f" | {killer} |")
    killed = {layer: sum(e["layers"][layer]["outcome"] == "killed" for e in document["mutants"]) for layer in layers}
    anywhere = sum(any(e["layers"][layer]["outcome"] == "killed" for layer in layers) for e in document["mutants"])
    lines += ["", f"From `{document['command']}`: {len(document['mutants'])} mutants, {anywhere} killed by some layer; "
              "killed by " + ", ".join(f"{layer} {count}" for layer, count in killed.items()) + "."]
    return "\n".join(lines)


def kill_matrix_table(path: Path) -> str:
    return table(json.loads(path.read_text()))
