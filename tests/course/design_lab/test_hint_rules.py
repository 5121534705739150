"""Text that teaches is checked for what it means, not for its words: each rule a hint or a handout
states (the ridge's tie, the rounding method of its lab, the binding level, the divider's flags, the
latency, the reset) is read from the text and evaluated on the golden model where it matters (one
full-precision step either side of the ridge and at it, a rounding tie and its neighbours, two
levels with equal products), and the contract's figures (tests/support/stated_rules.py).

A hint rewritten to say the opposite ("at the ridge the memory roof binds", "ties down", "q >> 1",
"the highest index wins") or to state no rule at all ("truncate") fails here.
"""

from __future__ import annotations

import pytest
from stated_rules import claims

from roofline_core.paths import LABS_DIR, REPO_ROOT
from roofline_course.design_lab import hints, roofs

RATE_TOPS, DIVIDER, PIPE = hints.RATE_TOPS, hints.DIVIDER, hints.PIPE

# Per kind of hint, the rules it must state, per module; the handshake's and the pulse's are held to the
# contract's valid/ready rule and done_o pulse; driving every output states none that can be evaluated.
REQUIRED: dict[str, dict[str, set[str]]] = {
    "ridge tie": dict.fromkeys(RATE_TOPS, {"memory-bound test", "ridge roof"}),
    "rounding": {**dict.fromkeys(RATE_TOPS, {"rounding", "ties"}), DIVIDER: {"divider rounding", "ties"}},
    "product width": dict.fromkeys(RATE_TOPS, {"product width", "product scale"}),
    "saturation": {DIVIDER: {"saturation"}},
    "binding level": dict.fromkeys(hints.LEVEL_TOPS, {"level tie", "binding level", "compute binding"}),
    "latency": {DIVIDER: {"divider latency"}, PIPE: {"pipe latency"}},
    "reset": {DIVIDER: {"reset"}, PIPE: {"reset"}},
    "handshake": {PIPE: {"transfer", "hold", "accept"}},
    "pulse": {DIVIDER: {"pulse"}},
}
HINT_CASES = [pytest.param(kind, top, id=f"{kind}-{top}") for kind, tops in hints.HINTS.items() for top in tops]


@pytest.mark.parametrize(("kind", "top"), HINT_CASES)
def test_every_hint_states_its_rule_and_the_rule_agrees_with_the_golden_model(kind: str, top: str) -> None:
    text = hints.text(kind, top)
    found = claims(text)
    wrong = [claim.said for claim in found if not claim.holds]
    assert not wrong, f"the {kind} hint of {top} says the opposite of the contract: {wrong}"
    missing = REQUIRED.get(kind, {}).get(top, set()) - {claim.kind for claim in found}
    assert not missing, f"the {kind} hint of {top} states no {sorted(missing)} rule: {text!r}"


# The rules each handout must state (where its lab teaches them), beside every other rule it states agreeing.
HANDOUT_RULES = {
    1: {"memory-bound test", "ridge roof", "rounding", "ties"},
    2: {"rounding", "ties"},
    3: {"divider rounding", "ties", "divider latency", "reset"},
    4: {"memory-bound test", "level tie", "binding level", "compute binding"},
    5: {"pipe latency"},
    6: {"memory-bound test", "ridge roof", "rounding", "ties"},
}


@pytest.mark.parametrize("number", sorted(HANDOUT_RULES))
def test_every_handout_states_its_labs_rules_as_the_golden_model_has_them(number: int) -> None:
    found = claims((LABS_DIR / f"lab{number}" / "handout.md").read_text())
    wrong = [claim.said for claim in found if not claim.holds]
    assert not wrong, f"lab {number}'s handout says the opposite of the contract: {wrong}"
    missing = HANDOUT_RULES[number] - {claim.kind for claim in found}
    assert not missing, f"lab {number}'s handout states no {sorted(missing)} rule"


