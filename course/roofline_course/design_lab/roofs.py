"""Where on the roofs a combinational design goes wrong: its failing vectors on one roofline.

Every vector has its own peak and bandwidths, so the axes are the roofline's own, normalised:
x = ai*bw / peak (1 at the ridge: below it the memory roof binds, at it and above it the compute roof) and
y = performance / peak (the roof is min(1, x) for every vector). Each failing output is drawn
where the golden model puts it (on the roof) and, for a wrong cap, where the design put it,
marked by what was wrong: the cap, a level's cap, the memory-bound verdict, the binding level,
the documents' value, and named by its case (cases at one spot share a label). Marks at one spot
stay visible: a wrong value is a small filled mark, the expected one a ring around it, a wrong
verdict a larger ring. Beneath, each wrong cap's distance from the exact min(peak, ai*bw) in LSBs
(the spec allows half an LSB: the shaded rounding band), on the same x: a rounding bug sits just
outside the band, a ridge bug at x = 1, a compute-roof bug to the right of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from roofline_bench.trace import Mark
from roofline_core.contract import HIERARCHY_OUT, RATES_IN
from roofline_core.scoreboard import DOCUMENTS
from roofline_golden import QFormat

PEAK, BW, AI = (port.name for port in RATES_IN)
CAP, LEVEL_CAP, MEM_BOUND, BINDING = (port.name for port in HIERARCHY_OUT)

# What was wrong, as the legend says it, with its marker and colour, in the order drawn (the
# end-to-end cap over the levels' caps; the binding level's hollow diamond around the verdict's triangle).
STYLES = {
    LEVEL_CAP: (f"a level's cap ({LEVEL_CAP})", "o", "#ff7f0e"),
    CAP: (f"the cap ({CAP})", "o", "#d62728"),
    "documents": ("the documents' value", "s", "#8c564b"),
    MEM_BOUND: (f"the memory-bound verdict ({MEM_BOUND})", "^", "#9467bd"),
    BINDING: (f"the binding level ({BINDING})", "D", "#1f77b4"),
}
HOLLOW = (MEM_BOUND, BINDING)  # verdicts: rings around the vector, so a wrong cap at the same place shows through
CAPS = (CAP, LEVEL_CAP)
# Marker sizes, so that marks at one place stay visible: the filled wrong values small (a level's cap
# under the cap), the expected value a ring around them, the verdicts larger rings around that.
SIZES = {LEVEL_CAP: 8, CAP: 5.5, "documents": 4.5, MEM_BOUND: 13, BINDING: 16}
EXPECTED_SIZE = 9.5
MAX_LABELLED = 8  # places on the roof whose failing cases are named; the note counts the rest
NAMES_PER_LABEL = 3
# The contract's tie rule, on the axis: at the ridge itself the compute roof binds.
AXIS_LABEL = "ai*bw / peak   (below 1 the memory roof binds; at the ridge, 1, and above it the compute roof binds)"
LABEL_OFFSETS = ((16, 16), (16, -22), (-16, 16), (-16, -22))  # points, turn about, so that neighbouring labels part


@dataclass(frozen=True)
class Point:
    case: str  # the failing vector or case, as the report names it
    what: str  # a key of STYLES
    x: float  # ai*bw / peak (0 and inf allowed: drawn at the axes' edges)
    expected: float  # the model's performance / peak
    actual: float | None  # the design's, for a wrong cap
    error_lsb: float | None  # a wrong cap's distance from the exact value, in LSBs


@dataclass
class Misses:
    title: str
    points: list[Point] = field(default_factory=list)
    vectors: int = 0  # failing vectors drawn
    not_drawn: list[str] = field(default_factory=list)  # what the picture leaves out, and why


def misses(marks: list[Mark], fmt: QFormat, levels: int, title: str, failing: int) -> Misses | None:
    """The failing vectors' points (failing: how many the verdict counts, of which the marks hold
    the first); None when no failure had rates to place (a port's width, say)."""
    found = Misses(title)
    seen: set[str] = set()
    unresolved = 0
    for mark in marks:
        if mark.vector_id in seen:
            continue
        if mark.kind == "unresolved":
            unresolved += 1
            seen.add(mark.vector_id)
            continue
        rates = _rates(mark, fmt, levels)
        if mark.kind != "mismatch" or rates is None:
            continue
        seen.add(mark.vector_id)
        found.vectors += 1
        found.points += _points(mark.vector_id, mark, rates, fmt)
    if unresolved:
        found.not_drawn.append(f"{unresolved} vector(s) with an X or Z output")
    if len(seen) < failing:
        found.not_drawn.append(f"{failing - len(seen)} more failing vector(s) or event(s) past the first {len(seen)}")
    if not found.points:
        return None
    return found


Rates = tuple[int, tuple[int, ...], tuple[int, ...]]  # raw peak, bandwidths, intensities


def _rates(mark: Mark, fmt: QFormat, levels: int) -> Rates | None:
    """The vector's inputs, as the bench last wrote them before judging it."""
    written = dict(mark.inputs)
    if not {PEAK, BW, AI} <= set(written):
        return None
    count = levels if any(name.startswith(LEVEL_CAP) for name, *_ in mark.fields) else 1

    def unpack(packed: int) -> tuple[int, ...]:
        return tuple((packed >> (level * fmt.width)) & fmt.max_raw for level in range(count))

    return written[PEAK], unpack(written[BW]), unpack(written[AI])


def _points(case: str, mark: Mark, rates: Rates, fmt: QFormat) -> list[Point]:
    peak, bws, ais = rates
    products = [ai * bw for ai, bw in zip(ais, bws, strict=True)]
    wrong = {name for name, expected, actual, _ in mark.fields if expected != actual}
    points = []
    for name in wrong:
        expected, actual = next((e, a) for n, e, a, _ in mark.fields if n == name)
        port = name.split(" ")[0]
        if name.endswith(DOCUMENTS):
            if port in wrong:
                continue  # the model's field says it already
            what = "documents"
        else:
            what = port.split("[")[0]
        if what not in STYLES:
            continue
        level = int(port.split("[")[1].rstrip("]")) if "[" in port else None
        product = products[level] if level is not None else min(products)
        x = _ratio(product, peak << fmt.frac_bits)
        if what in CAPS or (what == "documents" and port.startswith(CAPS)):
            exact = Fraction(min(peak << fmt.frac_bits, product), 1 << fmt.frac_bits)  # the exact cap, in LSBs
            points.append(Point(case, what, x, _ratio(expected, peak), _ratio(actual, peak), _float(actual - exact)))
        else:  # a verdict: drawn where the model's cap puts the vector
            cap = next((e for n, e, _, _ in mark.fields if n == CAP), 0)
            points.append(Point(case, what, x, _ratio(cap, peak), None, None))
    return sorted(points, key=lambda point: (point.what, point.x))


def _ratio(numerator: int, denominator: int) -> float:
    """numerator / denominator, with 0/0 = 1: with peak = 0, ai*bw = 0 is the ridge, and a cap of 0 is on the roof."""
    if denominator == 0:
        return 1.0 if numerator == 0 else math.inf
    return _float(Fraction(numerator, denominator))


def _float(value: Fraction) -> float:
    """As a float; beyond a float's range (a reply lying about a port's width), infinite: drawn at the axes' edge."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# ---------------------------------------------------------------------------------- drawing

FIGSIZE = (9.0, 7.2)


def figure(view: Misses) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    fig = Figure(figsize=FIGSIZE, dpi=100)
    FigureCanvasAgg(fig)
    roof, error = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (2.2, 1), "hspace": 0.08})
    fig.subplots_adjust(left=0.1, right=0.97, top=0.9, bottom=0.125)
    xlim = _limits([p.x for p in view.points], 1.0)
    ylim = _limits([v for p in view.points for v in (p.expected, p.actual) if v is not None], 1.0, top=2.0)
    reach, errors = _reach(view)
    xs = [xlim[0], 1.0, xlim[1]]
    roof.plot(xs, [min(x, 1.0) for x in xs], color="black", lw=2, gid="roof")
    roof.plot([1.0], [1.0], marker="D", color="black", markersize=4, gid="ridge", zorder=2)
    roof.annotate("ridge: ai*bw = peak", (1.0, 1.0), xytext=(-8, 8), textcoords="offset points", fontsize=8,
                  ha="right")  # left of the ridge: to its right the axes may end a decade later
    for axes in (roof, error):
        axes.axvline(1.0, color="0.5", lw=0.8, ls="--")
        axes.set_xscale("log")
        axes.set_xlim(*xlim)
        axes.grid(True, which="major", lw=0.4, alpha=0.5)
    roof.set_yscale("log")
    roof.set_ylim(*ylim)
    # Decades as plain text and minor ticks at 2 and 5 only: the default mathtext labels and eight
    # minor ticks a decade cost most of a picture's drawing time.
    for axis in (roof.xaxis, roof.yaxis, error.xaxis):
        axis.set_major_formatter(FuncFormatter(lambda value, _: _decade(value)))
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        axis.set_minor_formatter(NullFormatter())
    roof.set_ylabel("performance / peak")
    error.set_xlabel(AXIS_LABEL)
    roof.set_title(view.title, fontsize=10, parse_math=False, y=1.0)  # placed, not searched for: the search costs a second
    handles = [Line2D([], [], color="black", lw=2, label="the roof: min(peak, ai*bw)"),
               Line2D([], [], marker="o", ls="", markerfacecolor="white", markeredgecolor="black",
                      label="expected (golden model)")]
    for what, (label, marker, color) in STYLES.items():
        chosen = [p for p in view.points if p.what == what]
        if not chosen:
            continue
        at = [_clip(p.x, xlim) for p in chosen]
        expected = [_clip(p.expected, ylim) for p in chosen]
        roof.plot(at, expected, ls="", marker="o", markerfacecolor="none", markeredgecolor="black",
                  markersize=EXPECTED_SIZE, gid=f"expected-{what}", clip_on=False, zorder=5)
        wrong = [p for p in chosen if p.actual is not None]
        if wrong:
            roof.add_collection(LineCollection(  # one artist for every miss: a line each costs a picture seconds
                [[(_clip(p.x, xlim), _clip(p.expected, ylim)), (_clip(p.x, xlim), _clip(p.actual or 0, ylim))] for p in wrong],
                colors=color, linewidths=0.6, alpha=0.6 if len(wrong) < 40 else 0.15, gid=f"miss-{what}"))
            roof.plot([_clip(p.x, xlim) for p in wrong], [_clip(p.actual or 0, ylim) for p in wrong], ls="", marker=marker,
                      color=color, markersize=SIZES[what], gid=f"wrong-{what}", clip_on=False, zorder=4)
            error.plot([_clip(p.x, xlim) for p in wrong], [_clip(p.error_lsb or 0.0, (-reach, reach)) for p in wrong], ls="",
                       marker=marker, color=color, markersize=5, gid=f"error-{what}", clip_on=False)
        else:
            roof.plot(at, expected, ls="", marker=marker, color=color, markerfacecolor="none", markersize=SIZES[what],
                      markeredgewidth=1.6, gid=f"wrong-{what}", clip_on=False, zorder=6)
        handles.append(Line2D([], [], marker=marker, ls="", color=color, markerfacecolor="none" if what in HOLLOW else color,
                              label=f"wrong: {label} ({len(chosen)})"))
    error.axhspan(-0.5, 0.5, color="#2ca02c", alpha=0.15, lw=0, gid="rounding-band")
    error.axhline(0, color="0.3", lw=0.6)
    error.set_yscale("symlog", linthresh=1)
    error.set_ylim(-reach, reach)
    ticks = _error_ticks(reach)
    error.set_yticks(ticks, [_lsbs(tick) for tick in ticks])
    error.yaxis.set_minor_locator(NullLocator())
    if not errors:
        error.text(0.5, 0.25, "no wrong cap: every wrong output here is a verdict", transform=error.transAxes,
                   ha="center", fontsize=8, color="0.3")
    error.set_ylabel("cap - exact (LSBs)")
    error.text(0.01, 0.9, "shaded: the rounding band, within half an LSB of the exact value", transform=error.transAxes,
               fontsize=7, color="#2a6a2a", va="top")
    roof.legend(handles=handles, fontsize=7.5, loc="lower right", framealpha=0.9)
    labelled = _label_cases(roof, view, xlim, ylim)
    note = f"{view.vectors} failing vector(s)" + (f"; not drawn: {', '.join(view.not_drawn)}" if view.not_drawn else "")
    cases = len({p.case for p in view.points})
    note += f"; named: {'every one' if labelled >= cases else f'{labelled} of {cases}, spread along the roof'}"
    note += "\na value of 0 or beyond the axes is drawn at their edge"
    fig.text(0.1, 0.012, note, fontsize=7.5, color="0.3", parse_math=False)
    return fig


def _label_cases(roof: Any, view: Misses, xlim: tuple[float, float], ylim: tuple[float, float]) -> int:
    """Name the failing cases where they are drawn: one label for each place (cases that fall on one
    spot share it, up to NAMES_PER_LABEL names and a count); beyond MAX_LABELLED places, that many
    spread along the roof. Returns how many cases are named."""
    places: dict[tuple[int, int], list[str]] = {}
    for point in view.points:
        x, y = _clip(point.x, xlim), _clip(point.actual if point.actual is not None else point.expected, ylim)
        key = (round(20 * math.log10(x)), round(20 * math.log10(y)))  # a twentieth of a decade: one spot
        names = places.setdefault(key, [])
        if point.case not in names:
            names.append(point.case)
    chosen = sorted(places)
    if len(chosen) > MAX_LABELLED:
        step = (len(chosen) - 1) / (MAX_LABELLED - 1)
        chosen = [chosen[round(i * step)] for i in range(MAX_LABELLED)]
    named = set()
    right = math.log10(xlim[0]) + 0.7 * (math.log10(xlim[1]) - math.log10(xlim[0]))  # labels there go to the left
    low = math.log10(ylim[0]) + 0.2 * (math.log10(ylim[1]) - math.log10(ylim[0]))  # labels there go up
    for index, (x, y) in enumerate(chosen):
        names = places[x, y]
        shown = names[:NAMES_PER_LABEL]
        named.update(shown)
        text = ", ".join(shown) + (f" +{len(names) - len(shown)} more" if len(names) > len(shown) else "")
        dx, dy = LABEL_OFFSETS[index % len(LABEL_OFFSETS)]
        dx = -abs(dx) if x / 20 > right else abs(dx)
        dy = abs(dy) if y / 20 < low else dy
        roof.annotate(text, (10 ** (x / 20), 10 ** (y / 20)), xytext=(dx, dy), textcoords="offset points", fontsize=6.5,
                      ha="left" if dx > 0 else "right", va="center", color="0.15", gid="case-label", annotation_clip=False,
                      zorder=7, arrowprops={"arrowstyle": "-", "color": "0.45", "lw": 0.6, "shrinkA": 0, "shrinkB": 4},
                      bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "0.7", "alpha": 0.8, "lw": 0.4})
    return len(named)


def _reach(view: Misses) -> tuple[float, list[float]]:
    """The error panel's half height (LSBs), and the finite errors it holds."""
    errors = [abs(p.error_lsb) for p in view.points if p.error_lsb is not None and math.isfinite(p.error_lsb)]
    return max([2.0, *errors]) * 1.5, errors


def _error_ticks(reach: float) -> list[float]:
    """0, the band's edges' neighbours 1 and -1, and up to four decades either side: readable on a symlog axis."""
    decades = max(0, math.floor(math.log10(reach)))
    step = max(1, math.ceil(decades / 4))
    ups = [10.0 ** k for k in range(0, decades + 1, step)]
    return [-v for v in reversed(ups)] + [0.0] + ups


def _lsbs(value: float) -> str:
    if value == 0:
        return "0"
    exponent = round(math.log10(abs(value)))
    return ("-" if value < 0 else "") + ("1" if exponent == 0 else f"1e{exponent}")


def _decade(value: float) -> str:
    """A log axis's tick label: 0.01 to 100 as decimals, beyond as 1e-3, 1e3."""
    if value <= 0:
        return ""
    exponent = round(math.log10(value))
    return f"{value:g}" if -2 <= exponent <= 2 else f"1e{exponent}"


def _limits(values: list[float], anchor: float, top: float | None = None) -> tuple[float, float]:
    """Whole decades around the finite positive values and `anchor`, at least one decade either side."""
    finite = [v for v in values if 0 < v < math.inf] + [anchor]
    low = 10.0 ** math.floor(math.log10(min(finite)) - 1e-9)
    high = 10.0 ** math.ceil(math.log10(max(finite)) + 1e-9)
    low, high = min(low, anchor / 10), max(high, anchor * 10)
    return low, (max(high, top) if top else high)


def _clip(value: float, limits: tuple[float, float]) -> float:
    """A value within the axes: on log axes 0 at the lower edge, infinity at the upper one."""
    return min(max(value, limits[0]), limits[1])
