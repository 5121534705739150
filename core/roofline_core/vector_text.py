"""Decoding vectors for messages: inputs in hex and units, and the exact roofline beside them."""

from __future__ import annotations

from roofline_core.scoreboard import binding_text
from roofline_golden import QFormat, exact, format_fraction
from roofline_golden.exact import ExactHierarchy


def inputs_text(fmt: QFormat, peak: int, bws: tuple[int, ...], ais: tuple[int, ...]) -> list[str]:
    text = [f"peak_i = {fmt.describe(peak, 'GFLOP/s')}"]
    for level, (bw, ai) in enumerate(zip(bws, ais, strict=True)):
        suffix = f"[{level}]" if len(bws) > 1 else ""
        text.append(f"bw_i{suffix} = {fmt.describe(bw, 'GB/s')}")
        text.append(f"ai_i{suffix} = {fmt.describe(ai, 'FLOP/B')}")
    return text


def exact_context(fmt: QFormat, peak: int, bws: tuple[int, ...], ais: tuple[int, ...]) -> tuple[list[str], ExactHierarchy]:
    """Lines giving each level's exact ai*bw, the roof that should bind and the exact cap."""
    real = exact.hierarchy(fmt.to_real(peak), [fmt.to_real(b) for b in bws], [fmt.to_real(a) for a in ais])
    levels = ", ".join(
        f"L{i}: ai*bw = {format_fraction(fmt.to_real(a) * fmt.to_real(b))}" for i, (a, b) in enumerate(zip(ais, bws, strict=True))
    )
    lines = [
        f"exact  : peak = {format_fraction(fmt.to_real(peak))} GFLOP/s; {levels}",
        f"should bind: {binding_text(real.binding, len(bws))}; exact cap = {format_fraction(real.cap)} GFLOP/s",
    ]
    return lines, real