# The reader is not blind: each reversal of a rule, in the hints' own words, is read and found wrong,
# and a hint that states no rule is found to state none.
REVERSALS = [
    ("at the ridge (ai*bw == peak) the memory roof binds", "ridge roof"),
    ("below 1 the compute roof binds", "below the ridge"),
    ("memory-bound is ai*bw <= peak", "memory-bound test"),
    ("memory-bound is ai*bw > peak", "memory-bound test"),
    ("round to nearest, ties down", "ties"),
    ("add half an LSB (1 << FRAC_BITS) to the full product, then drop FRAC_BITS bits", "rounding"),
    ("add half an LSB (1 << (FRAC_BITS-1)) to the full product, then drop FRAC_BITS-1 bits", "rounding"),
    ("cap_raw = (product + 2^(F-2)) >> F", "rounding"),
    ("divide ops x 2^(FRAC_BITS+1), one extra quotient bit, and round with q >> 1", "divider rounding"),
    ("divide ops x 2^(FRAC_BITS), and round with (q + 1) >> 1", "divider rounding"),
    ("on a tie the highest index wins", "level tie"),
    ("the binding level has the smallest full-precision ai*bw", "binding level"),  # the right one, for contrast
    ("the binding level has the largest full-precision ai*bw", "binding level"),
    ("binding_o = 0 when compute binds", "compute binding"),
    ("bytes = 0 gives all ones with sat_o set; ", "saturation"),
    ("form ai*bw at full precision, 2W = INT_BITS+FRAC_BITS bits", "product width"),
    ("done_o must come within COUNT_BITS + FRAC_BITS cycles", "divider latency"),
    ("at most COUNT_BITS + FRAC_BITS + 4 cycles (80 at the defaults)", "divider latency"),
    ("each result comes out exactly 2 + MUL_STAGES cycles after its input", "pipe latency"),
    ("each result comes out exactly 3 + MUL_STAGES cycles after its input (5 for MUL_STAGES = 1)", "pipe latency"),
    ("rst_ni is synchronous and active low", "reset"),
    ("a transfer happens when valid or ready is high", "transfer"),
    ("a transfer happens when valid and ready are both low", "transfer"),
    ("hold every output while out_ready_i is high", "hold"),
    ("hold every output while in_valid_i is low", "hold"),
    ("accept a new input whenever the last stage is empty and its result is being taken", "accept"),
    ("accept a new input whenever the last stage is full or its result is being taken", "accept"),
    ("done_o is a two-cycle pulse, once per operation, with ai_o, sat_o and div0_o valid in that cycle", "pulse"),
    ("done_o is a one-cycle pulse, once per operation, with ai_o, sat_o and div0_o valid in the next cycle", "pulse"),
]


@pytest.mark.parametrize(("text", "kind"), REVERSALS)
def test_a_reversed_rule_is_read_and_found_wrong(text: str, kind: str) -> None:
    found = [claim for claim in claims(text) if claim.kind == kind]
    assert len(found) == 1, (text, found)
    assert found[0].holds == (text == "the binding level has the smallest full-precision ai*bw"), text


@pytest.mark.parametrize("text", ["truncate the full product to W bits", "drop FRAC_BITS bits of the full product",
                                  "at the ridge, the roofs meet"])
def test_a_hint_that_states_no_rounding_or_tie_rule_states_none(text: str) -> None:
    assert not [claim for claim in claims(text) if claim.kind in ("rounding", "ties", "ridge roof")], text


def test_the_lab_pictures_roofline_states_the_tie_rule_on_its_axis() -> None:
    """The picture of a design's misses names the roofs on its x axis (ai*bw / peak): below 1 memory, at 1 compute."""
    view = roofs.Misses("ridge", [roofs.Point("v1", roofs.MEM_BOUND, 1.0, 1.0, None, None)], vectors=1)
    fig = roofs.figure(view)
    words = " ".join(text.get_text() for text in fig.findobj(lambda artist: hasattr(artist, "get_text")))
    found = claims(words)
    assert found and all(claim.holds for claim in found), [(c.said, c.holds) for c in found]
    assert {"ridge roof", "below the ridge"} <= {claim.kind for claim in found}, words


# Pages that state the contract's rules in the project's own words: every rule they state agrees.
PAGES = {"docs/design.md": {"memory-bound test", "ridge roof", "divider rounding"}, "README.md": set(), "labs/README.md": set(),
         "labs/STUDENTS.md": set()}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_docs_state_the_contracts_rules_as_the_golden_model_has_them(page: str) -> None:
    found = claims((REPO_ROOT / page).read_text())
    wrong = [claim.said for claim in found if not claim.holds]
    assert not wrong, f"{page} says the opposite of the contract: {wrong}"
    assert PAGES[page] <= {claim.kind for claim in found}, page
