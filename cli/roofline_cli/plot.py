"""`roofline plot`: the platform's roofs and each kernel's points on log-log axes (matplotlib)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from .place import Placement, number
from .platform import Platform

COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")
# Label offsets (points from the point labelled) tried in turn; the first whose box overlaps
# no label already placed wins.
OFFSETS = ((10, 6), (10, -22), (-10, 6), (-10, -22), (12, 26), (12, -42), (-12, 26), (-12, -42), (14, 46), (14, -62))
CHAR_W, LINE_H = 5.0, 10.5  # points per character and per line at font size 8


MAX_POINTS = 400  # more kernels than this are drawn as a density
MAX_LABELS = 20


def plot(platform: Platform, placements: list[Placement], out: Path, title: str | None = None,
         rtl_caps: dict[str, Fraction] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    intensities = [float(row.intensity) for p in placements for row in p.rows if row.intensity > 0]
    ridges = [float(peak / level.bandwidth) for peak in platform.peaks.values() for level in platform.levels]
    low = min(intensities + ridges) / 8
    high = max(intensities + ridges) * 8
    fig, ax = plt.subplots(figsize=(10, 6.5), dpi=120)
    ax.set_xscale("log")
    ax.set_yscale("log")
    top_peak = max(platform.peaks.values())
    level_color = {level.name: COLORS[i % len(COLORS)] for i, level in enumerate(platform.levels)}

    for level in platform.levels:
        ridge = float(top_peak / level.bandwidth)
        xs = [low, ridge]
        ax.plot(xs, [x * float(level.bandwidth) for x in xs], color=level_color[level.name], linewidth=2,
                label=f"{level.name}: {number(level.bandwidth)} GB/s")
    for i, (precision, peak) in enumerate(platform.peaks.items()):
        start = float(min(peak / level.bandwidth for level in platform.levels))
        ax.plot([start, high], [float(peak)] * 2, color="black", linewidth=2.5 - 0.6 * i, linestyle=("-", "--", ":")[i % 3],
                label=f"peak {precision}: {number(peak)} GFLOP/s")
        for j, level in enumerate(platform.levels):
            ridge = float(peak / level.bandwidth)
            ax.plot([ridge], [float(peak)], marker="D", color=level_color[level.name], markersize=6, zorder=4)
            if i == 0:  # one label per level, stacked below the first roof so they never collide
                ax.annotate(f"ridge {level.name}: {number(peak / level.bandwidth)} FLOP/B", (ridge, float(peak)),
                            textcoords="offset points", xytext=(6, -14 - 11 * j), fontsize=7, ha="left",
                            color=level_color[level.name])

    labels: list[tuple[float, float, str]] = []
    points: dict[tuple[str, bool], tuple[list[float], list[float]]] = {}  # (level, binds) -> xs, ys
    squares: tuple[list[float], list[float]] = ([], [])
    stars: dict[bool, tuple[list[float], list[float]]] = {False: ([], []), True: ([], [])}  # above the roof?
    for placement in placements:
        for row in placement.rows:
            if row.intensity <= 0 or row.cap <= 0:
                continue
            xs, ys = points.setdefault((row.level, row.level == placement.binding), ([], []))
            xs.append(float(row.intensity))
            ys.append(float(row.cap))
        anchor = next((r for r in placement.rows if r.level == placement.binding), placement.rows[0])
        if placement.binding == "compute":  # on the flat roof: mark where the kernel meets it
            anchor = max(placement.rows, key=lambda r: r.intensity)
            squares[0].append(float(anchor.intensity))
            squares[1].append(float(placement.cap))
        if anchor.intensity > 0 and placement.cap > 0:
            text = f"{placement.kernel.name}\n{number(placement.cap)} GFLOP/s"
            if rtl_caps and placement.kernel.name in rtl_caps:
                text += f" (RTL {number(rtl_caps[placement.kernel.name])})"
            labels.append((float(anchor.intensity), float(placement.cap), text))
        if placement.kernel.measured:
            stars[placement.above_roof][0].append(float(anchor.intensity))
            stars[placement.above_roof][1].append(float(placement.kernel.measured))
    dense = len(placements) > MAX_POINTS
    if dense:  # too many to tell apart: the binding points as a density, the other levels left out
        xs = [x for (_, binds), (level_xs, _) in points.items() if binds for x in level_xs]
        ys = [y for (_, binds), (_, level_ys) in points.items() if binds for y in level_ys]
        cells = ax.hexbin(xs, ys, xscale="log", yscale="log", gridsize=60, mincnt=1, cmap="Blues", zorder=5)
        fig.colorbar(cells, ax=ax, label="kernels (binding point) per cell")
    else:
        for (level, binds), (xs, ys) in points.items():
            ax.plot(xs, ys, linestyle="", marker="o", markersize=9 if binds else 6,
                    markerfacecolor=level_color[level] if binds else "white", markeredgecolor=level_color[level],
                    markeredgewidth=1.5, zorder=5)
        ax.plot(*squares, linestyle="", marker="s", markersize=8, color="black", zorder=6)
    for above, (xs, ys) in stars.items():
        ax.plot(xs, ys, linestyle="", marker="*", markersize=11, color="red" if above else "black", zorder=6)
    if len(labels) > MAX_LABELS:  # a readable sample, spread along the intensity axis
        ordered = sorted(labels)
        labels = [ordered[round(i * (len(ordered) - 1) / (MAX_LABELS - 1))] for i in range(MAX_LABELS)]
        ax.text(0.01, 0.01, f"labels for {MAX_LABELS} of {len(placements)} kernels", transform=ax.transAxes,
                fontsize=8, color="grey")

    ax.set_xlim(low, high)
    lowest_cap = min([float(p.cap) for p in placements if p.cap > 0] + [float(top_peak)])
    ax.set_ylim(lowest_cap / 10, float(top_peak) * 3)
    place_labels(fig, ax, labels)
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("attainable performance (GFLOP/s)")
    ax.set_title(title or f"Roofline: {platform.name}")
    ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    ax.plot([], [], marker="o", linestyle="", markerfacecolor="grey", markeredgecolor="grey", label="binding level")
    ax.plot([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor="grey", label="other levels")
    ax.plot([], [], marker="s", linestyle="", color="black", label="compute-bound kernel")
    if any(p.kernel.measured for p in placements):
        ax.plot([], [], marker="*", linestyle="", color="black", label="measured")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def place_labels(fig: object, ax: object, labels: list[tuple[float, float, str]]) -> None:
    """Annotate each point at the first offset whose estimated box overlaps no earlier label."""
    placed: list[tuple[float, float, float, float]] = []
    points_per_pixel = 72 / fig.dpi  # type: ignore[attr-defined]
    for x, y, text in sorted(labels, key=lambda item: (item[0], item[1])):
        px, py = ax.transData.transform((x, y)) * points_per_pixel  # type: ignore[attr-defined]
        lines = text.split("\n")
        width, height = CHAR_W * max(len(line) for line in lines), LINE_H * len(lines)
        for dx, dy in OFFSETS:
            left = px + dx if dx > 0 else px + dx - width
            box = (left, py + dy, left + width, py + dy + height)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
                break
        placed.append(box)
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=8,  # type: ignore[attr-defined]
                    ha="left" if dx > 0 else "right", va="bottom",
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.85, "lw": 0},
                    arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5})
