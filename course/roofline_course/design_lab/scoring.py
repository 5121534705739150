"""How a design lab's tests become marks, and the handout's words for it, from one source.

- A test earns the share of its cases that passed beyond chance (roofline_core.scoreboard.Verdict.credit):
  if the commonest expected output is right for a share b of its cases and a share p passed, it
  earns (p - b) / (1 - b), never below 0.
- An event of the contract (the latency, the handshake, the reset, the done_o pulse: a lab's
  `events` in its lab.toml) is a case of its own that the whole test stands on: a test that sees
  one broken earns nothing, however many of its values were right. A design that breaks it in
  every test that checks it loses every such test.
- A group scores its weight times its tests' mean credit ("proportional"), or its weight only when
  every test passed ("all-or-nothing"); marks are shown to a tenth, and a group short of its
  weight never shows its weight (results.shown_marks).

`handout_text` writes a lab's "What is graded" section from these rules and the lab's groups:
the handouts carry it between SCORING_BEGIN and SCORING_END, and a test checks it is current.
"""

from __future__ import annotations

import textwrap

from roofline_core.scoreboard import Verdict
from roofline_course.labs.definitions import Group, Lab
from roofline_course.results import MARK_DECIMALS, mark_text

# Each event a lab may score this way, as a sentence names it (labs.definitions checks a lab's list).
EVENT_WORDS = {
    "timeout": "a result that never comes (a timeout)",
    "latency": "the latency",
    "pulse": "the one-cycle done_o pulse",
    "handshake": "the valid/ready handshake (a result dropped, changed, duplicated or out of nowhere)",
    "throughput": "one result per clock",
    "reset": "the asynchronous reset",
}


def broken(lab: Lab, verdict: Verdict) -> tuple[str, ...]:
    """The events of the lab's rule that this test saw broken."""
    return verdict.broke(lab.events)


def credit(lab: Lab, verdict: Verdict) -> float:
    """What the test earns, 0..1: nothing when it broke an event of the lab's rule, else its cases beyond chance."""
    return 0.0 if broken(lab, verdict) else verdict.credit


def earned(lab: Lab, group: Group, verdicts: list[Verdict]) -> float:
    """The share of the group's weight its tests earn, 0..1."""
    if not verdicts:
        return 0.0
    if group.scoring == "all-or-nothing":
        return float(all(v.passed for v in verdicts))
    return sum(credit(lab, v) for v in verdicts) / len(verdicts)


def rule_line(lab: Lab, verdict: Verdict) -> str:
    """The report's words for a test that lost everything to the lab's rule; "" when it did not."""
    found = broken(lab, verdict)
    if not found:
        return ""
    what = ", ".join(f"{EVENT_WORDS[kind]} ({verdict.count(kind)} time{'s' if verdict.count(kind) > 1 else ''})"
                     for kind in found)
    return (f"it broke {what}: in lab {lab.number} an event of the contract is a case the whole test stands on, "
            "so this test earns nothing")


# ------------------------------------------------------------------------------------ the handout

SCORING_BEGIN = "<!-- what is graded: written by `python -m roofline_course.design_lab.scoring`; do not edit -->"
SCORING_END = "<!-- end of what is graded -->"
WIDTH = 100  # the handouts' line length


def _example() -> tuple[str, str]:
    """The beyond-chance rule on two made-up tests of 10 cases, half of them expecting one output."""
    def share(passed: int) -> float:
        return Verdict("t", 10, tuple(f"v{i}" for i in range(10 - passed)), 10, (), baseline=0.5).credit
    return mark_text(30 * share(9)), mark_text(30 * share(5))


def handout_text(lab: Lab) -> str:
    """The handout's "What is graded" section: how to run it, the rules, and every group."""
    nine, five = _example()
    lines = [
        f"`make check LAB={lab.number} RTL=<your file or folder>` runs the visible groups; `make grade` (your",
        "instructor) runs them all, the hidden ones too.",
        "",
        "- **Each test earns the share of its cases that passed beyond chance.** If the commonest expected",
        "  output of a test is right for a share b of its cases and a share p passed, the test earns",
        "  (p - b) / (1 - b) of its part of the group, never less than 0: a design with constant outputs",
        f"  earns nothing. With b = 1/2, in a group of 30 marks: 9 of 10 passed earns {nine}, 5 of 10 earns {five}.",
        "- A group's tests count equally; a group marked all-or-nothing scores only when every test passes.",
        "- A test cut short (a timeout, a crash) counts against all of its cases, checked or not.",
    ]
    if lab.events:
        words = "; ".join(EVENT_WORDS[kind] for kind in lab.events)
        lines += textwrap.wrap(f"**The contract's events are cases the whole test stands on**: {words}. A test that "
                               "sees one of them broken earns nothing, however many of its values were right, and the "
                               "report says which event broke and how often.", WIDTH, initial_indent="- ",
                               subsequent_indent="  ", break_on_hyphens=False)
    else:
        lines.append("- The module has no clock, so no events: every case is a value.")
    if any(g.requires for g in lab.groups):
        lines.append("- A group that requires others scores only once they pass in full (a fast wrong design earns nothing).")
    if any(g.kind == "synthesis" for g in lab.groups):
        lines.append("- The synthesis group scores in proportion to the clock rate reached, up to its target.")
    lines += [
        f"- Marks are shown to {'a tenth' if MARK_DECIMALS == 1 else f'{MARK_DECIMALS} decimals'} of a mark, the same "
        "number everywhere; a group that lost anything shows",
        "  less than its weight (99.98 of 100 shows as 99.9, never 100.0).",
        "",
        "| group | visible | weight | covers |",
        "|---|---|---:|---|",
    ]
    for group in lab.groups:
        notes = []
        if group.scoring == "all-or-nothing":
            notes.append("all-or-nothing")
        if group.requires:
            notes.append("scored only once " + " and ".join(f'"{name}"' for name in group.requires) + " passes")
        if group.kind == "synthesis" and group.tests:
            notes.append("the synthesized design must first pass " + ", ".join(group.tests)
                         + " in simulation at these parameters, or the group scores nothing")
        covers = group.covers + (f"; {'; '.join(notes)}" if notes else "")
        lines.append(f"| {group.name} | {'hidden' if group.hidden else 'yes'} | {group.weight:g} | {covers} |")
    return "\n".join(lines)


def handout_block(lab: Lab) -> str:
    return f"{SCORING_BEGIN}\n{handout_text(lab)}\n{SCORING_END}"


def current_block(handout: str) -> str | None:
    """The generated block a handout holds, or None when it holds none."""
    if SCORING_BEGIN not in handout or SCORING_END not in handout:
        return None
    start = handout.index(SCORING_BEGIN)
    return handout[start:handout.index(SCORING_END, start) + len(SCORING_END)]


def main() -> int:
    """Write each design lab's block into its handout (labs/labN/handout.md)."""
    from roofline_course.labs.definitions import available, load_lab

    for number in available():
        lab = load_lab(number)
        if lab.kind != "design":
            continue
        path = lab.folder / "handout.md"
        text = path.read_text()
        block = current_block(text)
        if block is None:
            print(f"{path}: no block between {SCORING_BEGIN!r} and {SCORING_END!r}; add the two lines")
            return 1
        path.write_text(text.replace(block, handout_block(lab)))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
