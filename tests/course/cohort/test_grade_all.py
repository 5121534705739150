"""grade-all over a class that holds every bad entry: each gets a row, the dashboard is written and
agrees with scores.csv, student text is harmless where it lands, lateness comes only from the
platform, and the class keeps one time limit.

Grading real submissions takes seconds each, so the class here is graded by tests/support/fake_grader.py:
the same command line and result.json keys as `make grade`, staging with the grader's own intake.
One end-to-end run with the real grader and sandbox is in the full tier.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import fake_grader
import pytest
from once_per_run import once_per_run
from places import SUPPORT_DIR
from real_grading import needs_sandbox

from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_course.cohort import calibration, dashboard, grade_all, similarity, table
from roofline_course.cohort import lateness as late
from roofline_course.labs.definitions import load_lab
from roofline_course.reports.neutralise import one_line, printable, spreadsheet_cell

LAB1_FILES = ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")
FAKE_GRADER = SUPPORT_DIR / "fake_grader.py"
DUE = "2026-11-01T23:59:00+00:00"
LAB = load_lab(1)
PORTS, CASES = LAB.groups[0].name, LAB.groups[1].name
NON_UTF8 = b"caf\xe9"  # Latin-1 'café': not valid UTF-8
ANSI_NAME = "\x1b[2K\x1b[1Gkim: full marks"
HTML_NAME = "<img src=x onerror=alert(1)>"
UNSCORED = ("not graded", "grader error", "grader timeout")  # the dashboard's documented rule
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def reference_text() -> str:
    return "".join((RTL_DIR / name).read_text() for name in LAB1_FILES)


def submission(room: Path, name: str | bytes, verdict: dict[str, Any] | None = None, text: str | None = None) -> Path:
    """A folder submission; its fake-result comment tells the fake grader what to report."""
    folder = Path(os.fsdecode(os.fsencode(room) + b"/" + (name if isinstance(name, bytes) else os.fsencode(name))))
    folder.mkdir()
    comment = f"\n// fake-result: {json.dumps(verdict)}\n" if verdict else ""
    (folder / "roofline_attainable.sv").write_text((text or reference_text()) + comment)
    return folder


def deep_folder(root: Path, depth_bytes: int = 5000) -> Path:
    """A submission whose design sits deeper than PATH_MAX (4096 bytes), made with relative mkdirs."""
    root.mkdir()
    parent = os.open(root, os.O_DIRECTORY)
    part = "d" * 200
    for _ in range(depth_bytes // (len(part) + 1) + 1):
        os.mkdir(part, dir_fd=parent)
        child = os.open(part, os.O_DIRECTORY, dir_fd=parent)
        os.close(parent)
        parent = child
    handle = os.open("roofline_attainable.sv", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=parent)
    os.write(handle, reference_text().encode())
    os.close(handle)
    os.close(parent)
    return root


def every_bad_entry(room: Path) -> None:
    """One class holding every entry that has broken grade-all, and every kind of problem."""
    room.mkdir()
    submission(room, "ana")
    submission(room, NON_UTF8, {"groups": {CASES: {"score": 20.0, "status": "partial", "detail": ["3 failed"],
                                                   "failing": ["test_document_cases: ridge.3"]}}})
    submission(room, "=SUM(A1:A9)", {"zero": True, "status": "compile error",
                                     "problems": ["roofline_attainable.sv:3: syntax error\n      | assign = ;"]})
    submission(room, "+1+cmd", {"zero": True, "status": "missing port", "problems": ["port cap_o is missing"]})
    submission(room, "-2+3", {"zero": True, "status": "not allowed",
                              "problems": ["roofline_attainable.sv:9: $fopen reaches files"]})
    submission(room, "@here", {"groups": {CASES: {"score": 0.0, "status": "timeout", "detail": ["TIMEOUT"]}}})
    submission(room, ANSI_NAME, {"zero": True, "status": "compile error",
                                 "problems": ["roofline_attainable.sv:4: syntax error\n      | \x1b[32mgraded: 100/100\x1b[0m"]})
    submission(room, HTML_NAME, {"raw": json.dumps({"score": 100})})
    submission(room, "two\nlines\r")
    submission(room, "stops", {"exit": 3})
    submission(room, "nested-result", {"deep": 100_000})
    submission(room, "inconsistent", {"score": 100.0, "groups": {PORTS: {"score": 0.0, "status": "fail"}}})
    own = submission(room, "own-metadata")
    (own / "submission_metadata.json").write_text(json.dumps({"created_at": "2026-11-09T10:00:00+00:00",
                                                              "assignment": {"due_date": DUE}}))
    (own / "nested.json").write_text("[" * 100_000 + "]" * 100_000)
    submission(room, "zoe-late")
    submission(room, "naive-time")
    submission(room, "nested-time")
    deep_folder(room / "deep")
    with zipfile.ZipFile(room / "copy.zip", "w") as bundle:
        bundle.writestr("roofline_attainable.sv", (room / "ana" / "roofline_attainable.sv").read_text())
    (room / ".hidden").mkdir()
    (room / "notes.txt").write_text("not a submission")
    (room / late.EXPORT_METADATA).write_text(
        "submission_ana:\n  :created_at: 2026-11-01 20:00:00.000000000 +00:00\n"
        "ana:\n  :submitters:\n  - :name: Ana\n    :sid: '17'\n  :created_at: 2026-11-01 20:00:00.000000000 +00:00\n"
        "own-metadata:\n  :created_at: 2026-11-01 22:00:00 +00:00\n"
        "zoe-late:\n  :created_at: 2026-11-04 10:00:00 +00:00\n"
        "naive-time:\n  :created_at: 2026-11-04 10:00:00\n"
        "nested-time:\n  :created_at: " + "[" * 50 + "]" * 50 + "\n")


FULL_MARKS = fake_grader.full_marks(1)


def result_document(verdict: dict[str, Any] | None = None) -> dict[str, Any]:
    return fake_grader.result_document(FULL_MARKS, verdict)


def run_grade_all(monkeypatch: pytest.MonkeyPatch, scratch: Path, *args: str) -> int:
    """grade_all.main with the fake grader, which reads its full-marks template from `scratch`."""
    template = scratch / "fake-grader-template.json"
    template.write_text(json.dumps(FULL_MARKS))
    monkeypatch.setenv(fake_grader.TEMPLATE, str(template))
    monkeypatch.setattr(grade_all, "GRADER", (str(FAKE_GRADER),))
    return grade_all.main(["--lab", "1", "--unsafe-no-sandbox", "--jobs", "2", *args])


# A session fixture, graded once per run (tests/support/once_per_run.py): xdist interleaves files on a
# worker, and a module fixture is rebuilt at each return; each worker grading the class again cost 6 s.
@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The class above, graded once (the fake grader, a second or two); what each test reads."""
    found = once_per_run(tmp_path_factory, "graded-class", grade_the_class)
    rows = found["rows"]
    return {**found, "room": Path(found["room"]), "out": Path(found["out"]),
            "by_name": {row["submission"]: row for row in rows}}


