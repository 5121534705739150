"""The simulator log's cap at the cap: a log of exactly `limit` characters is written whole; the record that
would pass it is not written, the overflow is said once and on_overflow called once."""

from __future__ import annotations

import io
import logging

from roofline_core.simulator import CappedLog

LIMIT = 1 << 20


def record(message: str) -> logging.LogRecord:
    return logging.LogRecord("sim", logging.INFO, __file__, 1, message, None, None)


def test_a_log_of_exactly_the_cap_is_written_whole_and_the_next_character_stops_it() -> None:
    stream, overflows = io.StringIO(), []
    handler = CappedLog(stream, LIMIT, lambda: overflows.append(1))
    line = len("INFO \n")
    handler.emit(record("a" * (LIMIT - 2 * line - 1)))
    handler.emit(record("b"))  # exactly at the cap now
    assert handler.written == LIMIT and stream.getvalue().endswith("INFO b\n") and not overflows
    handler.emit(record(""))  # one line more: past it
    handler.emit(record("c"))
    assert overflows == [1] and stream.getvalue().count("printed more than 1 MiB: stopped") == 1
    assert "INFO c" not in stream.getvalue()
