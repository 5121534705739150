"""Text that students control, made harmless where it lands.

A submission's name, a file name inside it and the compile errors it provokes all reach the
instructor: on the terminal, in score.txt and JUnit, in scores.csv and on the dashboard. Each
place has its own danger: an ANSI escape rewrites the terminal (a fake "full marks" line over the
real verdict), a control character makes XML unreadable, a cell starting with `=` is a
spreadsheet formula (OWASP's CSV injection), a newline splits a CSV row for a naive reader.
The dashboard's HTML is escaped by its templates (jinja2 autoescaping), after `printable`.
"""

from __future__ import annotations

import re
import unicodedata

# Categories shown as escapes: controls (ANSI escapes, CR, BEL...), format characters (bidi
# overrides that reorder what is shown, zero-width characters), lone surrogates, line separators.
HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP: a cell starting with one of these is a formula
LINE_JOIN = " / "


def _escape(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape (a file name's)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """Every character that would act rather than show (controls, ANSI escapes, newlines, bidi
    overrides, bytes that were not UTF-8) written as a visible escape such as `\\x1b`."""
    return "".join(_escape(c) if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in text)


def one_line(text: str) -> str:
    """A multi-line message as one printable line: its non-blank lines joined by ' / '."""
    return LINE_JOIN.join(printable(line.strip()) for line in text.splitlines() if line.strip())


def spreadsheet_cell(text: str) -> str:
    """A CSV cell no spreadsheet runs: printable (so on one line), with a leading quote before a formula start."""
    shown = printable(text)
    return "'" + shown if text.startswith(FORMULA_STARTS) or shown.startswith(FORMULA_STARTS) else shown


def terminal_lines(lines: list[str]) -> list[str]:
    """Lines for a terminal or a text report (score.txt), each printable; line breaks stay breaks."""
    return [printable(part) for line in lines for part in line.split("\n")]


def slug(text: str, empty: str = "submission") -> str:
    """A name made safe as one folder or file name (a report folder named after a submission): never
    "." or ".." (a file named `...sv` put its report in the folder above), never hidden."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_").lstrip(".") or empty