def grade_the_class(root: Path) -> dict[str, Any]:
    room, out = root / "room", root / "out"
    every_bad_entry(room)
    monkeypatch = pytest.MonkeyPatch()
    capture = root / "terminal.txt"
    stdout = sys.stdout
    try:
        with capture.open("w", encoding="utf-8") as sys.stdout:  # strict: a raw byte that was not UTF-8 fails
            status = run_grade_all(monkeypatch, root, "--submissions", str(room), "--out", str(out), "--due", DUE,
                                   "--late-penalty", "10")
    finally:
        sys.stdout = stdout
        monkeypatch.undo()
    with (out / "scores.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {"room": str(room), "out": str(out), "status": status, "rows": rows, "terminal": capture.read_text(),
            "page": (out / "dashboard.html").read_text()}


# ---------------------------------------------------------------- every entry gets a row


def test_every_entry_gets_a_row_and_the_dashboard_is_written(graded_class: dict[str, Any]) -> None:
    assert graded_class["status"] == 0, graded_class["terminal"]
    names = sorted(os.fsencode(name) for name in os.listdir(graded_class["room"]) if name != late.EXPORT_METADATA)
    assert len(graded_class["rows"]) == len(names) == 20
    shown = {row["submission"] for row in graded_class["rows"]}
    assert {"caf\\xe9", "'=SUM(A1:A9)", "'+1+cmd", "'-2+3", "'@here", "\\x1b[2K\\x1b[1Gkim: full marks",
            HTML_NAME, "two\\x0alines\\x0d", "deep", "copy.zip", ".hidden", "notes.txt"} <= shown, shown
    assert len({row["id"] for row in graded_class["rows"]}) == len(names)
    assert (graded_class["out"] / "dashboard.html").stat().st_size > 0


