"""`make docs`: the tables in docs/ regenerated from their sources, never pasted.

A generated block sits between `<!-- generated: NAME -->` and `<!-- end generated -->`. The
sources: the contract table (modules), model/roofline_golden/cases.toml (cases),
benchmark/results.json (benchmark), flows/results/synth.json (synthesis),
flows/results/kill-matrix.json (kill-matrix) and flows/python-mutation.toml (mutation-modules).
`make docs` first copies a complete `make synth` result (build/synth/results.json) and a complete
`make mutants` kill matrix (build/mutants/kill-matrix.json) into flows/results/.
`--check` changes nothing and exits 1 when a block is stale; the regression runs it.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

from roofline_core.contract import CLOCK_PORTS, MODULES
from roofline_core.paths import BUILD_ROOT, FLOWS_DIR, REPO_ROOT, shown
from roofline_flows import kill_matrix, synth
from roofline_golden import cases

DOCS_DIR = REPO_ROOT / "docs"
BENCHMARK_RESULTS = REPO_ROOT / "benchmark" / "results.json"
SYNTH_RESULTS = FLOWS_DIR / "results" / "synth.json"
PYTHON_MUTATION_TABLE = FLOWS_DIR / "python-mutation.toml"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def modules_table() -> str:
    rows = ["| module | kind | parameters (defaults) | ports (width) |", "|---|---|---|---|"]
    for module in MODULES.values():
        parameters = ", ".join(f"{name}={value}" for name, value in module.parameters.items())
        ports = ", ".join(f"`{port.name}`" + ("" if port.width == "1" else f" [{port.width}]")
                          for port in module.ports if port.name not in CLOCK_PORTS)
        kind = "sequential" if module.clocked else "combinational"
        kind += "" if module.top else ", building block"
        rows.append(f"| `{module.name}` | {kind} | {parameters} | {ports or '(none)'} |")
    return "\n".join(rows)


def mutation_modules_table() -> str:
    """flows/python-mutation.toml as a table: each module, what of it is mutated (and why, from its comment),
    and the tests that run per mutant."""
    text = PYTHON_MUTATION_TABLE.read_text()
    about = dict(re.findall(r'^path = "([^"]+)"\s*#\s*(.*)$', text, re.M))
    rows = ["| module | what is mutated | the tests that run per mutant |", "| --- | --- | --- |"]
    for entry in tomllib.loads(text).get("module", []):
        what = ", ".join(f"`{name}`" for name in entry.get("functions", ())) or "all"
        tests = " ".join(f"`{word}`" if word.startswith("tests/") else word for word in entry["tests"])
        rows.append(f"| `{entry['path']}` | {what}: {about.get(entry['path'], '')} | {tests} |")
    return "\n".join(rows)


def benchmark_table(document: dict) -> str:
    """benchmark/results.json as the docs show it: the paths' rates, each row's target and whether the
    run met it, the ratios, and the feedback loop's waits against theirs."""
    results = [m for m in document["results"] if m["path"] != "make test"]  # a results file from before timings
    lines = ["| path | simulator | N | seconds | verified vectors/s | one-time s | peak memory MiB | target |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    lines += [f"| {m['path']} | {m['simulator']} | {m['n']:,} | {m['seconds']:.4f} | {m['vectors_per_s']:,.0f} | "
              f"{m['one_time_s']:.1f} | {'' if m.get('peak_rss_mib') is None else format(m['peak_rss_mib'], ',.0f')} | "
              f"{target_text(m.get('target'), m.get('met'))} |" for m in results]
    lines += ["", *(f"- {line}" for line in benchmark_ratios(results))]
    timings = document.get("timings", [])
    if timings:
        lines += ["", "| the feedback loop | seconds (median) | runs | target |", "|---|---:|---|---|"]
        lines += [f"| {t['what']} | {t['seconds']:.1f} | {', '.join(f'{r:.1f}' for r in t['runs'])} | "
                  f"{target_text(within(t['target_s']), t['met'])} |" for t in timings]
    machine = document.get("machine", {})
    lines += ["", f"From `{document.get('command', 'make benchmark')}`: {document.get('repeats', '?')} repeats, medians, "
              f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}."]
    return "\n".join(lines)


def within(seconds: float | None) -> str | None:
    return None if seconds is None else f"at most {seconds:g} s on 2 CPUs"


def target_text(target: str | None, met: bool | None) -> str:
    return "" if target is None else f"{target}: {'met' if met else '**not met**'}"


