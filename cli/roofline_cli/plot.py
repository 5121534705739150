"""`roofline plot -o x.png|x.svg`: the platform's roofs and each kernel's points on log-log axes (matplotlib).

The roofs, ridges, axes, label texts and label places come from plot_layout, as in the HTML page.
The axes keep a fixed place in the figure (the legend stands to their right), so the labels are
placed once, in the pixels they are drawn in.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from roofline_cli.place import Placement
from roofline_cli.platform import Platform
from roofline_cli.plot_layout import MAX_POINTS, Frame, Label, Scene, layout, marker_points, scene, tick_text

FIGSIZE, DPI = (11.5, 6.8), 120
AXES = (0.07, 0.09, 0.64, 0.83)  # left, bottom, width, height (figure fractions): the legend takes the right
LINE_STYLES = ("-", "--", ":", "-.")
FONT_SIZE = 8
LABEL_BOX = {"boxstyle": "round,pad=0.25", "fc": "white", "ec": "none", "alpha": 0.9}
LEADER = {"arrowstyle": "-", "color": "0.55", "lw": 0.6, "shrinkA": 0, "shrinkB": 4}
LEADER_FROM = 30  # pixels between a label's centre and its point beyond which a leader line joins them


def plot(platform: Platform, placements: list[Placement], out: Path, title: str | None = None,
         rtl_caps: dict[str, Fraction] | None = None) -> None:
    fig = figure(platform, placements, title, rtl_caps)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)


def figure(platform: Platform, placements: list[Placement], title: str | None = None,
           rtl_caps: dict[str, Fraction] | None = None) -> Any:
    """The drawn figure; its labels are the texts whose gid starts with "label-"."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    view = scene(platform, placements, rtl_caps)
    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes(AXES)
    _roofs(ax, view)
    dense = len(placements) > MAX_POINTS
    handles = _kernels(fig, ax, view, placements, dense)
    _axes(ax, view, title or f"Roofline: {platform.name}")  # after hexbin, which resets the scales' ticks
    _labels(fig, ax, view, marker_points(view, platform, placements, dense))
    _legend(ax, view, handles)
    return fig


def _axes(ax: Any, view: Scene, title: str) -> None:
    from matplotlib.ticker import FixedFormatter, FixedLocator, LogLocator, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*view.xlim)
    ax.set_ylim(*view.ylim)
    for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
        decades = view.decades(name)
        axis.set_major_locator(FixedLocator(decades))
        axis.set_major_formatter(FixedFormatter([tick_text(value) for value in decades]))
        axis.set_minor_locator(LogLocator(subs=tuple(range(2, 10))))
        axis.set_minor_formatter(NullFormatter())
    ax.tick_params(labelsize=9)
    ax.set_xlabel("arithmetic intensity (FLOP/B)")
    ax.set_ylabel("attainable performance (GFLOP/s)")
    ax.set_title(title)
    ax.grid(True, which="major", linewidth=0.5, alpha=0.6)
    ax.grid(True, which="minor", linewidth=0.3, alpha=0.3)


def _roofs(ax: Any, view: Scene) -> None:
    for roof in view.roofs:
        xs, ys = zip(roof.start, roof.end, strict=True)
        ax.plot(xs, ys, color=roof.color, linewidth=2, linestyle=_style(roof.style))
    for label in view.labels:
        if label.kind == "ridge":
            ax.plot([label.x], [label.y], marker="D", color=label.color, markersize=6, zorder=4)


def _style(style: int) -> str:
    return "-" if style < 0 else LINE_STYLES[style % len(LINE_STYLES)]


