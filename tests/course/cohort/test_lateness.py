"""The late policy at each of its edges, from its documented rule (labs/README.md, "Lateness"):
days late count from the due date, each day begun counting whole; LATE=<p> takes p% per day late,
LATE=<p>/<n> also gives 0 after n days (n days late still scores (100 - n*p)%); no score goes below 0.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from roofline_course.cohort import lateness as late

DUE = late.parse_time("2026-11-01T23:59:00+00:00", "DUE=")
SECOND, DAY = timedelta(seconds=1), timedelta(days=1)


def record(after_due: timedelta) -> dict[str, str]:
    return {":created_at": (DUE + after_due).isoformat()}


@pytest.mark.parametrize(("after_due", "days"), [
    (-SECOND, 0), (timedelta(0), 0), (SECOND, 1),  # at the due time itself: on time
    (DAY - SECOND, 1), (DAY, 1), (DAY + SECOND, 2),  # a day begun counts whole, and only once begun
    (2 * DAY, 2), (2 * DAY + SECOND, 3),
])
def test_each_day_begun_counts_whole_at_the_second_on_either_side_of_a_day(after_due: timedelta, days: int) -> None:
    assert late.Policy(10.0, None, DUE).lateness(record(after_due)).days == days


# A two-day cap at 10% a day, on a score of 80: 25-48 h late is two days, 80 * (1 - 0.2) = 64.
@pytest.mark.parametrize(("after_due", "final"), [
    (DAY, 72.0),  # one day late: 10% off
    (DAY + SECOND, 64.0), (2 * DAY, 64.0),  # two days late: at the cap, still scored
    (2 * DAY + SECOND, 0.0),  # past the cap
])
def test_the_day_cap_scores_the_last_day_and_zeroes_the_day_after(after_due: timedelta, final: float) -> None:
    assert late.Policy(10.0, 2.0, DUE).lateness(record(after_due)).apply(80.0) == final


@pytest.mark.parametrize(("percent", "days", "final"), [(24.0, 4, 4.0), (25.0, 4, 0.0), (26.0, 4, 0.0), (30.0, 5, 0.0)])
def test_no_penalty_takes_a_score_below_zero(percent: float, days: int, final: float) -> None:
    lateness = late.Policy(percent, None, DUE).lateness(record(days * DAY))
    assert lateness.days == days and lateness.apply(100.0) == pytest.approx(final)
    assert 0.0 <= lateness.penalty <= 100.0


def test_without_a_due_date_or_a_record_nothing_is_late() -> None:
    assert late.Policy(10.0, 2.0, None).lateness(record(10 * DAY)) == late.ON_TIME
    assert late.Policy(10.0, 2.0, DUE).lateness(None) == late.ON_TIME


def test_metadata_of_exactly_the_size_limit_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    at_limit, over = tmp_path / "at.yml", tmp_path / "over.yml"
    for path, size in ((at_limit, late.MAX_METADATA_BYTES), (over, late.MAX_METADATA_BYTES + 1)):
        with path.open("wb") as handle:
            handle.write(b"a: {}\n")
            handle.truncate(size)  # sparse: NUL bytes after the record, which the YAML reader refuses
    with pytest.raises(late.MetadataError) as read:
        late.load_export(at_limit)
    assert "larger than" not in str(read.value) and "not readable" in str(read.value)
    with pytest.raises(late.MetadataError, match="larger than 16 MiB"):
        late.load_export(over)