@pytest.mark.parametrize(("name", "status", "problem"), [
    ("ana", "graded", ""),
    ("caf\\xe9", "graded", "3 failed"),
    ("'=SUM(A1:A9)", "compile error", "roofline_attainable.sv:3: syntax error / | assign = ;"),
    (HTML_NAME, "grader error", "status is not a string"),
    ("stops", "grader error", "exit 3: the fake grader stops as asked"),
    ("nested-result", "grader error", "result.json: unreadable (RecursionError)"),
    ("inconsistent", "grader error", "score 100 is not the sum of its groups' scores"),
    ("notes.txt", "not graded", "not a folder"),
    (".hidden", "not graded", "dot"),
])
def test_a_failure_in_one_entry_is_that_rows_status(graded_class: dict[str, Any], name: str, status: str,
                                                    problem: str) -> None:
    row = graded_class["by_name"][name]
    assert row["status"] == status and problem in row["first problem"], row


def test_an_exception_grading_one_entry_is_its_row_not_the_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    room = tmp_path / "room"
    room.mkdir()
    for name in ("ana", "breaks", "zed"):
        submission(room, name)
    real = grade_all.grade_one

    def breaks_on_one(lab: Any, entry: Path, *args: Any) -> table.Graded:
        if entry.name == "breaks":
            raise OSError(36, "File name too long")
        return real(lab, entry, *args)

    monkeypatch.setattr(grade_all, "grade_one", breaks_on_one)
    assert run_grade_all(monkeypatch, tmp_path, "--submissions", str(room), "--out", str(tmp_path / "out"),
                         "--timeout", "10") == 0
    with (tmp_path / "out" / "scores.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    assert (rows["ana"]["status"], rows["zed"]["status"]) == ("graded", "graded")
    assert rows["breaks"]["status"] == "grader error" and "File name too long" in rows["breaks"]["first problem"]
    assert (tmp_path / "out" / "dashboard.html").exists()


# ---------------------------------------------------------------- every form make check takes


def test_a_testbench_lab_takes_every_form_make_check_takes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lab 6, as the handout and `make check` take a testbench: one test_*.py file, a folder, a .zip. A design
    lab's forms are not a testbench's, and lab 1 takes no .py entry."""
    room = tmp_path / "room"
    room.mkdir()
    verdict = "# fake-result: " + json.dumps({"groups": {"example bugs": {"score": 5.0, "status": "partial"}}}) + "\n"
    (room / "test_one_file.py").write_text("import cocotb\n" + verdict)
    (room / "folder" / "tb").mkdir(parents=True)
    (room / "folder" / "tb" / "test_unit.py").write_text("import helpers\n")
    (room / "folder" / "tb" / "helpers.py").write_text("")
    with zipfile.ZipFile(room / "zipped.zip", "w") as bundle:
        bundle.writestr("test_zipped.py", "import cocotb\n")
    (room / "design.sv").write_text(reference_text())
    (room / "helpers_only.py").write_text("")
    template = tmp_path / "fake-grader-template.json"
    template.write_text(json.dumps(fake_grader.full_marks(6)))
    monkeypatch.setenv(fake_grader.TEMPLATE, str(template))
    monkeypatch.setattr(grade_all, "GRADER", (str(FAKE_GRADER),))
    out = tmp_path / "out"
    assert grade_all.main(["--lab", "6", "--unsafe-no-sandbox", "--jobs", "2", "--submissions", str(room),
                           "--out", str(out)]) == 0
    rows = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    found = {name: (row["status"], float(row["score"] or 0)) for name, row in rows.items()}
    assert found == {"test_one_file.py": ("graded", 85.0), "folder": ("graded", 100.0), "zipped.zip": ("graded", 100.0),
                     "design.sv": ("not graded", 0.0), "helpers_only.py": ("no files", 0.0)}, found
    assert "not a folder, .py or .zip file (.sv)" in rows["design.sv"]["first problem"]
    assert "no test module" in rows["helpers_only.py"]["first problem"]
    staged = {name: sorted(str(p.relative_to(folder / "submission")) for p in (folder / "submission").rglob("*.py"))
              for name in ("test_one_file.py", "folder", "zipped.zip")
              for folder in (out / "runs").glob(f"*/{table.entry_id(name)}")}
    assert staged == {"test_one_file.py": ["test_one_file.py"], "folder": ["tb/helpers.py", "tb/test_unit.py"],
                      "zipped.zip": ["test_zipped.py"]}, staged
    lab1 = load_lab(1)
    assert grade_all.not_gradable(room / "test_one_file.py", lab1) == "not a folder, .sv, .v or .zip file (.py): not graded"
    assert grade_all.not_gradable(room / "design.sv", lab1) is None


# ---------------------------------------------------------------- student text, neutralised where it lands


def test_no_csv_cell_is_a_formula_or_holds_a_control_character(graded_class: dict[str, Any]) -> None:
    for row in graded_class["rows"]:
        for column, cell in row.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)
            assert not CONTROL.search(cell), (column, cell)
    raw = (graded_class["out"] / "scores.csv").read_text(encoding="utf-8")
    assert raw.count("\n") == len(graded_class["rows"]) + 1, "a cell holds a line break"


def test_the_terminal_gets_no_escape_and_no_raw_byte(graded_class: dict[str, Any]) -> None:
    terminal = graded_class["terminal"]
    assert not CONTROL.search(terminal.replace("\n", "")), repr(terminal)
    assert "\\x1b[2K\\x1b[1Gkim: full marks" in terminal and "caf\\xe9" in terminal
    assert "\\x1b[32mgraded: 100/100\\x1b[0m" in terminal  # a compile error quoting an escape, shown as text


def test_the_dashboard_escapes_html_and_shows_names_as_the_csv_does(graded_class: dict[str, Any]) -> None:
    page = graded_class["page"]
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "\x1b" not in page and "caf\\xe9" in page and "=SUM(A1:A9)" in page
    assert "<script" not in page


# ---------------------------------------------------------------- the dashboard agrees with itself and scores.csv


class Numbers(HTMLParser):
    """The numbers the dashboard marks with data-* attributes, and each student row's score cell."""

    def __init__(self) -> None:
        super().__init__()
        self.stats: dict[str, str] = {}
        self.statuses: dict[str, int] = {}
        self.buckets: dict[str, int] = {}
        self.kinds: dict[str, int] = {}
        self.scores: dict[str, str] = {}
        self._into: tuple[str, str] | None = None
        self._row = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "rect" and "data-bucket" in found:
            self.buckets[str(found["data-bucket"])] = int(str(found["data-count"]))
        if tag == "tr" and "data-id" in found:
            self._row = str(found["data-id"])
        for key in ("data-stat", "data-status", "data-kind"):
            if key in found:
                self._into = (key, str(found[key]))
        if tag == "td" and "score" in (found.get("class") or "").split():
            self._into = ("score", self._row)

    def handle_data(self, data: str) -> None:
        if self._into is None:
            return
        key, name = self._into
        self._into = None
        if key == "data-stat":
            self.stats[name] = data.strip()
        elif key == "data-status":
            self.statuses[name] = int(data)
        elif key == "data-kind":
            self.kinds[name] = int(data)
        else:
            self.scores[name] = data.strip()


def expected_bucket(final: float, max_score: float) -> str:
    """The documented buckets: full marks alone in '100', below it tens of percent ('90–99' holds 99.9)."""
    if final >= max_score:
        return "100"
    low = int(100 * final / max_score) // 10 * 10
    return f"{low}–{low + 9}"


def test_the_dashboards_numbers_agree_with_scores_csv(graded_class: dict[str, Any]) -> None:
    rows, numbers = graded_class["rows"], Numbers()
    numbers.feed(graded_class["page"])
    scored = [row for row in rows if row["status"] not in UNSCORED]
    assert int(numbers.stats["entries"]) == len(rows) == sum(numbers.statuses.values())
    assert numbers.statuses == dict(Counter(row["status"] for row in rows))
    assert int(numbers.stats["scored"]) == len(scored) and int(numbers.stats["unscored"]) == len(rows) - len(scored)
    finals = [float(row["final_score"]) for row in scored]
    assert numbers.stats["mean"] == f"{sum(finals) / len(finals):.1f}%"  # lab 1's max is 100: percent = points
    buckets = Counter(expected_bucket(float(row["final_score"]), float(row["max_score"])) for row in scored)
    assert set(numbers.buckets) == {f"{low}–{low + 9}" for low in range(0, 100, 10)} | {"100"}
    assert {label: count for label, count in numbers.buckets.items() if count} == dict(buckets)
    assert numbers.buckets["100"] == sum(1 for row in scored if float(row["final_score"]) == 100)
    for row in rows:
        expected = f"{float(row['final_score']):.1f}/100" if row["status"] not in UNSCORED else "-"
        assert numbers.scores[row["id"]] == expected, row
    assert len({re.sub(r"[\d.]+", "N", score) for score in numbers.scores.values() if score != "-"}) == 1


def test_the_most_common_problems_cover_every_kind(graded_class: dict[str, Any]) -> None:
    numbers = Numbers()
    numbers.feed(graded_class["page"])
    assert numbers.kinds["compile error"] == 2 and numbers.kinds["missing port"] == 1
    assert numbers.kinds["not allowed"] == 1 and numbers.kinds["timeout"] == 1
    assert numbers.kinds["value failure"] == 1 and numbers.kinds["grader error"] == 4
    assert "test_document_cases: ridge.3 (1)" in graded_class["page"]
    assert "syntax error (2)" in graded_class["page"], "compile errors are not grouped by message"


def test_a_kind_no_student_has_is_still_listed() -> None:
    rows = {"a": make_row("a", table.Graded("graded", 100.0, groups={g.name: g.weight for g in LAB.groups}))}
    page = dashboard.render(LAB, rows, similarity.Similarity())
    numbers = Numbers()
    numbers.feed(page)
    assert numbers.kinds == {kind: 0 for kind in ("compile error", "not allowed", "missing port", "timeout",
                                                  "value failure")}
    assert numbers.buckets["100"] == 1 and numbers.buckets["90–99"] == 0


def make_row(name: str, graded: table.Graded, lateness: late.Lateness = late.ON_TIME) -> dict[str, Any]:
    return table.make_row(LAB, name, graded, lateness, "", 10.0)


@pytest.mark.parametrize("status", UNSCORED)
def test_an_entry_the_grader_gave_no_score_stays_out_of_every_number(status: str) -> None:
    """One student with full marks and one the grader could not score: the class's mean, histogram and
    full-marks rates are the first one's alone, and the second shows "-", never 0/100."""
    rows = {"a": make_row("a", table.Graded("graded", 100.0, groups={g.name: g.weight for g in LAB.groups})),
            "b": make_row("b", table.Graded(status))}
    found = dashboard.summary(LAB, rows, similarity.Similarity())
    assert (found["scored"], found["unscored"], found["mean"]) == (1, 1, "100.0%")
    assert {rate["rate"] for rate in found["rates"]} <= {"100%", "not scored"}
    numbers = Numbers()
    numbers.feed(dashboard.render(LAB, rows, similarity.Similarity()))
    assert numbers.scores[rows["b"]["id"]] == "-" and numbers.scores[rows["a"]["id"]] == "100.0/100"
    assert numbers.buckets["100"] == 1 and numbers.buckets["0–9"] == 0
    assert numbers.statuses == {"graded": 1, status: 1}


@pytest.mark.parametrize(("final", "label"), [(100.0, "100"), (99.99, "90–99"), (90.0, "90–99"), (89.9, "80–89"),
                                              (0.0, "0–9")])
def test_full_marks_have_a_bucket_of_their_own(final: float, label: str) -> None:
    assert dashboard.BUCKETS[dashboard.bucket(final, 100.0)] == label


# ---------------------------------------------------------------- similarity


def test_a_zipped_copy_is_compared_from_the_staged_files(graded_class: dict[str, Any]) -> None:
    with (graded_class["out"] / dashboard.PAIRS_FILE).open(newline="", encoding="utf-8") as handle:
        pairs = list(csv.reader(handle))[1:]
    assert ["ana", "copy.zip"] in [pair[2:] for pair in pairs if pair[0] == "100%"], pairs
    assert len(pairs) > dashboard.PAIRS_SHOWN  # most of this class are copies of the reference
    assert re.search(rf"Showing the <span[^>]*>{dashboard.PAIRS_SHOWN}</span>\s*most similar of <span[^>]*>{len(pairs)}"
                     r"</span> pairs", graded_class["page"])


def test_a_cut_similarity_list_says_so(tmp_path: Path) -> None:
    rows = {f"s{i}": {**make_row(f"s{i:02d}", table.Graded("graded", 100.0)), "id": f"s{i}"} for i in range(9)}
    pairs = [similarity.Pair(0.9, 100, f"s{i}", f"s{j}") for i in range(9) for j in range(i + 1, 9)][:30]
    found = similarity.Similarity(pairs=pairs, compared=sorted(rows))
    page = dashboard.render(LAB, rows, found)
    assert re.search(r"Showing the <span[^>]*>25</span>\s*most similar of <span[^>]*>30</span> pairs", page)
    dashboard.write_pairs(tmp_path / "all.csv", rows, found)
    assert len((tmp_path / "all.csv").read_text().splitlines()) == 31
    shown = similarity.Similarity(pairs=pairs[:3], compared=sorted(rows))
    assert "All <span data-stat=\"pairs-found\">3</span> pairs" in dashboard.render(LAB, rows, shown)


def staged(folder: Path, text: str) -> str:
    (folder / similarity.STAGED).mkdir(parents=True)
    (folder / similarity.STAGED / "design.sv").write_text(text)
    return str(folder)


def test_similarity_reads_only_staged_files_within_the_size_limit(tmp_path: Path) -> None:
    design = reference_text()
    folders = {"a": staged(tmp_path / "a", design), "b": staged(tmp_path / "b", design),
               "big": staged(tmp_path / "big", design + "//" + "x" * similarity.MAX_SUBMISSION_BYTES),
               "empty": str(tmp_path / "empty")}
    outside = tmp_path / "outside.sv"
    outside.write_text(design)
    (tmp_path / "empty" / similarity.STAGED).mkdir(parents=True)
    (tmp_path / "empty" / similarity.STAGED / "link.sv").symlink_to(outside)
    found = similarity.similarity(folders, LAB.starter)
    assert [(round(pair.share, 2), pair.first, pair.second) for pair in found.pairs] == [(1.0, "a", "b")]
    assert dict(found.left_out) == {"big": f"its staged files exceed {similarity.MAX_SUBMISSION_BYTES >> 20} MiB",
                                    "empty": "no staged design files"}


def test_among_equal_shares_more_shared_code_comes_first(tmp_path: Path) -> None:
    small = "module helper(input logic [7:0] a_i, b_i, output logic [8:0] s_o);\n" + "".join(
        f"  wire [8:0] t{i} = a_i + b_i + 9'd{i};\n" for i in range(12)) + "  assign s_o = t11;\nendmodule\n"
    folders = {"a": staged(tmp_path / "a", small), "b": staged(tmp_path / "b", small),
               "y": staged(tmp_path / "y", reference_text()), "z": staged(tmp_path / "z", reference_text())}
    found = similarity.similarity(folders, LAB.starter)
    assert [(pair.first, pair.second) for pair in found.pairs] == [("y", "z"), ("a", "b")], found.pairs
    assert found.pairs[0].share == found.pairs[1].share == 1.0 and found.pairs[0].tokens > found.pairs[1].tokens


# ---------------------------------------------------------------- lateness: the platform's record only


def test_lateness_comes_from_the_platforms_export_only(graded_class: dict[str, Any]) -> None:
    by_name = graded_class["by_name"]
    assert (by_name["zoe-late"]["late_days"], by_name["zoe-late"]["late_penalty"]) == ("3", "30")
    assert by_name["zoe-late"]["final_score"] == "70" and by_name["zoe-late"]["score"] == "100"
    assert (by_name["own-metadata"]["late_days"], by_name["own-metadata"]["final_score"]) == ("0", "100")
    assert by_name["ana"]["submitters"] == "Ana (17)"
    assert "no time zone" in by_name["naive-time"]["late_days"] and by_name["naive-time"]["final_score"] == "100"
    assert "not a time" in by_name["nested-time"]["late_days"]
    assert by_name["copy.zip"]["late_days"] == "" and by_name["copy.zip"]["late_penalty"] == "0"


@pytest.mark.parametrize(("created", "days"), [("2026-11-01T23:59:00+00:00", 0), ("2026-11-02T00:00:01+00:00", 1),
                                               ("2026-11-01T19:00:01-05:00", 1), ("2026-10-01T00:00:00+00:00", 0)])
def test_days_late_count_each_day_begun(created: str, days: int) -> None:
    policy = late.Policy(10.0, None, late.parse_time(DUE, "DUE="))
    assert policy.lateness({":created_at": created}).days == days


def test_a_naive_due_date_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "room").mkdir()
    submission(tmp_path / "room", "ana")
    status = run_grade_all(monkeypatch, tmp_path, "--submissions", str(tmp_path / "room"), "--out", str(tmp_path / "out"),
                           "--due", "2026-11-01T23:59:00", "--late-penalty", "10")
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1 and "no time zone" in error, error


