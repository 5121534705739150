"""The documentation cannot drift: generated tables are current, links resolve, the README stays short."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest
from places import HOSTILE_DIR

from roofline_core.paths import REPO_ROOT
from roofline_flows import docs

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "labs" / "README.md",
         REPO_ROOT / "labs" / "STUDENTS.md", REPO_ROOT / "tests" / "testbenches" / "README.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
TOP_FOLDERS = ("rtl", "tb", "core", "course", "flows", "model", "cli", "tests", "labs", "benchmark", "docs", "examples")
# A path of the checkout in a code span: `course/roofline_course/sandbox/run.py`, `tests/hostile/`, `flows/formal/x.sv:12`
PATH_SPAN = re.compile(r"`((?:" + "|".join(TOP_FOLDERS) + r")/[^`\s]*)`")
MODULE_SPAN = re.compile(r"`((?:roofline_golden|roofline_core|roofline_bench|roofline_cocotb|roofline_bulk|roofline_flows"
                         r"|roofline_course|roofline_cli)(?:\.\w+)*)`")


def test_every_generated_table_is_current() -> None:
    pages = sorted(docs.DOCS_DIR.glob("*.md"))
    stale = [page.name for page in pages if docs.regenerate(page.read_text(), page) != page.read_text()]
    assert not stale, f"run make docs: stale tables in {stale}"


def test_a_stale_table_is_found_and_rewritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "page.md"
    page.write_text("intro\n<!-- generated: cases -->\n| old | table |\n<!-- end generated -->\nafter\n")
    monkeypatch.setattr(docs, "DOCS_DIR", tmp_path)
    monkeypatch.setattr(docs, "SYNTH_RESULTS", tmp_path / "synth.json")  # a local make synth stays out of the repo
    assert docs.main(["--check"]) == 1
    assert docs.main([]) == 0 and docs.main(["--check"]) == 0
    text = page.read_text()
    assert "| old | table |" not in text and "Calculator check 1" in text and text.endswith("after\n")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    for target in LINK.findall(page.read_text()):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{page.relative_to(REPO_ROOT)} links to {target}, which does not exist"


def named_path(span: str) -> str | None:
    """The file or folder a code span names, or None for a pattern (`labs/labN/`, `tests/<part>/`, `*.sv`)."""
    if re.search(r"[<>*{}]|labN|\.\.\.", span):
        return None
    return re.split(r"::|:\d", span)[0].rstrip("/.,;:")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_every_path_and_module_a_page_names_exists(page: Path) -> None:
    """A map that names a file, folder or module that has moved is stale: every `path/` of the checkout and
    every `roofline_*.module.name` in a page's code spans must exist (a module, or a name in one)."""
    text = page.read_text()
    missing = [span for span in PATH_SPAN.findall(text) if (path := named_path(span)) and not (REPO_ROOT / path).exists()]
    for dotted in MODULE_SPAN.findall(text):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attribute in parts[cut:]:
                    found = getattr(found, attribute)
            except AttributeError:
                missing.append(dotted)
            break
        else:
            missing.append(dotted)
    assert not missing, f"{page.relative_to(REPO_ROOT)} names what does not exist: {sorted(set(missing))}"


def test_the_readme_is_short_and_names_every_folder() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 10 * 1024
    folders = [p.name for p in REPO_ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
               and p.name != "build" and not p.name.endswith(".egg-info")]
    for folder in folders:
        assert f"`{folder}/" in readme, f"the README's layout table does not mention {folder}/"


TEST_REFERENCE = re.compile(r"`(tests/(?:\w+/)*test_\w+\.py)((?:::\w+(?:\[[^\]`]*\])?)?)`|`::(\w+)`")


def test_every_test_the_threat_model_names_exists() -> None:
    """Each row of docs/threat-model.md names the tests that fail without its mitigation: they must exist."""
    page = (REPO_ROOT / "docs" / "threat-model.md").read_text()
    named, current, missing = 0, "", []
    for file, test, bare in TEST_REFERENCE.findall(page):
        current = file or current
        name = (test or f"::{bare}").removeprefix("::").split("[")[0]
        if not name:  # a whole file named
            missing += [] if (REPO_ROOT / current).is_file() else [current]
            continue
        named += 1
        if not re.search(rf"^def {name}\(", (REPO_ROOT / current).read_text(), re.M):
            missing.append(f"{current}::{name}")
    assert named >= 13 and not missing, missing
    cases = tomllib.loads((HOSTILE_DIR / "cases.toml").read_text())
    assert all("class" in case for case in cases.values()), "every hostile case names its attack class"
