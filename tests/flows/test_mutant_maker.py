"""make mutation's mutants are cosmic-ray's: each mutant's code is what cosmic_ray.mutating.mutate_code
makes of the module's text for that operator and occurrence. mutants_of makes them on a copy of the one
node it changes, in the tree it parsed once (a new parse per mutant made `make mutation ARGS=--stale`
take two minutes to find nothing stale), so this pins it to the library on modules with every kind of
node the operators rewrite: a dropped node (ExceptionReplacer, ZeroIterationForLoop), a node whose
operator has several positions, a change at the first and the last node of the module."""

from __future__ import annotations

from pathlib import Path

import cosmic_ray.plugins
import pytest
from cosmic_ray.mutating import mutate_code

from roofline_core.paths import REPO_ROOT
from roofline_flows.python_mutation import OPERATORS, Target, load_table, mutants_of

SAMPLE = '''\
x = 1 + 2 * 3
def f(a, b):
    try:
        for item in a:
            if item is not None and item > b or not a:
                continue
            b -= item ** 2 // 3 % 5
    except (ValueError, KeyError.Sub):
        return -b
    while True:
        break
    return a[b] << 1 | b >> 2 & 3 ^ 4 if a != b else a <= b
y = f([1, 2], 0) == False
'''
# Small listed modules (seconds each), besides the sample.
LISTED = ("course/roofline_course/results.py", "cli/roofline_cli/place.py", "tb/roofline_bench/run.py")


def library_code(source: str, operator_name: str, occurrence: int) -> str | None:
    return mutate_code(source, cosmic_ray.plugins.get_operator(f"core/{operator_name}")(), occurrence)


@pytest.mark.parametrize("module", ["sample", *LISTED])
def test_every_mutant_is_the_one_cosmic_ray_makes_at_its_occurrence(module: str, tmp_path: Path) -> None:
    if module == "sample":
        (tmp_path / "sample.py").write_text(SAMPLE)
        target, root = Target("sample.py", ()), tmp_path
    else:
        target, root = next(entry for entry in load_table() if entry.path == module), REPO_ROOT
    source = (root / target.path).read_text()
    mutants = mutants_of(target, root)
    assert mutants, "no mutant made"
    for mutant in mutants:
        assert mutant.code == library_code(source, mutant.operator, mutant.occurrence), (mutant.operator, mutant.line)
    assert (root / target.path).read_text() == source  # nothing written


def test_the_sample_has_a_mutant_of_every_kind_that_drops_or_repositions_a_node(tmp_path: Path) -> None:
    (tmp_path / "sample.py").write_text(SAMPLE)
    made = {mutant.operator for mutant in mutants_of(Target("sample.py", ()), tmp_path)}
    assert {"ExceptionReplacer", "ZeroIterationForLoop", "ReplaceComparisonOperator_IsNot_Is", "AddNot",
            "ReplaceBreakWithContinue", "NumberReplacer", "ReplaceAndWithOr"} <= made
    assert made <= {name.removeprefix("core/") for name in OPERATORS}


def test_a_change_of_the_text_is_a_mutant_and_no_change_is_none(tmp_path: Path) -> None:
    """Every mutant differs from the module, and a module of nothing to mutate has no mutant."""
    (tmp_path / "sample.py").write_text(SAMPLE)
    assert all(mutant.code != SAMPLE for mutant in mutants_of(Target("sample.py", ()), tmp_path))
    (tmp_path / "plain.py").write_text('"""words only"""\n')
    assert mutants_of(Target("plain.py", ()), tmp_path) == []
