"""Lateness at its boundaries, by the module's documented rule (make mutation's tests for cohort/lateness.py).

The rule (cohort/lateness.py's docstring, grade-all's LATE=<percent per day>[/<days>]): days late count
from the due date, each day begun counting whole; the score loses the percent per day late, never more
than all of it, and is 0 past the most days; a record that cannot be read is noted, never guessed.
Every expected value below is that arithmetic, done by hand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path

import pytest

from roofline_course.cohort import lateness as late

DUE = datetime(2026, 11, 1, 23, 59, tzinfo=UTC)
MIB = 1024 * 1024


def at(delta: timedelta) -> dict[str, object]:
    return {":created_at": (DUE + delta).isoformat()}


@pytest.mark.parametrize(("delta", "days"), [
    (timedelta(seconds=-1), 0), (timedelta(days=-3), 0), (timedelta(0), 0), (timedelta(seconds=1), 1),
    (timedelta(days=1), 1), (timedelta(days=1, seconds=1), 2), (timedelta(days=2), 2), (timedelta(days=2, seconds=1), 3),
])
def test_each_day_begun_counts_whole_and_early_is_on_time(delta: timedelta, days: int) -> None:
    found = late.Policy(10.0, None, DUE).lateness(at(delta))
    assert (found.days, found.penalty, found.days_text) == (days, 10.0 * days, str(days))


@pytest.mark.parametrize(("delta", "days", "penalty"), [
    (timedelta(days=1), 1, 20.0), (timedelta(days=2), 2, 40.0),  # at the cap: still the per-day penalty
    (timedelta(days=2, seconds=1), 3, 100.0), (timedelta(days=9), 9, 100.0),  # past it: nothing left
])
def test_the_most_days_is_the_last_day_that_still_scores(delta: timedelta, days: int, penalty: float) -> None:
    found = late.Policy(20.0, 2, DUE).lateness(at(delta))
    assert (found.days, found.penalty) == (days, penalty)


def test_a_submission_a_day_and_a_bit_late_under_a_two_day_cap_keeps_eighty_percent() -> None:
    """Issue 35's case: 25-48 h late, 10 %/day, at most 2 days: 80 becomes 64, not 0."""
    found = late.Policy(10.0, 2, DUE).lateness(at(timedelta(hours=25)))
    assert (found.days, found.apply(80.0)) == (2, 64.0)


def test_the_penalty_never_takes_more_than_the_whole_score() -> None:
    found = late.Policy(60.0, None, DUE).lateness(at(timedelta(days=1, hours=1)))  # 2 days x 60 % = 120 %
    assert (found.days, found.penalty, found.apply(80.0)) == (2, 100.0, 0.0)
    assert late.Policy(50.0, None, DUE).lateness(at(timedelta(days=2))).penalty == 100.0  # exactly all of it


def test_no_penalty_is_set_by_default_and_none_without_a_record_or_a_due_date() -> None:
    assert late.Policy(due=DUE).lateness(at(timedelta(days=5))) == late.Lateness(5, 0.0)
    assert late.Policy(10.0, 1, None).lateness(at(timedelta(days=5))) == late.ON_TIME
    assert late.Policy(10.0, 1, DUE).lateness(None) == late.ON_TIME
    assert (late.ON_TIME.days, late.ON_TIME.penalty, late.ON_TIME.apply(73.5), late.ON_TIME.days_text) == (None, 0.0, 73.5, "")


@pytest.mark.parametrize(("penalty", "score", "final"), [
    (10.0, 80.0, 72.0), (12.3456, 1.0, 0.877), (0.0, 99.9999, 100.0), (100.0, 55.0, 0.0), (25.0, 2.0, 1.5),
])
def test_the_penalty_is_a_share_of_the_score_rounded_to_three_places(penalty: float, score: float, final: float) -> None:
    assert late.Lateness(1, penalty).apply(score) == final


@pytest.mark.parametrize(("value", "says"), [
    ("yesterday", "is not an ISO 8601 time"), (date(2026, 11, 2), "is a date without a time"),
    (1730505540, "is not a time"), (None, "is not a time"), ("2026-11-02T10:00:00", "has no time zone"),
])
def test_a_record_that_cannot_be_read_is_noted_never_guessed(value: object, says: str) -> None:
    found = late.Policy(10.0, 2, DUE).lateness({":created_at": value})
    assert found.days is None and found.penalty == 0.0
    assert found.days_text == found.note == f"not counted: the platform's record created_at {says}"


