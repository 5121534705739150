"""What both plots draw, and where their labels go: the PNG/SVG (plot.py) and the HTML page
(plot_html.py) take the same roofs, ridges, axes, labels and label positions from here.

- Numbers print to three significant figures, rates and bandwidths with the prefix that fits
  (`19.5 TFLOP/s`, `1.56 TB/s`, `0.17 FLOP/B`).
- Peaks of equal value are one roof named by every precision that has it; every peak has a ridge
  on every level, and every ridge is labelled.
- Axes span whole decades, so every decade has a labelled major tick.
- Labels are placed in pixels: each tries positions around its point, nearest first, and takes
  the one that overlaps no label placed before it, stays inside the axes and covers the fewest
  points. A label with no such place is left out and counted (hover shows every kernel in the page).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from roofline_cli.place import Placement
from roofline_cli.platform import Platform

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")
MAX_POINTS = 400  # more kernels than this are drawn as a density in the PNG
MAX_LABELS = 20  # kernels labelled at most: a sample spread along the intensity axis
# Label positions tried: the gap (pixels) between a point and its label's box, in 8 directions.
GAPS = (4, 12, 24, 40, 60, 85, 115, 150)
DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))
MARKER_RADIUS = 6.0  # pixels of a point that a label should not cover
COVER_PENALTY = 40.0  # a covered point costs as much as this many pixels of distance
LINE_PENALTY = 4.0  # and each covered sample of a roof line (one every LINE_STEP pixels) this many
LINE_STEP = 4.0
CROSSING_PENALTY = 60.0  # a leader line crossing another, or a label over another's leader
SEPARATION = 3.0  # pixels kept free between two labels, and between a label and the axes


def three(value: Fraction | float) -> str:
    """Three significant figures, rounded half up, without an exponent or trailing zeros: 0.17, 1.56, 130, 1000."""
    exact = abs(Fraction(value))
    if exact == 0:
        return "0"
    exponent = math.floor(math.log10(exact))
    while Fraction(10) ** exponent > exact:  # log10 of a float can be one off
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= exact:
        exponent += 1
    digits = math.floor(exact / Fraction(10) ** (exponent - 2) + Fraction(1, 2))
    if digits == 1000:  # 999.7 rounds to 1000
        digits, exponent = 100, exponent + 1
    places = 2 - exponent  # digits after the decimal point
    text = str(digits * 10 ** -places) if places <= 0 else f"{digits // 10 ** places}.{digits % 10 ** places:0{places}d}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return ("-" if value < 0 else "") + text


# Prefixes of a quantity given in giga-units (GFLOP/s, GB/s), largest first.
GIGA_PREFIXES = tuple((Fraction(10) ** power, prefix) for power, prefix in ((6, "P"), (3, "T"), (0, "G"), (-3, "M"), (-6, "k")))


def prefixed(value: Fraction | float, unit: str, prefixes: Sequence[tuple[Fraction, str]] = GIGA_PREFIXES) -> str:
    """`value` (in the unit of scale 1) with the largest prefix it reaches after rounding."""
    rounded = Fraction(three(value))
    scale, prefix = next(((s, p) for s, p in prefixes if abs(rounded) >= s), prefixes[-1])
    return f"{three(Fraction(value) / scale)} {prefix}{unit}"


def rate(gflops: Fraction | float) -> str:
    """A rate given in GFLOP/s: 130 GFLOP/s, 19.5 TFLOP/s, 850 MFLOP/s."""
    return prefixed(gflops, "FLOP/s")


def bandwidth(gbs: Fraction | float) -> str:
    """A bandwidth given in GB/s: 1.56 TB/s, 200 GB/s."""
    return prefixed(gbs, "B/s")


def intensity(flop_per_byte: Fraction | float) -> str:
    return f"{three(flop_per_byte)} FLOP/B"


def tick_text(value: float) -> str:
    """A decade's tick: 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M."""
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{three(value / scale)}{suffix}"
    return three(value)


