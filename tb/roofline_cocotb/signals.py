"""Reading DUT outputs: an X or Z is a failure that names the signal, never a Python error."""

from __future__ import annotations

from typing import Any

from cocotb.simtime import get_sim_time
from cocotb.triggers import First, RisingEdge, Timer
from cocotb.utils import get_sim_steps


class UnresolvedOutput(AssertionError):
    """An output held X or Z where the contract requires a defined value."""


_RESOLVE_LH = str.maketrans({"L": "0", "H": "1"})


def read_bits(handle: Any) -> str:
    """The value's bit string, weak L/H resolved. From the string: LogicArray.is_resolvable builds
    an object per bit, which cost more than the whole check of a vector; and int() of a LogicArray
    would quietly resolve X under COCOTB_RESOLVE_X."""
    return str(handle.value).translate(_RESOLVE_LH)


def read_uint(handle: Any) -> int:
    bits = read_bits(handle)
    try:
        return int(bits, 2)
    except ValueError:
        raise UnresolvedOutput(f"{handle._name} holds X/Z: {bits}") from None


def read_bool(handle: Any) -> bool:
    return bool(read_uint(handle))


async def periods_until_rise(handle: Any, periods: int, clock_ns: int) -> int:
    """From a falling edge: wait until `handle` rises, or until `periods` clock periods less a
    quarter have passed (so the next falling edge is the periods-th), and return the whole
    periods elapsed. A clocked bench waits this way rather than waking every cycle."""
    period = get_sim_steps(clock_ns, "ns")
    started = get_sim_time("step")
    await First(RisingEdge(handle), Timer(periods * period - period // 4, "step"))
    return (get_sim_time("step") - started) // period
