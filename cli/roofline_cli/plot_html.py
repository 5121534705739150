"""`roofline plot -o x.html`: an interactive page (Plotly) with the roofs, ridges, points and labels
of the PNG (plot_layout places them the same way), and hover on every point.

Hovering a point shows its kernel, level, intensity, cap, binding roof, measured rate, fraction
of the cap and headroom (and the RTL's cap under --rtl). Check boxes above the plot show or hide
each memory level and each peak precision, with their labels: a trace or label is shown when its
level and one of its precisions are ticked. Every trace carries {"level", "precisions", "role"} in
`meta`, and every label the same as JSON in its `name`. The legend only explains: roofs, then what
the kernels' marks mean.

The figure has a fixed size, so the labels stay where they were placed. The page loads Plotly from
one script beside it, `plotly-<version>.min.js`, written once and shared by every page in that
folder; copy it with the page.
"""

from __future__ import annotations

import html
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

from roofline_cli.place import Placement, number
from roofline_cli.platform import Platform
from roofline_cli.plot_layout import Frame, Label, Scene, layout, marker_points, scene, tick_text

DASHES = ("solid", "dash", "dot", "dashdot")
ANY = "*"  # a roof line that belongs to every precision (a level's roof) or every level (a peak)
DIV_ID = "roofline"
WIDTH, HEIGHT = 1160, 720
MARGIN = {"l": 80, "r": 340, "t": 60, "b": 70}  # the legend stands in the right margin
FONT = "DejaVu Sans, Verdana, sans-serif"  # labels are measured in DejaVu Sans (Verdana is about as wide)
LABEL_SIZE = 11
LINE_SPACING = 1.3  # Plotly's line height, in font sizes
BORDER_PAD = 2
WIDTH_MARGIN = 1.08  # room for a browser whose font runs a little wider than the one measured
LEADER_FROM = 30  # pixels between a label's centre and its point beyond which a leader line joins them

# After Plotly draws: the check boxes, and one console line that a headless browser test waits for.
TOGGLES_JS = """
const gd = document.getElementById("%(div)s");
const traces = gd.data.map((trace) => trace.meta || {});
const notes = (gd.layout.annotations || []).map((note) => JSON.parse(note.name || "{}"));
const groups = {level: %(levels)s, precision: %(precisions)s};
const shown = {level: new Set(groups.level), precision: new Set(groups.precision)};
const visible = (m) => (!m.level || m.level === "*" || m.level === "compute" || shown.level.has(m.level))
                       && (!m.precisions || m.precisions.includes("*") || m.precisions.some((p) => shown.precision.has(p)));
const bar = document.createElement("div");
bar.id = "roofline-toggles";
bar.style.cssText = "font: 14px sans-serif; margin: 8px 0 0 %(left)dpx";
for (const [kind, names] of Object.entries(groups)) {
  const label = document.createElement("span");
  label.textContent = kind === "level" ? "memory levels: " : "peak precisions: ";
  label.style.marginLeft = kind === "level" ? "0" : "24px";
  bar.appendChild(label);
  for (const name of names) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = true;
    box.dataset.kind = kind;
    box.dataset.name = name;
    box.addEventListener("change", () => {
      box.checked ? shown[kind].add(name) : shown[kind].delete(name);
      Plotly.restyle(gd, {visible: traces.map(visible)});
      const update = {};
      notes.forEach((m, i) => { if (m.role !== "note") update[`annotations[${i}].visible`] = visible(m); });
      Plotly.relayout(gd, update);
    });
    const text = document.createElement("label");
    text.append(box, " " + name + "  ");
    bar.appendChild(text);
  }
}
gd.parentNode.insertBefore(bar, gd);
const kernels = new Set(gd.data.filter((t) => (t.meta || {}).role === "kernel")
                                 .flatMap((t) => t.customdata.map((row) => row[0])));
console.log("roofline page ready: " + kernels.size + " kernels");
"""


def _g(value: Fraction | None) -> str:
    return "-" if value is None else number(value)


