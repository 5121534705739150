"""Lateness, from the metadata the platform wrote and never from a file inside a submission.

Gradescope's "Export Submissions" holds one folder per submission and, beside them, one
`submission_metadata.yml` that maps each folder to its record: `:created_at:` (the submission
time) and `:submitters:` (names and ids). That file is the class's metadata (METADATA=, by
default SUBMISSIONS/submission_metadata.yml); the due date is the instructor's (DUE=, with a
time zone). A `submission_metadata.json` a student puts in their own folder sets nothing.

Days late count from the due date, each day begun counting whole. With LATE=<percent per day>
the score loses that share per day late, and with LATE=<percent>/<days> it is 0 past that many days.
A record that cannot be read (a missing or malformed time, a time without a zone, a file too
large or too deeply nested) is noted in the row's late_days, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

EXPORT_METADATA = "submission_metadata.yml"  # Gradescope's export: beside the submission folders
MAX_METADATA_BYTES = 16 << 20


class MetadataError(ValueError):
    """The class's metadata file cannot be used at all; the message says why, in one line."""


@dataclass(frozen=True)
class Lateness:
    days: int | None  # None: no record, or it could not be read
    penalty: float = 0.0  # percent of the score taken off
    note: str = ""

    @property
    def days_text(self) -> str:
        return self.note if self.days is None else str(self.days)

    def apply(self, score: float) -> float:
        return round(score * (1 - self.penalty / 100), 3)


ON_TIME = Lateness(None)


def parse_time(value: object, what: str) -> datetime:
    """A time with a zone, from an ISO 8601 string or a YAML timestamp; anything else is a ValueError."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{what} is not an ISO 8601 time") from None
    if isinstance(value, date) and not isinstance(value, datetime):
        raise ValueError(f"{what} is a date without a time")
    if not isinstance(value, datetime):
        raise ValueError(f"{what} is not a time")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{what} has no time zone")
    return value


def load_export(path: Path) -> dict[str, dict[str, Any]]:
    """The export's records by folder name. Raises MetadataError for a file that is not one."""
    try:
        size = path.stat().st_size
    except OSError as problem:
        raise MetadataError(f"{path}: cannot be read ({type(problem).__name__})") from None
    if size > MAX_METADATA_BYTES:
        raise MetadataError(f"{path}: larger than {MAX_METADATA_BYTES >> 20} MiB")
    try:
        with path.open("rb") as handle:
            document = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError, RecursionError, ValueError) as problem:
        raise MetadataError(f"{path}: not readable as Gradescope's submission_metadata.yml "
                            f"({type(problem).__name__})") from None
    if not isinstance(document, dict):
        raise MetadataError(f"{path}: not a mapping of submission folders to records")
    return {str(name): record for name, record in document.items() if isinstance(record, dict)}


def _field(record: dict[str, Any], name: str) -> object:
    """A field as Gradescope's export spells it (`:created_at`), or plainly (`created_at`)."""
    return record.get(f":{name}", record.get(name))


def submitters(record: dict[str, Any] | None) -> str:
    """Who handed the submission in, as the export lists them ("name (sid)", comma-separated)."""
    people = _field(record, "submitters") if record else None
    if not isinstance(people, list):
        return ""
    shown = []
    for person in people:
        if isinstance(person, dict):
            name, sid = _field(person, "name"), _field(person, "sid")
            shown.append(f"{name or '?'} ({sid})" if sid else str(name or "?"))
    return ", ".join(shown)


@dataclass(frozen=True)
class Policy:
    percent_per_day: float = 0.0
    max_days: float | None = None
    due: datetime | None = None

    def lateness(self, record: dict[str, Any] | None) -> Lateness:
        """The lateness of one submission from its platform record (None: the platform has none)."""
        if record is None or self.due is None:
            return ON_TIME
        try:
            created = parse_time(_field(record, "created_at"), "created_at")
        except (ValueError, TypeError, OverflowError) as problem:
            return Lateness(None, note=f"not counted: the platform's record {problem}")
        days = max(0, math.ceil((created - self.due).total_seconds() / 86400))
        if self.max_days is not None and days > self.max_days:
            return Lateness(days, 100.0)
        return Lateness(days, min(100.0, days * self.percent_per_day))
