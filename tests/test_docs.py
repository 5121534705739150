"""The documentation cannot drift: generated tables are current, links resolve, the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_flows import docs

PAGES = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "labs" / "README.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


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


def test_the_readme_is_short_and_names_every_folder() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 10 * 1024
    folders = [p.name for p in REPO_ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
               and p.name != "build" and not p.name.endswith(".egg-info")]
    for folder in folders:
        assert f"`{folder}/" in readme, f"the README's layout table does not mention {folder}/"
