"""Reading DUT outputs: an X or Z is a failure that names the signal, never a Python error."""

from __future__ import annotations

from typing import Any


class UnresolvedOutput(AssertionError):
    """An output held X or Z where the contract requires a defined value."""


_RESOLVE_LH = str.maketrans({"L": "0", "H": "1"})


def read_uint(handle: Any) -> int:
    # From the value's bit string: LogicArray.is_resolvable builds an object per bit, which cost
    # more than the whole check of a vector; and int() of a LogicArray would quietly resolve X
    # under COCOTB_RESOLVE_X.
    bits = str(handle.value)
    try:
        return int(bits.translate(_RESOLVE_LH), 2)
    except ValueError:
        raise UnresolvedOutput(f"{handle._name} holds X/Z: {bits}") from None


def read_bool(handle: Any) -> bool:
    return bool(read_uint(handle))


def check_width(handle: Any, expected: int) -> None:
    """A port of the wrong width means the parameters did not reach the design."""
    actual = len(handle)
    if actual != expected:
        raise AssertionError(
            f"{handle._name} is {actual} bits wide; the contract says {expected} for these parameters"
        )
