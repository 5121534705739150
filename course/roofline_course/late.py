"""An optional late policy, from Gradescope's submission_metadata.json in a submission's folder.

The file gives `created_at` and `assignment.due_date` (ISO 8601, as Gradescope writes them).
Days late count from the due date, each day begun counting whole. With LATE=<percent per day>
the score loses that share per day late, and with LATE_MAX=<days> it is 0 past that many days.
A submission without the file is on time; a file that cannot be read is noted, never guessed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

METADATA = "submission_metadata.json"


@dataclass(frozen=True)
class Lateness:
    days: int | None  # None: no metadata, or it could not be read
    penalty: float = 0.0  # percent of the score taken off
    note: str = ""

    @property
    def days_text(self) -> str:
        return self.note if self.days is None and self.note else ("" if self.days is None else str(self.days))

    def apply(self, score: float) -> float:
        return round(score * (1 - self.penalty / 100), 3)


@dataclass(frozen=True)
class Policy:
    percent_per_day: float = 0.0
    max_days: float | None = None

    def lateness(self, entry: Path) -> Lateness:
        metadata = entry / METADATA
        if not entry.is_dir() or not metadata.is_file():
            return Lateness(None)
        try:
            document = json.loads(metadata.read_text())
            created = datetime.fromisoformat(document["created_at"])
            due = datetime.fromisoformat(document["assignment"]["due_date"])
        except (OSError, ValueError, KeyError, TypeError) as problem:
            return Lateness(None, note=f"unreadable {METADATA}: {type(problem).__name__}")
        days = max(0, math.ceil((created - due).total_seconds() / 86400))
        if self.max_days is not None and days > self.max_days:
            return Lateness(days, 100.0)
        return Lateness(days, min(100.0, days * self.percent_per_day))