def _point_rows(placement: Placement, level: str, rtl_caps: dict[str, Fraction] | None) -> list[str] | None:
    row = next(r for r in placement.rows if r.level == level)
    if row.intensity <= 0 or row.cap <= 0:
        return None  # no place on log axes
    kernel = placement.kernel
    binding = "compute roof" if placement.binding == "compute" else f"{placement.binding} roof"
    measured = kernel.measured
    fraction = placement.fraction
    headroom = None if measured is None else placement.cap - measured
    rtl = rtl_caps.get(kernel.name) if rtl_caps else None
    return [kernel.name, kernel.precision, level, _g(row.intensity), _g(row.cap), _g(placement.cap), binding,
            _g(measured), "-" if fraction is None else f"{float(fraction) * 100:.1f}%", _g(headroom),
            "yes" if placement.above_roof else "no", _g(rtl)]


HOVER = ("<b>%{customdata[0]}</b> (%{customdata[1]})<br>level %{customdata[2]}: intensity %{customdata[3]} FLOP/B, "
         "level cap %{customdata[4]} GFLOP/s<br>attainable %{customdata[5]} GFLOP/s, bound by the %{customdata[6]}"
         "<br>measured %{customdata[7]} GFLOP/s (%{customdata[8]} of the cap), headroom %{customdata[9]} GFLOP/s"
         "<br>above the roof: %{customdata[10]}; RTL cap %{customdata[11]}<extra></extra>")


def plot_html(platform: Platform, placements: list[Placement], out: Path, title: str | None = None,
              rtl_caps: dict[str, Fraction] | None = None) -> None:
    from plotly.offline import get_plotlyjs_version

    fig = figure(platform, placements, title, rtl_caps)
    script = TOGGLES_JS % {"div": DIV_ID, "levels": json.dumps([level.name for level in platform.levels]),
                           "precisions": json.dumps(list(platform.peaks)), "left": MARGIN["l"]}
    out.parent.mkdir(parents=True, exist_ok=True)
    bundle = f"plotly-{get_plotlyjs_version()}.min.js"
    share_plotly(out.parent / bundle)
    page = fig.to_html(full_html=True, include_plotlyjs=bundle, div_id=DIV_ID, post_script=script,
                       config={"displaylogo": False, "responsive": False})
    out.write_text(page, encoding="utf-8")


def share_plotly(path: Path) -> None:
    """The Plotly bundle every page in the folder loads: written when missing or not this version's."""
    from plotly.offline import get_plotlyjs

    bundle = get_plotlyjs().encode("utf-8")
    if not path.is_file() or path.stat().st_size != len(bundle) or path.read_bytes() != bundle:
        path.write_bytes(bundle)


def figure(platform: Platform, placements: list[Placement], title: str | None = None,
           rtl_caps: dict[str, Fraction] | None = None) -> Any:
    import plotly.graph_objects as go

    view = scene(platform, placements, rtl_caps)
    fig = go.Figure()
    _roofs(fig, view)
    _kernels(fig, view, platform, placements, rtl_caps)
    _legend_marks(fig, placements)
    frame = Frame(WIDTH - MARGIN["l"] - MARGIN["r"], HEIGHT - MARGIN["t"] - MARGIN["b"], view.xlim, view.ylim)
    centres = layout(frame, view, marker_points(view, platform, placements, dense=False),
                     [label_size(label) for label in view.labels])
    annotations = [_annotation(frame, label, centre) for label, centre in zip(view.labels, centres, strict=True) if centre]
    if text := view.note(centres):
        annotations.append({"text": html.escape(text) + "; hover shows every kernel", "xref": "paper", "yref": "paper",
                            "x": 1.02, "y": 0, "xanchor": "left", "yanchor": "bottom", "showarrow": False,
                            "font": {"size": 11, "color": "#666"}, "name": json.dumps({"role": "note"})})
    fig.update_layout(
        title=title or f"Roofline: {platform.name}", template="plotly_white", width=WIDTH, height=HEIGHT,
        margin={**MARGIN, "autoexpand": False}, font={"family": FONT},
        xaxis=_axis(view, "x", "arithmetic intensity (FLOP/B)"), yaxis=_axis(view, "y", "attainable performance (GFLOP/s)"),
        legend={"font": {"size": 11}, "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top", "itemclick": False,
                "itemdoubleclick": False, "tracegroupgap": 14, "groupclick": "toggleitem"},
        hoverlabel={"align": "left"}, annotations=annotations,
    )
    return fig