@pytest.mark.parametrize("content", ["[" * 100_000 + "]" * 100_000, "- just a list\n", "{unclosed: [\n"])
def test_unreadable_platform_metadata_is_one_line_before_any_grading(tmp_path: Path, content: str,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "room").mkdir()
    submission(tmp_path / "room", "ana")
    (tmp_path / "room" / late.EXPORT_METADATA).write_text(content)
    status = run_grade_all(monkeypatch, tmp_path, "--submissions", str(tmp_path / "room"), "--out", str(tmp_path / "out"),
                           "--due", DUE)
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1 and late.EXPORT_METADATA in error, error
    assert not (tmp_path / "out" / "runs").exists()


def test_huge_platform_metadata_is_refused_unread(tmp_path: Path) -> None:
    huge = tmp_path / late.EXPORT_METADATA
    with huge.open("wb") as handle:
        handle.truncate(late.MAX_METADATA_BYTES + 1)  # sparse: no disk used
    with pytest.raises(late.MetadataError, match="larger than"):
        late.load_export(huge)


# ---------------------------------------------------------------- one time limit per class


class Reference:
    """A stand-in for grading the reference: counts its calls, reports the given slowest simulation."""

    def __init__(self, tmp_path: Path, seconds: float, score: float = 100.0) -> None:
        self.calls = 0
        self.result = tmp_path / "reference.json"
        self.result.write_text(json.dumps(result_document({"groups": {PORTS: {"seconds": seconds}}})))
        self.score = score

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return {"score": self.score, "result": str(self.result)}


