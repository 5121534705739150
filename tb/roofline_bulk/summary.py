"""What `make sweep` prints, as `make sim` does: a summary, then each mismatch and the line that
replays them all, then where the simulator's whole output went, then the verdict and its rerun line."""

from __future__ import annotations

import contextlib
import logging
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from roofline_bulk.config import SweepConfig

LOG_TAIL = 15  # lines of the simulator's log shown when a build or a run fails


def rate_text(per_second: float, unit: str = "vectors/s") -> str:
    """A rate to three significant figures in the unit that fits: 850 vectors/s, 42.9 k vectors/s, 5.31 M vectors/s."""
    if per_second <= 0 or not math.isfinite(per_second):
        return f"0 {unit}"
    rounded = float(f"{per_second:.3g}")  # 999.7 becomes 1000, and so 1.00 k
    scale, prefix = next(((s, p) for s, p in ((1e9, "G "), (1e6, "M "), (1e3, "k ")) if rounded >= s), (1.0, ""))
    value = rounded / scale
    decimals = max(0, 2 - math.floor(math.log10(value)))
    return f"{value:.{decimals}f} {prefix}{unit}"


def summarize(cfg: SweepConfig, stats: dict[str, Any] | None, failures: tuple[str, ...], wall: float,
              log: Path | None = None) -> bool:
    """Prints one sweep's summary, its mismatches, its log and its verdict; True when every vector
    checked matched. `log`: where the simulator's output went (None: it is on the terminal already)."""
    passed = bool(stats) and not failures and stats["mismatched"] == 0 and stats["checked"] > 0
    print(f"\nsummary ({cfg.top}): " + (_counts(stats, wall) if stats else "no statistics: the sweep did not finish"))
    reports = list(stats.get("reports") or []) if stats else []
    if stats and stats["mismatched"]:
        count = stats["mismatched"]
        shown = f"first {len(reports)} of {count:,} mismatches" if len(reports) < count else _plural(count, "mismatch", "es")
        print(f"\n{shown}:\n\n" + "\n\n".join(reports))
        if stats.get("failures_file"):
            print(f"\n{'all ' if count > 1 else ''}{_plural(count, 'failing vector')}: {stats['failures_file']}")
            print(f"replay them: {cfg.replay_command(stats['failures_file'])}")
    elif failures:  # not a mismatch: a hang, an X or Z, nothing checked; each message says what and how to rerun
        print("\n" + "\n\n".join(failure.partition(": ")[2] or failure for failure in failures))
    if stats:
        print("\n" + "\n".join(coverage_lines(stats["bins"])))
    if log is not None:
        print(f"the simulator's whole output (V=1 prints it here): {log}")
    print(f"{'PASS' if passed else 'FAIL'}; seed {cfg.seed}; rerun: {cfg.rerun_command()}", flush=True)
    return passed


def _counts(stats: dict[str, Any], wall: float) -> str:
    return (f"{_plural(stats['checked'], 'vector')} checked, {stats['mismatched']:,} mismatched in {stats['seconds']:.2f} s "
            f"({rate_text(stats['vectors_per_s'], 'verified vectors/s')}); {wall:.1f} s with the build")


def _plural(count: int, noun: str, suffix: str = "s") -> str:
    return f"{count:,} {noun}{'' if count == 1 else suffix}"


def coverage_lines(bins: dict[str, int]) -> list[str]:
    missed = [name for name, hits in bins.items() if hits == 0]
    width = max((len(name) for name in bins), default=0)
    head = f"coverage: {len(bins) - len(missed)} of {len(bins)} bins hit" + (f" (never: {', '.join(missed)})" if missed else "")
    return [head, *(f"  {name:<{width}} {hits:>14,d}{'   <-- never hit' if hits == 0 else ''}" for name, hits in bins.items())]


def build_failure(stop: BaseException, log: Path | None) -> None:
    """A build or simulator that stopped: why, and the end of its log (compiler errors land there)."""
    print(f"error: the build or the simulator failed ({stop})", file=sys.stderr)
    if log is None:
        print("  see the log above", file=sys.stderr)
        return
    try:
        tail = log.read_text(errors="replace").splitlines()[-LOG_TAIL:]
    except OSError:
        tail = []
    print("\n".join([f"the last lines of {log}:", *(f"  {line}" for line in tail)]), file=sys.stderr)


class _ProgressLine(logging.Handler):
    """The testbench's progress lines, shown in place on a terminal while the rest goes to the log."""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "progress:" in message:
            sys.stderr.write("\r  " + message.split("progress:", 1)[1].strip() + "\x1b[K")
            sys.stderr.flush()


@contextlib.contextmanager
def progress_on_terminal() -> Iterator[None]:
    """While a quiet sweep runs; nothing when stderr is not a terminal (a log file, CI, a test)."""
    if not sys.stderr.isatty():
        yield
        return
    handler = _ProgressLine()
    logger = logging.getLogger("cocotb")  # cocotb-test logs the simulator's output here, line by line
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