def _axis(view: Scene, name: str, title: str) -> dict[str, Any]:
    low, high = view.xlim if name == "x" else view.ylim
    decades = view.decades(name)
    minor = [step * value for value in decades[:-1] for step in range(2, 10)]
    return {"type": "log", "title": title, "range": [math.log10(low), math.log10(high)], "tickmode": "array",
            "tickvals": decades, "ticktext": [tick_text(value) for value in decades], "ticks": "outside",
            "showline": True, "mirror": True, "linecolor": "#444", "gridcolor": "#d0d0d0", "zeroline": False,
            "minor": {"tickmode": "array", "tickvals": minor, "ticks": "outside", "ticklen": 3, "showgrid": True,
                      "gridcolor": "#f0f0f0"}}


def _roofs(fig: Any, view: Scene) -> None:
    import plotly.graph_objects as go

    for index, roof in enumerate(view.roofs):
        (x0, y0), (x1, y1) = roof.start, roof.end
        fig.add_trace(go.Scatter(
            x=[x0, x1], y=[y0, y1], mode="lines", name=roof.legend, hoverinfo="name",
            line={"color": roof.color, "width": 2.5, "dash": DASHES[roof.style % len(DASHES)] if roof.style >= 0 else "solid"},
            legendgroup="roofs", legendgrouptitle={"text": "roofs"} if index == 0 else None,
            meta={"level": roof.level, "precisions": list(roof.precisions) or [ANY], "role": "roof"}))
    for level, color in view.level_colors.items():
        ridges = [label for label in view.labels if label.kind == "ridge" and label.level == level]
        fig.add_trace(go.Scatter(
            x=[r.x for r in ridges], y=[r.y for r in ridges], mode="markers", showlegend=False, hoverinfo="text",
            text=[" ".join(r.lines) for r in ridges], marker={"symbol": "diamond", "size": 10, "color": color},
            meta={"level": level, "precisions": [ANY], "role": "ridge"}))


def _kernels(fig: Any, view: Scene, platform: Platform, placements: list[Placement],
             rtl_caps: dict[str, Fraction] | None) -> None:
    import plotly.graph_objects as go

    for precision in platform.peaks:
        group = [p for p in placements if p.kernel.precision == precision]
        for level in (level.name for level in platform.levels):
            for binds in (True, False):
                rows = [(p, r) for p in group if (p.binding == level) == binds
                        for r in p.rows if r.level == level and r.intensity > 0 and r.cap > 0]
                if not rows:
                    continue
                fig.add_trace(go.Scatter(
                    x=[float(r.intensity) for _, r in rows], y=[float(r.cap) for _, r in rows], mode="markers",
                    marker={"size": 10 if binds else 7, "color": view.level_colors[level] if binds else "white",
                            "line": {"color": view.level_colors[level], "width": 1.5}, "symbol": "circle"},
                    name=f"{precision} kernels at {level}" + (" (binding)" if binds else ""), showlegend=False,
                    customdata=[_point_rows(p, level, rtl_caps) for p, _ in rows], hovertemplate=HOVER,
                    uid=f"kernels-{len(fig.data)}", meta={"level": level, "precisions": [precision], "role": "kernel"}))
        compute = [p for p in group if p.binding == "compute" and p.cap > 0]
        if compute:  # where a compute-bound kernel meets the flat roof
            anchors = [max(p.rows, key=lambda r: r.intensity) for p in compute]
            fig.add_trace(go.Scatter(
                x=[float(a.intensity) for a in anchors], y=[float(p.cap) for p in compute], mode="markers",
                name=f"{precision} compute-bound", marker={"symbol": "square", "size": 9, "color": "black"}, showlegend=False,
                customdata=[_point_rows(p, a.level, rtl_caps) for p, a in zip(compute, anchors, strict=True)],
                hovertemplate=HOVER, meta={"level": ANY, "precisions": [precision], "role": "compute"}))
        measured = [p for p in group if p.kernel.measured]
        if measured:
            anchors = [next((r for r in p.rows if r.level == p.binding), max(p.rows, key=lambda r: r.intensity))
                       for p in measured]
            fig.add_trace(go.Scatter(
                x=[float(a.intensity) for a in anchors], y=[float(p.kernel.measured or 0) for p in measured],
                mode="markers", name=f"{precision} measured", showlegend=False,
                marker={"symbol": "star", "size": 13, "color": ["red" if p.above_roof else "black" for p in measured]},
                customdata=[_point_rows(p, a.level, rtl_caps) for p, a in zip(measured, anchors, strict=True)],
                hovertemplate=HOVER, meta={"level": ANY, "precisions": [precision], "role": "measured"}))