def limit(out: Path, reference: Reference, given: float | None = None, regrade: bool = False,
          sim: str = "icarus") -> calibration.TimeLimit:
    return calibration.class_limit(out, sim, given, regrade, 60.0, 100.0, True, reference)


def test_the_class_is_calibrated_once_and_a_regrade_uses_the_record(tmp_path: Path) -> None:
    reference = Reference(tmp_path, 4.4)
    first = limit(tmp_path, reference)
    assert first.seconds == 22.0 and reference.calls == 1  # 5 x 4.4 s
    reference.result.write_text(json.dumps(result_document({"groups": {PORTS: {"seconds": 9.0}}})))  # a loaded machine
    assert limit(tmp_path, reference, regrade=True).seconds == 22.0
    assert limit(tmp_path, reference).seconds == 22.0 and reference.calls == 1
    assert json.loads((tmp_path / calibration.RECORD).read_text())["icarus"]["seconds"] == 22.0
    assert limit(tmp_path, reference, sim="verilator").seconds == 45.0 and reference.calls == 2  # its own limit


def test_timeout_sets_the_class_limit_and_a_regrade_cannot_change_it(tmp_path: Path) -> None:
    reference = Reference(tmp_path, 4.4)
    assert limit(tmp_path, reference, given=30.0).seconds == 30.0 and reference.calls == 0
    assert limit(tmp_path, reference, regrade=True).seconds == 30.0
    assert limit(tmp_path, reference, given=30.0, regrade=True).seconds == 30.0
    with pytest.raises(calibration.CalibrationError, match="the class was graded under 30 s"):
        limit(tmp_path, reference, given=12.0, regrade=True)