@dataclass(frozen=True)
class Peak:
    names: tuple[str, ...]  # every precision with this peak, in file order
    value: Fraction  # GFLOP/s
    style: int  # 0, 1, 2 ...: the line style of this roof (solid, dashed, dotted ...)

    @property
    def label(self) -> str:
        return f"{', '.join(self.names)}: {rate(self.value)}"


@dataclass(frozen=True)
class RoofLine:
    """A level's slope (up to its ridge on the highest peak) or a peak's flat roof, in data units."""

    start: tuple[float, float]
    end: tuple[float, float]
    color: str
    style: int  # -1: a level's solid slope; 0, 1, 2 ...: the line style of a distinct peak
    legend: str
    level: str = "*"  # the level of a slope; "*" for a peak
    precisions: tuple[str, ...] = ()  # the precisions of a peak; () for a slope (every precision)


@dataclass(frozen=True)
class Label:
    x: float  # the point labelled, in data units
    y: float
    lines: tuple[str, ...]
    kind: str  # "ridge" or "kernel"
    color: str
    level: str = ""  # a ridge's level; a kernel's binding level ("compute" on the flat roof)
    precisions: tuple[str, ...] = ()  # the precisions the labelled thing belongs to


@dataclass(frozen=True)
class Scene:
    peaks: tuple[Peak, ...]
    roofs: tuple[RoofLine, ...]  # the levels' slopes, then the peaks
    level_colors: dict[str, str]
    xlim: tuple[float, float]
    ylim: tuple[float, float]
    labels: tuple[Label, ...]  # ridges first (placed first), then kernels
    kernels_drawable: int  # kernels with a point on log axes

    def decades(self, axis: str) -> list[float]:
        low, high = self.xlim if axis == "x" else self.ylim
        return [10.0 ** e for e in range(round(math.log10(low)), round(math.log10(high)) + 1)]

    def note(self, centres: Sequence[tuple[float, float] | None]) -> str:
        """Said when not every kernel got a label (too many, or no free place for some)."""
        labelled = sum(1 for label, centre in zip(self.labels, centres, strict=True) if label.kind == "kernel" and centre)
        ridges = [label for label, centre in zip(self.labels, centres, strict=True) if label.kind == "ridge" and not centre]
        parts = [f"labels for {labelled} of {self.kernels_drawable} kernels"] if labelled < self.kernels_drawable else []
        if ridges:
            parts.append(f"{len(ridges)} ridge label(s) left out for want of room")
        return "; ".join(parts)


def distinct_peaks(platform: Platform) -> tuple[Peak, ...]:
    by_value: dict[Fraction, list[str]] = {}
    for name, value in platform.peaks.items():
        by_value.setdefault(value, []).append(name)
    return tuple(Peak(tuple(names), value, index) for index, (value, names) in enumerate(by_value.items()))


def anchor(placement: Placement) -> tuple[float, float] | None:
    """Where a kernel is labelled: its binding level's point, or where it meets the flat roof."""
    row = next((r for r in placement.rows if r.level == placement.binding), None)
    if placement.binding == "compute" or row is None:
        row = max(placement.rows, key=lambda r: r.intensity)
    if row.intensity <= 0 or placement.cap <= 0:
        return None
    return float(row.intensity), float(placement.cap)


def _decade_floor(value: float) -> float:
    return 10.0 ** math.floor(math.log10(value) + 1e-9)


def _decade_ceil(value: float) -> float:
    return 10.0 ** math.ceil(math.log10(value) - 1e-9)