def _kernels(fig: Any, ax: Any, view: Scene, placements: list[Placement], dense: bool) -> list[Any]:
    """Draws every kernel's points; returns the legend's kernel entries."""
    from matplotlib.lines import Line2D

    points: dict[tuple[str, bool], tuple[list[float], list[float]]] = {}  # (level, binds) -> xs, ys
    squares: tuple[list[float], list[float]] = ([], [])
    stars: dict[bool, tuple[list[float], list[float]]] = {False: ([], []), True: ([], [])}  # above the roof?
    for placement in placements:
        for row in placement.rows:
            if row.intensity > 0 and row.cap > 0:
                xs, ys = points.setdefault((row.level, row.level == placement.binding), ([], []))
                xs.append(float(row.intensity))
                ys.append(float(row.cap))
        at = max(placement.rows, key=lambda r: r.intensity)
        if placement.binding == "compute" and at.intensity > 0 and placement.cap > 0:
            squares[0].append(float(at.intensity))
            squares[1].append(float(placement.cap))
        if placement.kernel.measured:
            anchor_row = next((r for r in placement.rows if r.level == placement.binding), at)
            stars[placement.above_roof][0].append(float(anchor_row.intensity))
            stars[placement.above_roof][1].append(float(placement.kernel.measured))
    handles = []
    if dense:  # too many to tell apart: the binding points as a density, the other levels left out
        xs = [x for (_, binds), (level_xs, _) in points.items() if binds for x in level_xs]
        ys = [y for (_, binds), (_, level_ys) in points.items() if binds for y in level_ys]
        cells = ax.hexbin(xs, ys, xscale="log", yscale="log", gridsize=60, mincnt=1, cmap="Blues", zorder=5,
                          extent=[*map(_log10, view.xlim), *map(_log10, view.ylim)])
        colorbar_axes = fig.add_axes((AXES[0] + AXES[2] + 0.015, AXES[1], 0.012, 0.3))
        fig.colorbar(cells, cax=colorbar_axes, label="kernels per cell (binding point)")
    else:
        for (level, binds), (xs, ys) in points.items():
            ax.plot(xs, ys, linestyle="", marker="o", markersize=8 if binds else 6,
                    markerfacecolor=view.level_colors[level] if binds else "white",
                    markeredgecolor=view.level_colors[level], markeredgewidth=1.5, zorder=5)
        handles += [Line2D([], [], marker="o", linestyle="", markerfacecolor="grey", markeredgecolor="grey",
                           label="point where a level binds"),
                    Line2D([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor="grey",
                           label="point at another level")]
    ax.plot(*squares, linestyle="", marker="s", markersize=7, color="black", zorder=6)
    if squares[0]:
        handles.append(Line2D([], [], marker="s", linestyle="", color="black", label="compute-bound: on the flat roof"))
    for above, (xs, ys) in stars.items():
        ax.plot(xs, ys, linestyle="", marker="*", markersize=11, color="red" if above else "black", zorder=6)
        if xs:
            handles.append(Line2D([], [], marker="*", linestyle="", markersize=9, color="red" if above else "black",
                                  label="measured, above its roof" if above else "measured"))
    return handles


def _log10(value: float) -> float:
    import math

    return math.log10(value)


def _labels(fig: Any, ax: Any, view: Scene, points: list[tuple[float, float]]) -> None:
    """Each label measured as drawn, placed by plot_layout, and moved there (or left out)."""
    notes = [ax.annotate("\n".join(label.lines), (label.x, label.y), xytext=(0, 0), textcoords="offset points",
                         ha="center", va="center", fontsize=FONT_SIZE, color=_text_color(label), bbox=LABEL_BOX,
                         arrowprops=LEADER, zorder=8, gid=f"label-{label.kind}") for label in view.labels]
    renderer = fig.canvas.get_renderer()
    fig.draw_without_rendering()
    sizes = [note.get_bbox_patch().get_window_extent(renderer) for note in notes]
    box = ax.get_window_extent(renderer)
    frame = Frame(box.width, box.height, view.xlim, view.ylim)
    centres = layout(frame, view, points, [(size.width, size.height) for size in sizes])
    points_per_pixel = 72 / fig.dpi
    for note, label, centre in zip(notes, view.labels, centres, strict=True):
        if centre is None:
            note.remove()
            continue
        px, py = frame.pixel(label.x, label.y)
        note.xyann = ((centre[0] - px) * points_per_pixel, (centre[1] - py) * points_per_pixel)
        note.arrow_patch.set_visible(abs(centre[0] - px) + abs(centre[1] - py) > LEADER_FROM)
    if text := view.note(centres):
        fig.text(AXES[0] + AXES[2] + 0.015, 0.015, text, fontsize=FONT_SIZE, color="0.4", va="bottom")


def _text_color(label: Label) -> str:
    return label.color if label.kind == "ridge" else "black"


def _legend(ax: Any, view: Scene, kernel_handles: list[Any]) -> None:
    """One legend beside the axes: the roofs, then what the kernels' marks mean."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    roofs = [Line2D([], [], color=roof.color, linewidth=2, linestyle=_style(roof.style), label=roof.legend)
             for roof in view.roofs]
    roofs.append(Line2D([], [], marker="D", linestyle="", color="grey", label="ridge: peak / bandwidth"))
    heading = {"roofs": Patch(visible=False, label="roofs"), "kernels": Patch(visible=False, label="kernels")}
    legend = ax.legend(handles=[heading["roofs"], *roofs, heading["kernels"], *kernel_handles], loc="upper left",
                       bbox_to_anchor=(1.02, 1.0), borderaxespad=0, fontsize=FONT_SIZE, frameon=False)
    for text in legend.get_texts():
        if text.get_text() in heading:
            text.set_fontweight("bold")