def test_a_reference_short_of_full_marks_keeps_the_labs_limit(tmp_path: Path) -> None:
    chosen = limit(tmp_path, Reference(tmp_path, 4.4, score=90.0))
    assert chosen.seconds == 60.0 and "scored 90" in chosen.source


def test_a_student_regrade_uses_the_recorded_limit_and_leaves_the_other_rows(graded_class: dict[str, Any],
                                                                             monkeypatch: pytest.MonkeyPatch,
                                                                             tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(graded_class["out"], out)
    recorded = json.loads((out / calibration.RECORD).read_text())["icarus"]["seconds"]
    assert all(row["time_limit_s"] == f"{recorded:g}" for row in graded_class["rows"])
    runs = set((out / "runs").iterdir())
    status = run_grade_all(monkeypatch, tmp_path, "--submissions", str(graded_class["room"]), "--out", str(out),
                           "--due", DUE, "--late-penalty", "10", "--student", "caf\\xe9")
    assert status == 0
    (new_run,) = set((out / "runs").iterdir()) - runs
    assert not (new_run / "reference").exists(), "a regrade calibrated again"
    (argv,) = new_run.glob("*/argv.json")
    assert json.loads(argv.read_text())["timeout"] == recorded
    with (out / "scores.csv").open(newline="", encoding="utf-8") as handle:
        again = {row["id"]: row for row in csv.DictReader(handle)}
    before = {row["id"]: row for row in graded_class["rows"]}
    changed = {key for key in before if before[key] != again[key]}
    assert changed == {graded_class["by_name"]["caf\\xe9"]["id"]}


def test_a_regrade_under_another_timeout_is_refused(graded_class: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    shutil.copytree(graded_class["out"], out)
    status = run_grade_all(monkeypatch, tmp_path, "--submissions", str(graded_class["room"]), "--out", str(out),
                           "--student", "ana", "--timeout", "99")
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1 and "TIMEOUT=99" in error, error


# ---------------------------------------------------------------- the helpers, on their own


@pytest.mark.parametrize(("text", "cell"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("+1", "'+1"), ("-1", "'-1"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "'\\x09=1"), ("\r=1", "'\\x0d=1"), ("plain", "plain"), ("a=b", "a=b"),
    ("two\nlines", "two\\x0alines"), ("\x1b[31mred", "\\x1b[31mred"), ("\u202egnp.exe", "\\u202egnp.exe"),
])
def test_spreadsheet_cells_follow_owasp(text: str, cell: str) -> None:
    assert spreadsheet_cell(text) == cell


def test_printable_shows_bytes_that_were_not_utf8_and_one_line_joins_lines() -> None:
    assert printable(os.fsdecode(NON_UTF8)) == "caf\\xe9"
    assert printable("Zoë ok") == "Zoë ok"
    assert one_line("a.sv:3: syntax error\n      | assign = ;\n") == "a.sv:3: syntax error / | assign = ;"


@pytest.mark.parametrize("change", [
    {"status": 3}, {"score": float("nan")}, {"score": 101.0}, {"max_score": 50.0}, {"problems": "text"},
    {"groups": "none"}, {"groups": [{"name": "unknown", "score": 0}]}, {"score": True},
])
def test_a_malformed_result_is_refused(tmp_path: Path, change: dict[str, Any]) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({**result_document(), **change}))
    with pytest.raises(table.ResultError):
        table.read_result(LAB, path, 1.0)


def test_a_well_formed_result_is_read_with_its_problems(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result_document({"groups": {CASES: {"score": 10.0, "status": "partial",
                                                                      "failing": ["t: a", "t: b"], "detail": ["2 failed"]}}})))
    graded = table.read_result(LAB, path, 2.0)
    assert (graded.status, graded.score, graded.first_failure) == ("graded", 80.0, "t: a")
    assert graded.problems == [("value failure", "t: a"), ("value failure", "t: b")]