def _legend_marks(fig: Any, placements: list[Placement]) -> None:
    """Legend entries that only explain a mark (they draw nothing): the ridge, then the kernels' marks."""
    import plotly.graph_objects as go

    marks = [("roofs", "ridge: peak / bandwidth", {"symbol": "diamond", "size": 10, "color": "grey"}),
             ("kernels", "point where a level binds", {"symbol": "circle", "size": 10, "color": "grey"}),
             ("kernels", "point at another level", {"symbol": "circle", "size": 7, "color": "white",
                                                    "line": {"color": "grey", "width": 1.5}})]
    if any(p.binding == "compute" and p.cap > 0 for p in placements):
        marks.append(("kernels", "compute-bound: on the flat roof", {"symbol": "square", "size": 9, "color": "black"}))
    if any(p.kernel.measured and not p.above_roof for p in placements):
        marks.append(("kernels", "measured", {"symbol": "star", "size": 13, "color": "black"}))
    if any(p.above_roof for p in placements):
        marks.append(("kernels", "measured, above its roof", {"symbol": "star", "size": 13, "color": "red"}))
    titled: set[str] = set()
    for group, name, marker in marks:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name, marker=marker, legendgroup=group,
                                 legendgrouptitle={"text": group} if group not in titled else None, hoverinfo="skip",
                                 meta={"role": "legend"}))
        titled.add(group)


def label_size(label: Label) -> tuple[float, float]:
    """A label's box in the page, in pixels, measured in DejaVu Sans (matplotlib's font metrics)."""
    width = max(_text_width(line) for line in label.lines) * WIDTH_MARGIN
    return width + 2 * BORDER_PAD + 2, len(label.lines) * LABEL_SIZE * LINE_SPACING + 2 * BORDER_PAD + 2


_RENDERER: Any = None


def _text_width(text: str) -> float:
    global _RENDERER
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    if _RENDERER is None:
        _RENDERER = RendererAgg(8, 8, 72)  # at 72 dpi a point is a pixel
    width, _, _ = _RENDERER.get_text_width_height_descent(text, FontProperties(family="DejaVu Sans", size=LABEL_SIZE),
                                                          ismath=False)
    return float(width)


def _annotation(frame: Frame, label: Label, centre: tuple[float, float]) -> dict[str, Any]:
    px, py = frame.pixel(label.x, label.y)
    dx, dy = centre[0] - px, centre[1] - py
    near = abs(dx) + abs(dy) <= LEADER_FROM
    return {"x": math.log10(label.x), "y": math.log10(label.y), "xref": "x", "yref": "y",  # log axes take log10
            "text": "<br>".join(html.escape(line) for line in label.lines), "showarrow": True, "arrowhead": 0,
            "arrowwidth": 0.8, "arrowcolor": "rgba(0,0,0,0)" if near else "#888", "ax": dx, "ay": -dy,
            "axref": "pixel", "ayref": "pixel", "xanchor": "center", "yanchor": "middle", "standoff": 4,
            "bgcolor": "rgba(255,255,255,0.9)", "borderpad": BORDER_PAD,
            "font": {"size": LABEL_SIZE, "color": label.color if label.kind == "ridge" else "black"},
            "name": json.dumps({"role": label.kind, "level": label.level, "precisions": list(label.precisions)})}