class NoOffset(tzinfo):
    """A zone that knows no offset: as good as none."""

    def utcoffset(self, when: datetime | None) -> timedelta | None:
        return None


def test_a_zone_without_an_offset_is_no_zone() -> None:
    with pytest.raises(ValueError, match="DUE= has no time zone"):
        late.parse_time(datetime(2026, 11, 1, tzinfo=NoOffset()), "DUE=")


def test_a_time_is_read_from_text_with_spaces_or_from_yaml_as_a_datetime() -> None:
    assert late.parse_time("  2026-11-01T23:59:00+00:00\n", "DUE=") == DUE
    assert late.parse_time(DUE, "created_at") == DUE  # PyYAML reads an unquoted timestamp as a datetime
    shifted = late.parse_time("2026-11-01T19:00:01-05:00", "x")
    assert shifted - DUE == timedelta(seconds=61)  # 00:00:01 UTC the next day


def test_the_export_is_read_by_its_gradescope_spelling_or_plainly(tmp_path: Path) -> None:
    export = tmp_path / late.EXPORT_METADATA
    export.write_text("submission_1:\n  :created_at: 2026-11-02 00:00:01+00:00\n"
                      "  :submitters:\n  - :name: Ana\n    :sid: '17'\n  - name: Bo\n  - :sid: '9'\n  - plain\n"
                      "2: {created_at: '2026-11-01T23:00:00+00:00', submitters: [{name: Cy, sid: 4}]}\n"
                      "not_a_record: [1, 2]\n")
    records = late.load_export(export)
    assert sorted(records) == ["2", "submission_1"]
    assert late.submitters(records["submission_1"]) == "Ana (17), Bo, ? (9)"
    assert late.submitters(records["2"]) == "Cy (4)"
    assert late.submitters(None) == late.submitters({}) == late.submitters({":submitters": "Ana"}) == ""
    policy = late.Policy(10.0, None, DUE)
    assert policy.lateness(records["submission_1"]).days == 1 and policy.lateness(records["2"]).days == 0
    assert late.submitters({":submitters": [{":name": "A", "name": "B"}]}) == "A"  # Gradescope's key first


def test_the_export_at_the_size_limit_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    at_limit, over = tmp_path / "at.yml", tmp_path / "over.yml"
    for path, size in ((at_limit, 16 * MIB), (over, 16 * MIB + 1)):
        with path.open("wb") as handle:
            handle.write(b"a: {}\n#")
            handle.truncate(size)
    with pytest.raises(late.MetadataError, match="not readable as Gradescope"):
        late.load_export(at_limit)  # read (and refused for its NUL bytes), not refused for its size
    with pytest.raises(late.MetadataError, match=r"larger than 16 MiB$"):
        late.load_export(over)


@pytest.mark.parametrize(("content", "says"), [
    ("[" * 5000 + "]" * 5000, "ScannerError"), ("- a list\n", "not a mapping"), ("{unclosed: [\n", "ParserError"),
    ("a: 2026-13-45 10:00:00\n", "ValueError"), ("a: 1\n", None),
])
def test_an_export_that_is_not_one_is_refused_in_one_line(tmp_path: Path, content: str, says: str | None) -> None:
    export = tmp_path / late.EXPORT_METADATA
    export.write_text(content)
    if says is None:
        assert late.load_export(export) == {}  # a mapping with no record in it: nothing to count
        return
    with pytest.raises(late.MetadataError, match=says) as raised:
        late.load_export(export)
    assert "\n" not in str(raised.value) and str(export) in str(raised.value)


def test_an_export_too_deep_for_the_loader_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML without libyaml recurses once per level and overflows the stack (seconds of it for real)."""
    def overflow(*_: object, **__: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(late.yaml, "load", overflow)
    export = tmp_path / late.EXPORT_METADATA
    export.write_text("[[[]]]\n")
    with pytest.raises(late.MetadataError, match=r"not readable as .* \(RecursionError\)$"):
        late.load_export(export)


def test_an_export_that_cannot_be_opened_says_so(tmp_path: Path) -> None:
    with pytest.raises(late.MetadataError, match=r"cannot be read \(FileNotFoundError\)"):
        late.load_export(tmp_path / "missing.yml")
    (tmp_path / "folder.yml").mkdir()
    with pytest.raises(late.MetadataError, match=r"not readable as .* \(IsADirectoryError\)"):
        late.load_export(tmp_path / "folder.yml")