# ---------------------------------------------------------------- end to end, with the real grader


@pytest.mark.full
@pytest.mark.sim
@needs_sandbox
def test_the_real_grader_over_a_class_of_bad_entries(tmp_path: Path) -> None:
    room = tmp_path / "room"
    room.mkdir()
    submission(room, "ana")
    submission(room, os.fsdecode(b"=\xff"))
    ansi = reference_text().replace("endmodule", "  wire [3:0] = 4'd1; // \x1b[2J\x1b[32mgraded: 100/100\nendmodule", 1)
    submission(room, "\x1b[31mbob", text=ansi)
    with zipfile.ZipFile(room / "copy.zip", "w") as bundle:
        bundle.writestr("roofline_attainable.sv", reference_text())
    deep_folder(room / "deep")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "roofline_course.cohort.grade_all", "--lab", "1", "--submissions", str(room),
                          "--out", str(out), "--timeout", "30", "--jobs", "2"], cwd=REPO_ROOT, capture_output=True)
    terminal = run.stdout.decode()
    assert run.returncode == 0, terminal + run.stderr.decode(errors="replace")
    assert b"\x1b" not in run.stdout and "\\x1b[31mbob" in terminal
    with (out / "scores.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"ana", "'=\\xff", "\\x1b[31mbob", "copy.zip", "deep"}, set(rows)
    assert rows["ana"]["score"] == "100" and rows["'=\\xff"]["score"] == "100"
    assert rows["\\x1b[31mbob"]["status"] == "compile error" and "\x1b" not in rows["\\x1b[31mbob"]["first problem"]
    page = (out / "dashboard.html").read_text()
    assert re.search(r"<td>100%</td><td>ana</td><td>copy.zip</td>", page), "the zipped copy is not compared"