def scene(platform: Platform, placements: list[Placement], rtl_caps: dict[str, Fraction] | None = None) -> Scene:
    peaks = distinct_peaks(platform)
    colors = {level.name: COLORS[i % len(COLORS)] for i, level in enumerate(platform.levels)}
    intensities = [float(r.intensity) for p in placements for r in p.rows if r.intensity > 0]
    ridges = [float(peak.value / level.bandwidth) for peak in peaks for level in platform.levels]
    top = float(max(platform.peaks.values()))
    caps = [float(p.cap) for p in placements if p.cap > 0] + [float(min(platform.peaks.values()))]
    measured = [float(p.kernel.measured) for p in placements if p.kernel.measured]
    xlim = (_decade_floor(min(intensities + ridges) / 2), _decade_ceil(max(intensities + ridges) * 2))
    ylim = (_decade_floor(min(caps + measured) / 3), _decade_ceil(max([top] + measured) * 2))

    highest = max(peak.value for peak in peaks)
    roofs = [RoofLine((xlim[0], xlim[0] * float(level.bandwidth)), (float(highest / level.bandwidth), float(highest)),
                      colors[level.name], -1, f"{level.name}: {bandwidth(level.bandwidth)}", level.name)
             for level in platform.levels]
    roofs += [RoofLine((float(min(peak.value / level.bandwidth for level in platform.levels)), float(peak.value)),
                       (xlim[1], float(peak.value)), "black", peak.style, f"peak {peak.label}", "*", peak.names)
              for peak in peaks]
    labels = [Label(float(peak.value / level.bandwidth), float(peak.value), (f"{level.name} ridge",
                    intensity(peak.value / level.bandwidth)), "ridge", colors[level.name], level.name, peak.names)
              for peak in peaks for level in platform.levels]
    kernels = []
    for placement in placements:
        point = anchor(placement)
        if point is None:
            continue
        cap_line = rate(placement.cap)
        if rtl_caps and placement.kernel.name in rtl_caps:
            cap_line += f" (RTL {rate(rtl_caps[placement.kernel.name])})"
        color = colors.get(placement.binding, "black")
        kernels.append(Label(*point, (placement.kernel.name, cap_line), "kernel", color, placement.binding,
                             (placement.kernel.precision,)))
    drawable = len(kernels)
    if len(kernels) > MAX_LABELS:  # a readable sample, spread along the intensity axis
        ordered = sorted(kernels, key=lambda label: (label.x, label.y))
        kernels = [ordered[round(i * (len(ordered) - 1) / (MAX_LABELS - 1))] for i in range(MAX_LABELS)]
    return Scene(peaks, tuple(roofs), colors, xlim, ylim, tuple(labels + kernels), drawable)


