"""Hints attached to the kind of failure a report shows, not to the group it happened in.

Each failing report (a mismatch, a timeout, a protocol error) is read for what went wrong:
which outputs differ, by how much, and what the vector was (its case name or stimulus kind).
"""

from __future__ import annotations

import re

HINTS = {
    "ridge tie": "at the ridge (ai*bw == peak) the compute roof binds: memory-bound is ai*bw < peak, strictly",
    "rounding": "round to nearest, ties up, once: add half an LSB (1 << (FRAC_BITS-1)) to the full product, "
                "then drop FRAC_BITS bits",
    "product width": "ai*bw needs 2*(INT_BITS+FRAC_BITS) bits: size the product before multiplying, and compare it "
                     "with peak << FRAC_BITS at that width",
    "saturation": "a quotient that does not fit W bits gives all ones with sat_o set; bytes = 0 gives all ones with "
                  "sat_o and div0_o",
    "binding level": "the binding level has the smallest full-precision ai*bw among memory-bound levels; on a tie the "
                     "lowest index wins; binding_o = LEVELS when compute binds",
    "pulse": "done_o is high for exactly one cycle per operation, with the outputs valid in that cycle",
    "latency": "the result must come within the documented number of cycles; look for a state that never leaves",
    "handshake": "a transfer happens when valid and ready are both high; hold every output while out_ready_i is low",
    "unknown value": "an output is X or Z: drive every output on every path (a reset, a default in each case)",
}
DIFFERS = re.compile(r"^\s*(\w+)(?:\[\d+\])?\s+expected (\S+).*?actual (\S+).*<-- differs", re.M)
LABEL = re.compile(r"\[(\w+) ([^\]:]+)(?::\s*([^\]]+))?\]")


def kind_of(report: str) -> str | None:
    """The kind of one failing report, a key of HINTS, or None when none fits."""
    text = report.lower()
    if "timeout" in text or "latency" in text:
        return "latency"
    if "x/z" in text:
        return "unknown value"
    if "back-pressure" in text or "out of nowhere" in text or "throughput" in text or "consecutive clocks" in text:
        return "handshake"
    if "done_o" in text and ("pulse" in text or "is high" in text):
        return "pulse"
    differing = {name: (want, got) for name, want, got in DIFFERS.findall(report)}
    label = LABEL.search(report)
    vector = " ".join(part for part in (label.groups() if label else ()) if part).lower()
    if "sat_o" in differing or "div0_o" in differing or "saturat" in vector or "div0" in vector:
        return "saturation"
    if "binding_o" in differing:
        return "binding level"
    if "mem_bound_o" in differing and "ridge" in vector:
        return "ridge tie"
    if "product" in vector or "overflow" in vector or "beyond" in vector:
        return "product width"
    caps = [values for name, values in differing.items() if name.endswith("cap_o") or name == "ai_o"]
    if caps and "mem_bound_o" not in differing and all(_one_lsb(want, got) for want, got in caps):
        return "rounding"
    if "mem_bound_o" in differing and "ridge" in vector:
        return "ridge tie"
    return None


def _one_lsb(want: str, got: str) -> bool:
    try:
        return abs(int(want, 16) - int(got, 16)) == 1
    except ValueError:
        return False


def hints_for(reports: list[str], fallback: str = "") -> list[str]:
    """One hint per kind of failure seen, most common first; the group's own hint when none fits."""
    kinds: dict[str, int] = {}
    for report in reports:
        kind = kind_of(report)
        if kind:
            kinds[kind] = kinds.get(kind, 0) + 1
    ordered = sorted(kinds, key=lambda k: -kinds[k])
    return [f"hint ({kind}): {HINTS[kind]}" for kind in ordered] or ([f"hint: {fallback}"] if fallback else [])
