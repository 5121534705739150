"""Which rows of docs/mutation.md are older than their module (make mutation ARGS=--stale), on a
throwaway git repository: a row is stale when its module or one of its test files changed after the
last commit that changed the row, committed or not, when it has no row, when its verdict is not ok,
or when it counts other mutants than the module's entry yields now."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from roofline_flows.python_mutation import DOC_END, DOC_START, MutationError, Target, stale_modules

MODULE = "pkg/unit.py"
OTHER = "pkg/unit_extra.py"  # a name that contains the first module's: its row must not count as the first's
TARGETS = [Target(MODULE, ("tests/test_unit.py", "-k", "fast")), Target(OTHER, ("tests/test_other.py::test_one",))]
WHAT_IS_MUTATED = "| module | what is mutated | the tests |\n| --- | --- | --- |\n"


# `x = 1` and `y = 1` have two mutants each (cosmic-ray's number replacer: the 1 moved up and down).
def row(module: str, seconds: int, mutants: int = 2, verdict: str = "ok") -> str:
    return f"| `{module}` | {mutants} | {mutants} | 0 | 0 | 0 | 100% | {seconds} s | {verdict} |"


def doc(*rows: str, listed: tuple[str, ...] = (MODULE, OTHER)) -> str:
    listing = "".join(f"| `{name}` | all: the unit | `tests/x.py` |\n" for name in listed)
    return f"{WHAT_IS_MUTATED}{listing}\n{DOC_START}\n| module | mutants |\n" + "\n".join(rows) + f"\n{DOC_END}\n"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def write(root: Path, files: dict[str, str], message: str | None = "change") -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    if message:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    write(tmp_path, {MODULE: "x = 1\n", OTHER: "y = 1\n", "tests/test_unit.py": "", "tests/test_other.py": "",
                     "README.md": ""}, "the code")
    write(tmp_path, {"docs/mutation.md": doc(row(MODULE, 5), row(OTHER, 6))}, "both rows measured")
    return tmp_path


def stale(root: Path) -> list[str]:
    return [target.path for target in stale_modules(TARGETS, root, root / "docs" / "mutation.md")]


def test_rows_measured_after_the_last_change_are_fresh(repo: Path) -> None:
    assert stale(repo) == []
    write(repo, {"README.md": "words"})  # a file no module's row depends on
    assert stale(repo) == []


@pytest.mark.parametrize("changed", [MODULE, "tests/test_unit.py"])
def test_a_change_to_the_module_or_its_tests_after_its_row_makes_that_row_stale(repo: Path, changed: str) -> None:
    write(repo, {changed: "x = 3\n"})
    assert stale(repo) == [MODULE]
    write(repo, {"docs/mutation.md": doc(row(MODULE, 7), row(OTHER, 6))}, "measured again")
    assert stale(repo) == []


def test_an_uncommitted_change_makes_its_row_stale(repo: Path) -> None:
    write(repo, {"tests/test_other.py": "edited\n"}, message=None)
    assert stale(repo) == [OTHER]
    write(repo, {"tests/new_helper.py": ""}, message=None)  # untracked, and no module's test: nothing more
    assert stale(repo) == [OTHER]


def test_the_other_table_of_the_docs_does_not_count_as_a_measured_row(repo: Path) -> None:
    """Regenerating the table of what is mutated (its row names the module too) measures nothing."""
    write(repo, {MODULE: "x = 2\n"})
    text = (repo / "docs" / "mutation.md").read_text()
    write(repo, {"docs/mutation.md": text.replace("all: the unit", "all: the unit, described anew")}, "docs regenerated")
    assert stale(repo) == [MODULE]


def test_a_module_without_a_row_is_stale(repo: Path) -> None:
    write(repo, {"docs/mutation.md": doc(row(OTHER, 6))}, "one row left")
    assert stale(repo) == [MODULE]


def test_outside_a_git_checkout_it_says_so(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "mutation.md").write_text(doc(row(MODULE, 5)))
    with pytest.raises(MutationError, match="cannot tell which rows"):
        stale_modules(TARGETS, tmp_path, tmp_path / "docs" / "mutation.md")


@pytest.mark.parametrize("verdict", ["BELOW", "incomplete", "ERROR"])
def test_a_row_committed_with_a_failing_verdict_is_stale(repo: Path, verdict: str) -> None:
    """CI reruns it (and fails while it still fails) rather than take the committed row as measured."""
    write(repo, {"docs/mutation.md": doc(row(MODULE, 5, verdict=verdict), row(OTHER, 6))}, "a failing row")
    assert stale(repo) == [MODULE]


@pytest.mark.parametrize("mutants", [1, 3])
def test_a_row_over_other_mutants_than_the_entry_yields_now_is_stale(repo: Path, mutants: int) -> None:
    """The module and its tests are as they were, but the functions its entry names changed."""
    write(repo, {"docs/mutation.md": doc(row(MODULE, 5), row(OTHER, 6, mutants=mutants))}, "another count")
    assert stale(repo) == [OTHER]
