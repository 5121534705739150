"""Hints chosen from the kind of each failure, as the judge recorded it, never from a report's words.

A failure (roofline_core.scoreboard.Failure) says what failed: a value mismatch with the outputs
that differed and by how much, and what the vector was (its regimes: the ridge, a rounding tie,
a product above the format, a division by zero ...), or a timeout, a latency, a pulse, a
handshake or a reset problem, or an X/Z. Each maps to at most one hint.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from roofline_bench.rates import JUST_ABOVE_RIDGE, WIDE_PRODUCT
from roofline_core.contract import MODULES
from roofline_core.scoreboard import Failure

HINTS = {
    "ridge tie": "at the ridge (ai*bw == peak) the compute roof binds: memory-bound is ai*bw < peak, strictly",
    "rounding": "round to nearest, ties up, once: add half an LSB (1 << (FRAC_BITS-1)) to the full product or "
                "quotient, then drop FRAC_BITS bits",
    "product width": "ai*bw needs 2*(INT_BITS+FRAC_BITS) bits: size the product before multiplying, and compare it "
                     "with peak << FRAC_BITS at that width",
    "saturation": "a quotient that does not fit W bits gives all ones with sat_o set; bytes = 0 gives all ones with "
                  "sat_o and div0_o",
    "binding level": "the binding level has the smallest full-precision ai*bw among memory-bound levels; on a tie the "
                     "lowest index wins; binding_o = LEVELS when compute binds",
    "pulse": "done_o is high for exactly one cycle per operation, with the outputs valid in that cycle",
    "latency": "done_o must come within the contract's number of cycles after start_i; a state machine that never "
               "leaves a state, or a counter that never reaches its end, keeps it waiting",
    "handshake": "a transfer happens when valid and ready are both high; hold every output while out_ready_i is low, "
                 "and accept a new input whenever the last stage is empty or its result is being taken",
    "reset": "while rst_ni is low, every state register returns to idle: busy_o, done_o and out_valid_o low, nothing in flight",
    "unknown value": "an output is X or Z: drive every output on every path (a reset, a default in each case)",
}
RIDGE = "ridge (ai*bw == peak)"
STEP_BELOW = "one step below the ridge"
TIE = "rounding tie (memory-bound)"
WIDE = "product above the format"
LEVEL_TIE = "level tie at the binding product"
DIVISION_BY_ZERO = ("division by zero", "division by zero with ops = 0", "saturation (bytes > 0)")
CAP_OUTPUTS = ("cap_o", "level_cap_o", "ai_o")
SHARE = 0.2
# Failures that say their kind by themselves (a timeout is a timeout, however little else passed);
# a wrong value says its kind only beside the values a design got right.
EVIDENT = frozenset({"timeout", "latency", "pulse", "reset", "handshake", "throughput", "unresolved"})


def _output(name: str) -> str:
    """An output's port name, from a field name such as 'level_cap_o[1]' or 'cap_o (the documents' value)'."""
    return name.split(" ")[0].split("[")[0]


def kind_of(failure: Failure, top: str) -> str | None:
    """The hint kind of one failure, a key of HINTS, or None when none fits."""
    if failure.kind == "unresolved":
        return "unknown value"
    if failure.kind == "timeout":
        return "handshake" if _streams(top) else "latency"
    if failure.kind in ("latency", "pulse", "reset"):
        return failure.kind
    if failure.kind in ("handshake", "throughput"):
        return "handshake"
    if failure.kind == "error bound":
        return "product width" if WIDE in failure.regimes else "rounding"
    if failure.kind != "mismatch":
        return None
    differs = {_output(name): (want, got) for name, want, got in failure.differs}
    caps = [pair for name, pair in differs.items() if name in CAP_OUTPUTS]
    caps_close = all(abs(want - got) <= 1 for want, got in caps)
    if "sat_o" in differs or "div0_o" in differs or any(r in failure.regimes for r in DIVISION_BY_ZERO):
        return "saturation"
    if "mem_bound_o" in differs and caps_close and any(r in failure.regimes for r in (RIDGE, STEP_BELOW, JUST_ABOVE_RIDGE)):
        return "ridge tie"
    if "binding_o" in differs and not caps and (LEVEL_TIE in failure.regimes or not _wide(failure)):
        return "binding level"
    if caps and "mem_bound_o" not in differs and all(abs(want - got) == 1 for want, got in caps):
        return "rounding"
    if _wide(failure):
        return "product width"
    if "binding_o" in differs:
        return "binding level"
    if "mem_bound_o" in differs and TIE in failure.regimes:
        return "rounding"
    return None


def _wide(failure: Failure) -> bool:
    return WIDE in failure.regimes or WIDE_PRODUCT in failure.regimes


def _streams(top: str) -> bool:
    return any(port.name == "out_ready_i" for port in MODULES[top].ports)


def hints_for(failures: Iterable[Failure], top: str, fallback: str = "") -> list[str]:
    """One hint per kind of failure seen, most common first, for the kinds behind at least a
    SHARE of the failures (a design wrong everywhere is not told about rounding because a few of
    its vectors were off by one); the group's own hint when none fits."""
    failures = list(failures)
    mismatched = {f.vector_id for f in failures if f.kind == "mismatch"}
    # An error bound broken by a vector that also mismatched is that mismatch's consequence: the
    # mismatch says what kind of bug it is.
    every = [kind_of(f, top) for f in failures if not (f.kind == "error bound" and f.vector_id in mismatched)]
    kinds = Counter(kind for kind in every if kind)
    shown = [kind for kind, count in kinds.most_common() if count >= SHARE * len(every)]
    return [f"hint ({kind}): {HINTS[kind]}" for kind in shown] or ([f"hint: {fallback}"] if fallback else [])