def benchmark_ratios(results: list[dict]) -> list[str]:
    """Each path against its ceiling (and bulk against per-vector), at the largest N both were
    measured at, and the peak memory of the longest sweep."""
    by = {(m["path"], m["simulator"], m["n"]): m for m in results}

    def pair(a: tuple[str, str], b: tuple[str, str]) -> tuple[dict, dict] | None:
        common = [n for (path, sim, n) in by if (path, sim) == a and (*b, n) in by]
        return (by[(*a, max(common))], by[(*b, max(common))]) if common else None

    lines = []
    for sim in ("verilator", "icarus"):
        if found := pair(("bulk", sim), ("per-vector", sim)):
            bulk, per_vector = found
            lines.append(f"bulk / per-vector on {sim}: {bulk['vectors_per_s'] / per_vector['vectors_per_s']:.1f}x "
                         f"at N={bulk['n']:,}")
    # Bulk on Verilator at every N from 10^6 up: its fixed costs (the first batch, the last check)
    # weigh on the smaller sweeps.
    sizes = sorted(n for (path, sim, n) in by if (path, sim) == ("bulk", "verilator") and ("native", "verilator", n) in by)
    for n in [n for n in sizes if n >= 10**6] or sizes[-1:]:
        native, bulk = by[("native", "verilator", n)], by[("bulk", "verilator", n)]
        lines.append(f"bulk on verilator against its ceiling, the native C++ loop, at N={n:,}: "
                     f"{_against(native, bulk)}")
    if found := pair(("fread", "icarus"), ("bulk", "icarus")):
        fread, bulk = found
        lines.append(f"bulk on icarus against its ceiling, the same testbench run by plain SV ($fread), at "
                     f"N={bulk['n']:,}: {_against(fread, bulk)}")
    for sim in ("verilator", "icarus"):
        if found := pair(("bare", sim), ("per-vector", sim)):
            bare, per_vector = found
            lines.append(f"per-vector on {sim} against its ceiling, a bare cocotb loop with no checks, at "
                         f"N={bare['n']:,}: {_against(bare, per_vector)}")
    measured = [m for m in results if m.get("peak_rss_mib") is not None]
    if measured:
        longest = max(measured, key=lambda m: m["n"])
        lines.append(f"peak memory of the longest sweep (bulk {longest['simulator']}, N={longest['n']:,}, the "
                     f"simulator and its helpers together): {longest['peak_rss_mib']:,.0f} MiB")
    return lines


def _against(ceiling: dict, path: dict) -> str:
    """A path's rate beside its ceiling's in the same run. A ceiling can come out slower when the two
    are close: bulk on Icarus runs the same testbench as the $fread row, and the machine's speed
    varies from one measurement to the next."""
    ratio = ceiling["vectors_per_s"] / path["vectors_per_s"]
    return f"{ratio:.1f}x slower" if ratio >= 1 else f"{1 / ratio:.1f}x faster"


def synthesis_table() -> str:
    if not SYNTH_RESULTS.exists():
        return f"(no results yet: run `make synth`, then `make docs`, which copies them to `{shown(SYNTH_RESULTS)}`)"
    document, outcomes = synth.load_results(SYNTH_RESULTS)
    tools = "; ".join(f"{name}: {version}" for name, version in document.get("tools", {}).items())
    return "\n".join([*synth.table(outcomes), "", f"Tools: {tools}."])


KILL_MATRIX_RESULTS = FLOWS_DIR / "results" / "kill-matrix.json"


def kill_matrix_table() -> str:
    if not KILL_MATRIX_RESULTS.exists():
        return f"(no results yet: run `make mutants`, then `make docs`, which copies them to `{shown(KILL_MATRIX_RESULTS)}`)"
    return kill_matrix.kill_matrix_table(KILL_MATRIX_RESULTS)


EDA_RESULTS = REPO_ROOT / "benchmark" / "eda.json"


def eda_table() -> str:
    document = json.loads(EDA_RESULTS.read_text())
    lines = ["| step | native s | WebAssembly s | WebAssembly / native |", "|---|---:|---:|---:|"]
    for row in document["rows"]:
        wasm = row["webassembly_s"]
        ratio = f"{wasm / row['native_s']:.1f}x" if wasm else "-"
        lines.append(f"| {row['step']} | {row['native_s']:.2f} | {f'{wasm:.2f}' if wasm else 'not run'} | {ratio} |")
    tools = document.get("tools", {})
    lines += ["", f"From `{document.get('command')}` on {document.get('machine', {}).get('cpus', '?')} CPUs; "
              f"native {tools.get('native', '?')}, WebAssembly {tools.get('webassembly', '?').split(' (')[0]} (YoWASP)"
              + (f"; nextpnr native {tools['native nextpnr']}, WebAssembly {tools['webassembly nextpnr']}"
                 if "native nextpnr" in tools else "") + "."]
    return "\n".join(lines)


GENERATORS: dict[str, Callable[[], str]] = {
    "modules": modules_table,
    "cases": lambda: cases.markdown_table("document"),
    "benchmark": lambda: benchmark_table(json.loads(BENCHMARK_RESULTS.read_text())),
    "synthesis": synthesis_table,
    "eda": eda_table,
    "kill-matrix": kill_matrix_table,
    "mutation-modules": mutation_modules_table,
}


def regenerate(text: str, where: Path) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in GENERATORS:
            raise SystemExit(f"error: {shown(where)}: unknown generated block {name!r} (known: {', '.join(GENERATORS)})")
        return f"{match[1]}{GENERATORS[name]()}\n{match[4]}"

    return BLOCK.sub(fill, text)


def refresh_results(fresh: Path, kept: Path) -> bool:
    """Copy a complete run's results file (its "complete" flag set) over the kept one."""
    if fresh.exists() and json.loads(fresh.read_text()).get("complete"):
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(fresh, kept)
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make docs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a generated block is stale")
    args = parser.parse_args(argv)
    for fresh, kept in ((BUILD_ROOT / "synth" / "results.json", SYNTH_RESULTS), (kill_matrix.KILL_MATRIX, KILL_MATRIX_RESULTS)):
        if not args.check and refresh_results(fresh, kept):
            print(f"docs: {shown(kept)} from {shown(fresh)}")
    stale = []
    for page in sorted(DOCS_DIR.glob("*.md")):
        text = page.read_text()
        updated = regenerate(text, page)
        if updated != text:
            stale.append(shown(page))
            if not args.check:
                page.write_text(updated)
    if args.check and stale:
        print(f"docs: generated tables are stale in {', '.join(stale)}: run make docs", file=sys.stderr)
        return 1
    print(f"docs: {'stale: ' + ', '.join(stale) if stale else 'every generated table is current'}"
          + (" (rewritten)" if stale and not args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
