"""Two details of the platforms' reports (reports/platforms.py) that a student sees: JUnit's failure text
carries the student's text escaped (no escape sequence or bidi control reaches a CI viewer raw), and the
pictures go in visible groups first, so that a results file's size bound drops a hidden group's picture
before a visible one's."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from roofline_course.reports import platforms

HOSTILE = "assign \x1b[2K\x1b[1Ggraded: 100/100 \u202egnp.exe\x07"


def group(name: str, hidden: bool, detail: list[str], picture: str = "") -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "kind": "sim", "covers": "c", "weight": 10, "score": 5.0, "status": "partial",
            "scoring": "proportional", "detail": detail, "failing": [], "rerun": "", "log": "", "seconds": 1.0,
            "pictures": [{"test": "t", "caption": f"{name}'s picture", "svg": f"{picture}.svg", "png": f"{picture}.png"}]
            if picture else []}


def result(*groups: dict[str, Any]) -> dict[str, Any]:
    return {"schema": 1, "lab": 1, "title": "t", "top": "roofline_attainable", "submission": "s", "sim": "icarus",
            "status": "graded", "gradable": True, "score": 10.0, "max_score": 20, "stage": "ok", "problems": [],
            "warnings": [], "notes": [], "groups": list(groups), "seconds": 2.0}


def test_junits_failure_text_carries_the_students_text_escaped(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    platforms.junit(result(group("cases", False, [HOSTILE, "second line"])), path)
    raw = path.read_text()
    assert not any(ch in raw for ch in "\x1b\u202e\x07"), repr(raw)
    text = ET.parse(path).getroot().find(".//failure").text  # type: ignore[union-attr]
    assert text == "assign \\x1b[2K\\x1b[1Ggraded: 100/100 \\u202egnp.exe\\x07\nsecond line"


def test_the_pictures_go_in_visible_groups_first_whatever_the_groups_order(tmp_path: Path) -> None:
    for name in ("hidden", "visible"):
        (tmp_path / f"{name}.png").write_bytes(b"\x89PNG" + name.encode())
    found = platforms.pictures(result(group("H", True, [], "hidden"), group("V", False, [], "visible")), tmp_path)
    assert [name for name, _, _ in found] == ["V", "H"]
    found = platforms.pictures(result(group("V", False, [], "visible"), group("H", True, [], "hidden")), tmp_path)
    assert [name for name, _, _ in found] == ["V", "H"]
