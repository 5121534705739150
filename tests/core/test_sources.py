"""The drop-in rule: a given file replaces the project's file of the same module name."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_core.paths import RTL_DIR
from roofline_core.sources import DropInError, rtl_sources


def test_project_sources_by_default() -> None:
    names = {p.name for p in rtl_sources(None)}
    assert {"roofline_attainable.sv", "roofline_hierarchy.sv", "roofline_intensity.sv"} <= names


def test_a_file_replaces_its_namesake_and_the_rest_stays(tmp_path: Path) -> None:
    mine = tmp_path / "roofline_attainable.v"
    mine.write_text("module roofline_attainable; endmodule\n")
    sources = rtl_sources(str(mine))
    assert mine.resolve() in sources
    assert RTL_DIR / "roofline_attainable.sv" not in sources
    assert RTL_DIR / "roofline_hierarchy.sv" in sources


def test_a_folder_drops_in_each_of_its_files(tmp_path: Path) -> None:
    (tmp_path / "roofline_intensity.sv").write_text("module roofline_intensity; endmodule\n")
    (tmp_path / "my_helper.sv").write_text("module my_helper; endmodule\n")
    names = {p.name: p for p in rtl_sources(str(tmp_path))}
    assert names["roofline_intensity.sv"].parent == tmp_path.resolve()
    assert "my_helper.sv" in names


def test_missing_or_wrong_paths_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(DropInError, match="no such file or folder"):
        rtl_sources(str(tmp_path / "missing.sv"))
    with pytest.raises(DropInError, match="holds no .sv or .v file"):
        rtl_sources(str(tmp_path))
    text = tmp_path / "notes.txt"
    text.write_text("x")
    with pytest.raises(DropInError, match="not a .sv or .v file"):
        rtl_sources(str(text))
