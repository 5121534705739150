"""Reading DUT outputs: an X or Z is a failure that names the signal, never a Python error."""

from __future__ import annotations

from typing import Any


class UnresolvedOutput(AssertionError):
    """An output held X or Z where the contract requires a defined value."""


def read_uint(handle: Any) -> int:
    value = handle.value
    if not value.is_resolvable:
        raise UnresolvedOutput(f"{handle._name} holds X/Z: {value}")
    return int(value)


def read_bool(handle: Any) -> bool:
    return bool(read_uint(handle))


def check_width(handle: Any, expected: int) -> None:
    """A port of the wrong width means the parameters did not reach the design."""
    actual = len(handle)
    if actual != expected:
        raise AssertionError(
            f"{handle._name} is {actual} bits wide; the contract says {expected} for these parameters"
        )
