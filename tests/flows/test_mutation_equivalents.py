"""The recorded equivalents of make mutation (flows/python-mutation-equivalent.toml) say only what is
true now: an entry whose id no mutant of its module has any more (its code changed, so the mutant
has a new id and runs again) fails the module's run with the ids to remove, and the table of them
in docs/mutation.md is the file's."""

from __future__ import annotations

from roofline_flows import python_mutation
from roofline_flows.python_mutation import Mutant, Tally, Target, unmatched_equivalents

TARGET = Target("pkg/unit.py", ("tests/test_unit.py",))


def mutant(mutant_id: str) -> Mutant:
    return Mutant(TARGET.path, mutant_id, "NumberReplacer", 0, "f", 3, "-x = 1\n+x = 2", "x = 2\n")


def test_an_entry_no_mutant_has_is_unmatched_and_entries_of_other_modules_are_not_its() -> None:
    equivalents = {(TARGET.path, "aaaaaaaaaa"): "why", (TARGET.path, "bbbbbbbbbb"): "why",
                   (TARGET.path, "cccccccccc-2"): "why", ("pkg/other.py", "dddddddddd"): "why"}
    found = [mutant("aaaaaaaaaa"), mutant("cccccccccc")]
    assert unmatched_equivalents(TARGET, found, equivalents) == ["bbbbbbbbbb", "cccccccccc-2"]
    assert unmatched_equivalents(TARGET, [*found, mutant("bbbbbbbbbb"), mutant("cccccccccc-2")], equivalents) == []


def test_a_module_with_an_unmatched_entry_fails_and_says_which_to_remove() -> None:
    clean = Tally("pkg/unit.py", mutants=10, killed=9, equivalent=1)
    assert clean.ok and python_mutation.row(clean).endswith("| ok |")
    stale = Tally("pkg/unit.py", mutants=10, killed=9, equivalent=1, unmatched=["bbbbbbbbbb"])
    assert not stale.ok and python_mutation.row(stale).endswith("| stale equivalents |")
    assert stale.why_not_ok == ("recorded as equivalent but no mutant of the module has the id now (its code changed): "
                                "bbbbbbbbbb; remove them from flows/python-mutation-equivalent.toml")
    below = Tally("pkg/unit.py", mutants=10, killed=5, survived=0, timed_out=0, equivalent=0, not_run=0,
                  unmatched=["bbbbbbbbbb"])
    below.survived = 5
    assert python_mutation.row(below).endswith("| BELOW |")


def test_the_docs_table_of_equivalents_is_the_files() -> None:
    text = python_mutation.DOC.read_text()
    start = text.index(python_mutation.EQUIVALENTS_START) + len(python_mutation.EQUIVALENTS_START)
    inside = text[start:text.index(python_mutation.EQUIVALENTS_END)]
    assert inside.strip() == python_mutation.equivalents_table().strip()
