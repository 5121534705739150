"""`roofline plot -o x.html`: one self-contained interactive page (Plotly, its JavaScript inlined).

Hovering a point shows its kernel, level, intensity, cap, binding roof, measured rate, fraction
of the cap and headroom (and the RTL's cap under --rtl). Check boxes above the plot show or hide
each memory level and each peak precision: a trace is shown when its level and its precision are
both ticked. Every trace carries {"level", "precision", "role"} in `meta` for that.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from .place import Placement, number
from .platform import Platform

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf")
DASHES = ("solid", "dash", "dot", "dashdot")
ANY = "*"  # a roof line that belongs to every precision (a level's roof) or every level (a peak)
DIV_ID = "roofline"

# After Plotly draws: the check boxes, and one console line that a headless browser test waits for.
TOGGLES_JS = """
const gd = document.getElementById("%(div)s");
const traces = gd.data.map((trace) => trace.meta || {});
const groups = {level: %(levels)s, precision: %(precisions)s};
const shown = {level: new Set(groups.level), precision: new Set(groups.precision)};
const bar = document.createElement("div");
bar.id = "roofline-toggles";
bar.style.cssText = "font: 14px sans-serif; margin: 8px 0 0 60px";
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
      const visible = traces.map((m) => (m.level === "*" || shown.level.has(m.level))
                                        && (m.precision === "*" || shown.precision.has(m.precision)));
      Plotly.restyle(gd, {visible: visible});
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
    import plotly.graph_objects as go

    levels = [level.name for level in platform.levels]
    precisions = list(platform.peaks)
    intensities = [float(r.intensity) for p in placements for r in p.rows if r.intensity > 0]
    ridges = [float(peak / level.bandwidth) for peak in platform.peaks.values() for level in platform.levels]
    low, high = min(intensities + ridges) / 8, max(intensities + ridges) * 8
    top_peak = max(platform.peaks.values())
    color = {name: COLORS[i % len(COLORS)] for i, name in enumerate(levels)}
    fig = go.Figure()

    for level in platform.levels:
        ridge = float(top_peak / level.bandwidth)
        fig.add_trace(go.Scatter(x=[low, ridge], y=[low * float(level.bandwidth), float(top_peak)], mode="lines",
                                 line={"color": color[level.name], "width": 2.5},
                                 name=f"{level.name} roof: {number(level.bandwidth)} GB/s",
                                 meta={"level": level.name, "precision": ANY, "role": "roof"}, hoverinfo="name"))
    for i, (precision, peak) in enumerate(platform.peaks.items()):
        start = float(min(peak / level.bandwidth for level in platform.levels))
        fig.add_trace(go.Scatter(x=[start, high], y=[float(peak)] * 2, mode="lines",
                                 line={"color": "black", "width": 2.5, "dash": DASHES[i % len(DASHES)]},
                                 name=f"peak {precision}: {number(peak)} GFLOP/s",
                                 meta={"level": ANY, "precision": precision, "role": "roof"}, hoverinfo="name"))

    for precision in precisions:
        group = [p for p in placements if p.kernel.precision == precision]
        for level in levels:
            for binds in (True, False):
                rows = [(p, r) for p in group if (p.binding == level) == binds
                        for r in p.rows if r.level == level and r.intensity > 0 and r.cap > 0]
                if not rows:
                    continue
                data = [_point_rows(p, level, rtl_caps) for p, _ in rows]
                fig.add_trace(go.Scatter(
                    x=[float(r.intensity) for _, r in rows], y=[float(r.cap) for _, r in rows], mode="markers",
                    marker={"size": 10 if binds else 7, "color": color[level] if binds else "white",
                            "line": {"color": color[level], "width": 1.5}, "symbol": "circle"},
                    name=f"{precision} kernels at {level}" + (" (binding)" if binds else ""),
                    customdata=data, hovertemplate=HOVER, uid=f"kernels-{len(fig.data)}",
                    meta={"level": level, "precision": precision, "role": "kernel"}))
        compute = [p for p in group if p.binding == "compute" and p.cap > 0]
        if compute:  # where a compute-bound kernel meets the flat roof
            anchors = [max(p.rows, key=lambda r: r.intensity) for p in compute]
            fig.add_trace(go.Scatter(
                x=[float(a.intensity) for a in anchors], y=[float(p.cap) for p in compute], mode="markers",
                name=f"{precision} compute-bound", marker={"symbol": "square", "size": 9, "color": "black"},
                customdata=[_point_rows(p, a.level, rtl_caps) for p, a in zip(compute, anchors, strict=True)],
                hovertemplate=HOVER, meta={"level": ANY, "precision": precision, "role": "compute"}))
        measured = [p for p in group if p.kernel.measured]
        if measured:
            anchors = [next((r for r in p.rows if r.level == p.binding), max(p.rows, key=lambda r: r.intensity))
                       for p in measured]
            fig.add_trace(go.Scatter(
                x=[float(a.intensity) for a in anchors], y=[float(p.kernel.measured or 0) for p in measured],
                mode="markers", name=f"{precision} measured",
                marker={"symbol": "star", "size": 13, "color": ["red" if p.above_roof else "black" for p in measured]},
                customdata=[_point_rows(p, a.level, rtl_caps) for p, a in zip(measured, anchors, strict=True)],
                hovertemplate=HOVER, meta={"level": ANY, "precision": precision, "role": "measured"}))

    lowest_cap = min([float(p.cap) for p in placements if p.cap > 0] + [float(top_peak)])
    fig.update_layout(
        title=title or f"Roofline: {platform.name}", template="plotly_white", height=720,
        xaxis={"type": "log", "title": "arithmetic intensity (FLOP/B)", "range": _log_range(low, high)},
        yaxis={"type": "log", "title": "attainable performance (GFLOP/s)",
               "range": _log_range(lowest_cap / 10, float(top_peak) * 3)},
        legend={"font": {"size": 11}}, hoverlabel={"align": "left"},
    )
    script = TOGGLES_JS % {"div": DIV_ID, "levels": json.dumps(levels), "precisions": json.dumps(precisions)}
    out.parent.mkdir(parents=True, exist_ok=True)
    html = fig.to_html(full_html=True, include_plotlyjs=True, div_id=DIV_ID, post_script=script,
                       config={"displaylogo": False, "responsive": True})
    out.write_text(html, encoding="utf-8")


def _log_range(low: float, high: float) -> list[float]:
    import math

    return [math.log10(low), math.log10(high)]
