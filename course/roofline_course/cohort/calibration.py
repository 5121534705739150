"""One time limit per class: chosen once, recorded in the class folder, used by every later run.

The first `grade-all` of a class calibrates: CLASS_LIMIT_FACTOR x the slowest simulation of the
reference design in rtl/, at least MIN_CALIBRATED_TIMEOUT_S and at most the lab's own limit, so a class
with hanging designs does not wait out the lab's generous limit for each. The limit is written to
<class folder>/time_limit.json (per simulator: Verilator's runs differ from Icarus's), and every
later run, a `STUDENT=` regrade included, uses it: a student is never judged under another limit
than the class, however loaded the machine is on the day of a regrade. TIMEOUT= sets the class's
limit outright (and is recorded); to calibrate again, delete the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from roofline_course.labs.definitions import MIN_CALIBRATED_TIMEOUT_S

RECORD = "time_limit.json"
CLASS_LIMIT_FACTOR = 5  # a simulation may take this many times what the reference's slowest takes


class CalibrationError(ValueError):
    """The recorded limit cannot be used as asked; the message says why and what to do, in one line."""


@dataclass(frozen=True)
class TimeLimit:
    seconds: float
    source: str  # how it was chosen, in words
    set_at: str = ""

    def describe(self) -> str:
        return f"{self.seconds:g} s ({self.source}{', set ' + self.set_at if self.set_at else ''})"


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text())
        if not isinstance(document, dict):
            raise ValueError("not an object")
    except (OSError, ValueError, RecursionError) as problem:
        raise CalibrationError(f"{path}: unreadable ({type(problem).__name__}); delete it to calibrate again") from None
    return document


def recorded(out: Path, sim: str) -> TimeLimit | None:
    """The class's limit on this simulator, as recorded, or None when none is."""
    path = out / RECORD
    entry = _load(path).get(sim)
    if entry is None:
        return None
    seconds = entry.get("seconds") if isinstance(entry, dict) else None
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not math.isfinite(seconds) or seconds <= 0:
        raise CalibrationError(f"{path}: the {sim} limit is not a positive number of seconds; delete the file to calibrate again")
    return TimeLimit(float(seconds), str(entry.get("source", "recorded")), str(entry.get("set_at", "")))


def record(out: Path, sim: str, limit: TimeLimit) -> TimeLimit:
    path = out / RECORD
    document = _load(path)
    stamped = TimeLimit(limit.seconds, limit.source, datetime.now(UTC).isoformat(timespec="seconds"))
    document[sim] = asdict(stamped)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n")
    temporary.replace(path)
    return stamped


def slowest_simulation(result_file: Path) -> float | None:
    """The reference's slowest group, in seconds, from its result.json (None if it does not say)."""
    try:
        groups = json.loads(result_file.read_text())["groups"]
        times = [g["seconds"] for g in groups]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if not times or not all(isinstance(t, int | float) and math.isfinite(t) and t >= 0 for t in times):
        return None
    return float(max(times))


def calibrate(lab_limit_s: float, max_score: float, grade_reference: Callable[[], dict[str, Any]]) -> TimeLimit:
    """Grade the reference once (under the lab's own limit) and derive the class's limit from it."""
    reference = grade_reference()
    score = reference.get("score")
    if score != max_score:
        return TimeLimit(lab_limit_s, f"the lab's own limit: the reference in rtl/ scored {score}, so none was calibrated")
    slowest = slowest_simulation(Path(reference["result"])) if reference.get("result") else None
    if slowest is None:
        return TimeLimit(lab_limit_s, "the lab's own limit: the reference's result gives no simulation times")
    seconds = round(min(lab_limit_s, max(MIN_CALIBRATED_TIMEOUT_S, CLASS_LIMIT_FACTOR * slowest)), 1)
    return TimeLimit(seconds, f"{CLASS_LIMIT_FACTOR}x the reference's slowest simulation ({slowest:g} s), "
                              f"at least {MIN_CALIBRATED_TIMEOUT_S:g} s, at most the lab's {lab_limit_s:g} s")


def class_limit(out: Path, sim: str, given: float | None, regrade: bool, lab_limit_s: float, max_score: float,
                has_reference: bool, grade_reference: Callable[[], dict[str, Any]]) -> TimeLimit:
    """The limit this run uses, recorded for the runs after it. A regrade of one student takes the
    class's recorded limit; a TIMEOUT= that differs from it there is refused, so no student is
    judged under a limit the rest of the class was not."""
    found = recorded(out, sim)
    if given is not None:
        if regrade and found is not None and not math.isclose(given, found.seconds):
            raise CalibrationError(f"TIMEOUT={given:g}: the class was graded under {found.seconds:g} s ({out / RECORD}); "
                                   "a regrade of one student uses the class's limit; to change it for everyone, "
                                   "run grade-all without STUDENT=")
        return found if found is not None and math.isclose(given, found.seconds) else \
            record(out, sim, TimeLimit(given, "TIMEOUT="))
    if found is not None:
        return found
    if not has_reference:
        return record(out, sim, TimeLimit(lab_limit_s, "the lab's own limit: rtl/ holds no reference to calibrate on"))
    return record(out, sim, calibrate(lab_limit_s, max_score, grade_reference))