@dataclass(frozen=True)
class Frame:
    """The axes in pixels: (0, 0) is the bottom left corner; log axes over xlim and ylim."""

    width: float
    height: float
    xlim: tuple[float, float]
    ylim: tuple[float, float]

    def pixel(self, x: float, y: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = (map(math.log10, self.xlim)), (map(math.log10, self.ylim))
        return (math.log10(x) - x0) / (x1 - x0) * self.width, (math.log10(y) - y0) / (y1 - y0) * self.height


Box = tuple[float, float, float, float]  # left, bottom, right, top in pixels


def overlaps(a: Box, b: Box, gap: float = 0.0) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def place_labels(frame: Frame, anchors: Sequence[tuple[float, float]], sizes: Sequence[tuple[float, float]],
                 points: Sequence[tuple[float, float]], lines: Sequence[tuple[float, float]] = ()
                 ) -> list[tuple[float, float] | None]:
    """The centre (pixels) of each label's box, in order, or None where no free place was found.
    anchors: each label's point (pixels); sizes: each box's width and height; points: every marker
    drawn and lines: samples along the roofs, which a label should rather not hide."""
    marks = np.asarray(points, dtype=float).reshape(-1, 2)
    samples = np.asarray(lines, dtype=float).reshape(-1, 2)
    placed: list[Box] = []
    leaders: list[Segment] = []  # from each placed label's point to its box's centre
    centres: list[tuple[float, float] | None] = []
    for (ax, ay), (width, height) in zip(anchors, sizes, strict=True):
        best: tuple[float, Box] | None = None
        for rank, (gap, (dx, dy)) in enumerate((g, d) for g in GAPS for d in DIRECTIONS):
            cx = ax + dx * (gap + width / 2)
            cy = ay + dy * (gap + height / 2)
            box = (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
            if (box[0] < SEPARATION or box[1] < SEPARATION or box[2] > frame.width - SEPARATION
                    or box[3] > frame.height - SEPARATION):
                continue
            if any(overlaps(box, other, SEPARATION) for other in placed):
                continue
            leader = ((ax, ay), (cx, cy))
            if gap > 0 and any(_crosses(leader, other) for other in placed):  # its leader line would cross a label
                continue
            score = (gap + COVER_PENALTY * _covered(marks, box, (ax, ay), MARKER_RADIUS)
                     + LINE_PENALTY * _covered(samples, box, (ax, ay), 1.0)
                     + CROSSING_PENALTY * sum(_segments_cross(leader, other) for other in leaders)
                     + CROSSING_PENALTY * sum(_crosses(other, box) for other in leaders) + rank * 1e-3)
            if best is None or score < best[0]:
                best = (score, box)
        if best is None:
            centres.append(None)
            continue
        box = best[1]
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        placed.append(box)
        leaders.append(((ax, ay), centre))
        centres.append(centre)
    return centres


Segment = tuple[tuple[float, float], tuple[float, float]]


def _crosses(segment: Segment, box: Box) -> bool:
    """Whether the segment passes through the box (clipped to it: Liang-Barsky)."""
    (x0, y0), (x1, y1) = segment
    low, high = 0.0, 1.0
    for p, q in ((x0 - x1, x0 - box[0]), (x1 - x0, box[2] - x0), (y0 - y1, y0 - box[1]), (y1 - y0, box[3] - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def _segments_cross(a: Segment, b: Segment) -> bool:
    def side(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(*a, b[0]) * side(*a, b[1]) < 0 and side(*b, a[0]) * side(*b, a[1]) < 0


def _covered(marks: np.ndarray, box: Box, own: tuple[float, float], radius: float) -> int:
    """Marks (of `radius` pixels) the box would cover, not counting the one it labels."""
    if not len(marks):
        return 0
    r = radius
    inside = ((marks[:, 0] > box[0] - r) & (marks[:, 0] < box[2] + r) & (marks[:, 1] > box[1] - r) & (marks[:, 1] < box[3] + r))
    mine = (np.abs(marks[:, 0] - own[0]) < 1) & (np.abs(marks[:, 1] - own[1]) < 1)
    return int(np.count_nonzero(inside & ~mine))


def marker_points(scene_: Scene, platform: Platform, placements: list[Placement], dense: bool) -> list[tuple[float, float]]:
    """Every marker in data units: kernels' points (the binding ones only when drawn as a density),
    ridges, and measured stars."""
    points = [(label.x, label.y) for label in scene_.labels if label.kind == "ridge"]
    for placement in placements:
        rows = [r for r in placement.rows if r.intensity > 0 and r.cap > 0 and (not dense or r.level == placement.binding)]
        points += [(float(r.intensity), float(r.cap)) for r in rows]
        if (point := anchor(placement)) is not None:
            points.append(point)
            if placement.kernel.measured:
                points.append((point[0], float(placement.kernel.measured)))
    return points


def layout(frame: Frame, scene_: Scene, points: list[tuple[float, float]],
           sizes: Sequence[tuple[float, float]]) -> list[tuple[float, float] | None]:
    """Each label's box centre in pixels of `frame` (None: left out); sizes: each label's box, in order."""
    inside = [(x, y) for x, y in points if scene_.xlim[0] <= x <= scene_.xlim[1] and scene_.ylim[0] <= y <= scene_.ylim[1]]
    samples = [sample for roof in scene_.roofs for sample in _samples(frame, roof)]
    return place_labels(frame, [frame.pixel(label.x, label.y) for label in scene_.labels], sizes,
                        [frame.pixel(x, y) for x, y in inside], samples)


def _samples(frame: Frame, roof: RoofLine) -> list[tuple[float, float]]:
    """Points every LINE_STEP pixels along a roof (straight on log axes)."""
    (x0, y0), (x1, y1) = frame.pixel(*roof.start), frame.pixel(*roof.end)
    steps = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / LINE_STEP))
    return [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(steps + 1)]
