"""Hints chosen from the kind of each failure, as the judge recorded it, never from a report's words.

A failure (roofline_core.scoreboard.Failure) says what failed: a value mismatch with the outputs
that differed and by how much, and what the vector was (its regimes: the ridge, a rounding tie,
a product above the format, a division by zero ...), or a timeout, a latency, a pulse, a
handshake or a reset problem, or an X/Z. Each maps to at most one kind of hint; a lab names the
kinds that fit it (its lab.toml `hints`), and each kind is worded per module (HINTS), so that a
hint names only the ports the lab's module has and teaches the method its handout teaches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from roofline_bench.rates import JUST_ABOVE_RIDGE, WIDE_PRODUCT
from roofline_core.contract import MODULES
from roofline_core.scoreboard import Failure

RATE_TOPS = ("roofline_attainable", "roofline_hierarchy", "roofline_hierarchy_pipe")
LEVEL_TOPS = ("roofline_hierarchy", "roofline_hierarchy_pipe")
PIPE, DIVIDER = "roofline_hierarchy_pipe", "roofline_intensity"


def _each(tops: tuple[str, ...], text: str) -> dict[str, str]:
    return dict.fromkeys(tops, text)


# Each kind of hint in each module's words: a hint names only that module's ports, and says the
# method its lab's handout teaches (lab 3's divider rounds with its extra quotient bit). A lab
# lists the kinds that fit it (lab.toml `hints`); a kind it does not list is never shown.
HINTS: dict[str, dict[str, str]] = {
    "ridge tie": _each(RATE_TOPS, "at the ridge (ai*bw == peak) the compute roof binds: memory-bound is ai*bw < peak, "
                                  "strictly"),
    "rounding": {
        **_each(RATE_TOPS, "round to nearest, ties up, once: add half an LSB (1 << (FRAC_BITS-1)) to the full product, "
                           "then drop FRAC_BITS bits"),
        DIVIDER: "round to nearest, ties up: divide ops x 2^(FRAC_BITS+1), one extra quotient bit, and round with "
                 "(q + 1) >> 1",
    },
    "product width": _each(RATE_TOPS, "form ai*bw at full precision, 2W = 2*(INT_BITS+FRAC_BITS) bits: size the product "
                                      "before multiplying, and compare it with peak << FRAC_BITS at that width"),
    "saturation": {DIVIDER: "a quotient that does not fit W bits gives ai_o all ones with sat_o set; bytes = 0 gives "
                            "all ones with sat_o and div0_o"},
    "binding level": _each(LEVEL_TOPS, "the binding level has the smallest full-precision ai*bw among memory-bound "
                                       "levels; on a tie the lowest index wins; binding_o = LEVELS when compute binds"),
    "pulse": {DIVIDER: "done_o is a one-cycle pulse, once per operation, with ai_o, sat_o and div0_o valid in that "
                       "cycle"},
    "latency": {
        DIVIDER: "done_o must come within COUNT_BITS + FRAC_BITS + 4 cycles of the cycle start_i is sampled in; a state "
                 "machine that never leaves a state, or a counter that never reaches its end, keeps it waiting",
        PIPE: "each result comes out exactly 3 + MUL_STAGES cycles after its input was accepted (4 for MUL_STAGES = 1): "
              "count the register stages from in_valid_i to out_valid_o, one more or one less is wrong",
    },
    "handshake": {PIPE: "a transfer happens when valid and ready are both high; hold every output while out_ready_i is "
                        "low, and accept a new input whenever the last stage is empty or its result is being taken"},
    "reset": {
        DIVIDER: "rst_ni is asynchronous and active low: while it is low, busy_o and done_o are low at once (not at the "
                 "next clock edge), and a division it interrupts gives no done_o",
        PIPE: "rst_ni is asynchronous and active low: while it is low, out_valid_o is low at once (not at the next clock "
              "edge), and nothing in flight before it comes out after it",
    },
    "unknown value": _each((*RATE_TOPS, DIVIDER), "an output is X or Z: drive every output on every path (a reset, a "
                                                  "default in each case)"),
}


def text(kind: str, top: str) -> str:
    return HINTS[kind][top]


def unknown_kinds(kinds: Iterable[str], top: str) -> list[str]:
    """The kinds of a lab's list that have no words for its module (a lab.toml mistake)."""
    return [kind for kind in kinds if top not in HINTS.get(kind, {})]


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
    """The hint kind of one failure, a key of HINTS, or None when none fits (hints_for keeps the lab's kinds)."""
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
    if failure.kind != "mismatch" or any(name.endswith(" width") for name, _, _ in failure.differs):
        return None  # a port's width (roofline_bench.rates.check_widths) says nothing of a value bug: its note says it
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


def hints_for(failures: Iterable[Failure], top: str, kinds: Iterable[str], fallback: str = "") -> list[str]:
    """One hint per kind of failure seen, of the kinds the lab lists (`kinds`), most common first,
    for the kinds behind at least a SHARE of the failures (a design wrong everywhere is not told
    about rounding because a few of its vectors were off by one); the group's own hint when none fits."""
    failures = list(failures)
    allowed = set(kinds)
    mismatched = {f.vector_id for f in failures if f.kind in ("mismatch", "handshake")}
    # An error bound broken by a vector that also mismatched is that mismatch's consequence: the
    # mismatch says what kind of bug it is (a handshake, when the value was another input's).
    every = [kind_of(f, top) for f in failures if not (f.kind == "error bound" and f.vector_id in mismatched)]
    counted = Counter(kind for kind in every if kind in allowed)
    shown = [kind for kind, count in counted.most_common() if count >= SHARE * len(every)]
    return [f"hint ({kind}): {text(kind, top)}" for kind in shown] or ([f"hint: {fallback}"] if fallback else [])
