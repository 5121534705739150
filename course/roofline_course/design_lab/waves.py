"""A timing diagram of the cycles around a clocked test's first failure, from a replay's Trace.

One column per clock period the bench acted in, from the falling edge where it drives the
inputs and samples the outputs to the next, numbered from the end of the first reset (cycle 1
is the first period after rst_ni rises), as the benches' messages count; cycles the bench
slept through (waiting for done_o, drawn low and dashed there) are one narrow break. Rows: the clock, every input as
driven, every output as read (grey where the bench did not read it that cycle, red hatching for
X/Z), and under each output that differed its expected value wherever a check compared it. The
failing column is wider and shaded, its number red; there a bus shows its raw hex too, and the
lines beneath give the failure in words. A late result's column is shaded with the column its
input was accepted in (blue), whatever cycles lie between. A bus of LEVELS words is drawn as one row per level
(bw_i[0], bw_i[1] ...), as the reports name them.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from roofline_bench.trace import Mark, Trace
from roofline_core.contract import CLOCK_PORT, MODULES, PORT_UNITS
from roofline_core.scoreboard import DOCUMENTS
from roofline_golden import QFormat

MAX_BEFORE = 18  # columns shown up to the failing one
MAX_AFTER = 4  # and after it
COLUMN_IN, FAILING_IN, GAP_IN, LABEL_IN, ROW_IN = 0.62, 1.3, 0.3, 1.9, 0.34  # inches
FIXED_UNITS = ("GFLOP/s", "GB/s", "FLOP/B")  # ports holding fixed-point values; the other units are counts
WRONG, EXPECTED, NOT_SAMPLED, UNKNOWN = "#f4b6b6", "#cdebc5", "#e4e4e4", "#d62728"
Value = int | str | None  # a value, "x" (X/Z), or None (not sampled)
LEGEND = ("each column: one clock period from a falling edge, where the bench drives the inputs and samples the outputs",
          "grey: not sampled in that cycle; a break: cycles not shown (dashed: an output the bench waited on, low throughout)")
MESSAGE_WIDTH = 120  # characters of a failure's message a line beneath the diagram holds
MIN_WIDTH_IN = 10.5  # so that such a line fits


@dataclass(frozen=True)
class Lane:
    name: str  # as the reports name it: a port, a port[level], or a port and "expected"
    role: str  # "input", "output" or "expected"
    bits: int  # 1: a wire, drawn low/high; wider: a bus, drawn with its values
    unit: str
    values: tuple[Value, ...]  # one per column


@dataclass(frozen=True)
class Diagram:
    title: str
    columns: tuple[int | None, ...]  # each column's cycle, counted from the end of reset; None: a break
    skipped: tuple[int, ...]  # for each break, the cycles it stands for
    waits: tuple[str, ...]  # for each break, the output the bench waited on to rise ("": none), low all along
    failing: int  # the failing column's index
    lanes: tuple[Lane, ...]
    notes: tuple[str, ...]  # the failure in words, beneath the diagram
    began: int | None = None  # the column in which the failing case began (a late result's input), if shown

    @property
    def failing_cycle(self) -> int:
        cycle = self.columns[self.failing]
        assert cycle is not None
        return cycle


def diagram(trace: Trace, top: str, fmt: QFormat, levels: int, title: str) -> Diagram | None:
    """The diagram of the trace's first failure; None when it came before the design was out of
    reset (a port's width): there is nothing of the design's behaviour to draw."""
    first = trace.first
    window = [s for s in trace.samples if s.kind in ("read", "write", "expect")]
    if first is None or trace.released is None or first.cycle < trace.released:
        return None
    began = first.cycle - first.since if first.since else None
    cycles = sorted({s.cycle for s in window} | {first.cycle} | ({began} if began is not None else set()))
    at = cycles.index(first.cycle)
    cycles = cycles[max(0, at - MAX_BEFORE):at + MAX_AFTER + 1]
    if began is not None and began not in cycles:
        cycles = sorted({*cycles, began})  # the input of a late result is always shown
    columns, skipped = _columns(cycles)
    module = MODULES[top]
    lanes: list[Lane] = []
    for port in module.ports:
        if port.name == CLOCK_PORT or trace.widths.get(port.name) is None:
            continue
        if port.output:
            values = _read(trace, port.name, columns)
            lanes += _split(port.name, "output", trace.widths[port.name] or 1, values, fmt, levels)
            lanes += [_expected(trace, first, name, columns, values) for name in _differing(first, port.name)]
        else:
            lanes += _split(port.name, "input", trace.widths[port.name] or 1, _driven(trace, port.name, columns), fmt, levels)
    origin = trace.released or 0
    shown = tuple(None if cycle is None else cycle - origin for cycle in columns)
    waited = {s.cycle: s.port for s in trace.samples if s.kind == "wait"}
    waits = tuple(waited.get(before, "") for before, cycle in zip(columns, columns[1:], strict=False) if cycle is None)
    began_column = columns.index(began) if began is not None else None
    return Diagram(title, shown, tuple(skipped), waits, columns.index(first.cycle), tuple(lanes), notes(first, fmt, origin),
                   began_column)


def _columns(cycles: list[int]) -> tuple[list[int | None], list[int]]:
    columns: list[int | None] = []
    skipped = []
    for cycle in cycles:
        previous = columns[-1] if columns else None
        if previous is not None and cycle > previous + 1:
            columns.append(None)
            skipped.append(cycle - previous - 1)
        columns.append(cycle)
    return columns, skipped


def _driven(trace: Trace, port: str, columns: list[int | None]) -> list[Value]:
    """The value an input held in each column: its last write in or before that cycle."""
    writes = [(s.cycle, s.value) for s in trace.samples if s.kind == "write" and s.port == port]  # in the order made
    values: list[Value] = []
    current: Value = trace.held.get(port)
    position = 0
    for cycle in columns:
        if cycle is None:
            values.append(None)
            continue
        while position < len(writes) and writes[position][0] <= cycle:
            current = writes[position][1]
            position += 1
        values.append(current)
    return values


def _read(trace: Trace, port: str, columns: list[int | None]) -> list[Value]:
    """The value an output was read at in each column (its last read there); None if not read."""
    found = {s.cycle: s.value for s in trace.samples if s.kind == "read" and s.port == port}
    return [None if cycle is None else found.get(cycle) for cycle in columns]


def _differing(first: Mark, port: str) -> list[str]:
    """The fields of the failing check that differed and belong to this port ("level_cap_o[1]" to level_cap_o)."""
    return [name for name, expected, actual, _ in first.fields
            if expected != actual and name.split(" ")[0].split("[")[0] == port and not name.endswith(DOCUMENTS)]


def _expected(trace: Trace, first: Mark, name: str, columns: list[int | None], read: list[Value]) -> Lane:
    """An output's expected value in every column a check compared it, the failing one included, and
    only where the design's value was read too (`read`, the output's lane): an expected value with
    nothing beside it to compare would say the design was wrong where it was not looked at."""
    found: dict[int, Value] = {s.cycle: s.value for s in trace.samples if s.kind == "expect" and s.port == name}
    field = next(f for f in first.fields if f[0] == name)
    found[first.cycle] = field[1]
    values = tuple(None if cycle is None or actual is None else found.get(cycle)
                   for cycle, actual in zip(columns, read, strict=True))
    bits = 1 if field[3] == "bit" else 2
    return Lane(f"{name} expected", "expected", bits, _unit(name.split("[")[0]), values)


def _split(port: str, role: str, width: int, values: list[Value], fmt: QFormat, levels: int) -> list[Lane]:
    """One lane per port, or per level of a bus of LEVELS words (bw_i, ai_i, level_cap_o)."""
    unit = _unit(port)
    if levels > 1 and width == levels * fmt.width and unit in FIXED_UNITS:
        return [Lane(f"{port}[{level}]", role, fmt.width, unit,
                     tuple(v if not isinstance(v, int) else (v >> (level * fmt.width)) & fmt.max_raw for v in values))
                for level in range(levels)]
    return [Lane(port, role, width, unit, tuple(values))]


def _unit(port: str) -> str:
    return PORT_UNITS.get(port, "")


def notes(first: Mark, fmt: QFormat, origin: int) -> tuple[str, ...]:
    """The failure in words: where, which vector, and each differing output expected against actual."""
    if first.event:
        what = "an output X or Z" if first.kind == "unresolved" else \
            f"{'an' if first.kind[0] in 'aeiou' else 'a'} {first.kind} failure"  # an error bound, a reset
    else:
        what = f"vector {first.vector_id}" if first.vector_id.isdigit() else first.vector_id
        what += f" ({first.label})" if first.label and first.label != first.vector_id else ""
    lines = [f"first failure in cycle {first.cycle - origin}: {what}"]
    if first.since:
        lines.append(f"its input was accepted in cycle {first.cycle - first.since - origin}, {first.since} cycles before "
                     "(shaded blue)")
    for name, expected, actual, decode in first.fields:
        if expected != actual:
            lines.append(f"{name}: expected {_describe(fmt, expected, decode)}, actual {_describe(fmt, actual, decode)}")
    if first.message:
        lines += textwrap.wrap(first.message, MESSAGE_WIDTH, max_lines=3, placeholder=" ...")
    return tuple(lines)


def _describe(fmt: QFormat, raw: int, decode: str) -> str:
    return fmt.describe(raw, decode) if decode in FIXED_UNITS else str(raw)


def cell_text(value: Value, lane: Lane, fmt: QFormat) -> str:
    """A bus value short enough for its cell: a fixed-point value decoded, a count as a number
    (a value too big for a float, which only a reply that lies about a port's width holds: '>1e308')."""
    if not isinstance(value, int):
        return "X" if value == "x" else ""
    try:
        return compact(float(fmt.to_real(value)) if lane.unit in FIXED_UNITS else float(value))
    except OverflowError:
        return ">1e308"


def compact(value: float) -> str:
    """At most 4 significant figures, without a '+' or leading zeros in the exponent: 1.5, 2.441e-5, 1.845e19."""
    if value.is_integer() and abs(value) < 1e5:
        return str(int(value))
    return f"{value:.4g}".replace("e+", "e").replace("e-0", "e-").replace("e0", "e")


# ---------------------------------------------------------------------------------- drawing


def figure(view: Diagram, fmt: QFormat) -> Any:
    """The drawn diagram (matplotlib, no pyplot): SVG texts keep the cycle numbers and values."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    widths = [GAP_IN if cycle is None else FAILING_IN if i == view.failing else COLUMN_IN
              for i, cycle in enumerate(view.columns)]
    starts = [sum(widths[:i]) for i in range(len(widths))]
    rows = len(view.lanes) + 1  # the clock
    header_in, notes_in = 0.75, 0.22 * (len(view.notes) + 2) + 0.16 * len(LEGEND)
    width_in = max(MIN_WIDTH_IN, LABEL_IN + sum(widths) + 0.3)
    height_in = header_in + rows * ROW_IN + notes_in
    fig = Figure(figsize=(width_in, height_in), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-LABEL_IN, width_in - LABEL_IN)
    ax.set_ylim(height_in, 0)  # inches from the top
    ax.axis("off")
    ax.text(-LABEL_IN + 0.1, 0.25, view.title, fontsize=10, fontweight="bold", va="center", gid="title",
            parse_math=False)
    top = header_in
    _header(ax, view, starts, widths, top)
    _clock(ax, view, starts, widths, top)
    for row, lane in enumerate(view.lanes, 1):
        y = top + row * ROW_IN
        color = {"input": "#1f3b73", "output": "black", "expected": "#2b7a2b"}[lane.role]
        ax.text(-0.1, y + ROW_IN / 2, lane.name + (f" ({lane.unit})" if lane.unit and lane.bits > 1 else ""),
                ha="right", va="center", fontsize=7.5, color=color)
        if lane.bits > 1:
            for first, last in _runs(lane.values, view.columns, view.failing):
                value, failing = lane.values[first], first == view.failing
                _bus(ax, lane, value, starts[first], starts[last] + widths[last], y, fmt,
                     failing and _wrong(view, lane, value), failing)
            continue
        breaks = iter(view.waits)
        for column, value in enumerate(lane.values):
            x0, x1 = starts[column], starts[column] + widths[column]
            if view.columns[column] is None:
                if next(breaks) == lane.name:  # it did not rise while the bench waited: low throughout
                    ax.plot([x0, x1], [y + ROW_IN * 0.8] * 2, color="black", lw=1.2, ls=(0, (2, 2)), gid=f"waited-{lane.name}")
                continue
            failing = column == view.failing
            changed = column == 0 or view.columns[column - 1] is None or lane.values[column - 1] != value
            _wire(ax, lane, value, x0, x1, y, failing and _wrong(view, lane, value), changed)
    x0 = starts[view.failing]
    ax.add_patch(_rectangle(x0, top - 0.3, widths[view.failing], rows * ROW_IN + 0.3, "#d62728", alpha=0.08, gid="failing-cycle"))
    if view.began is not None:
        ax.add_patch(_rectangle(starts[view.began], top - 0.3, widths[view.began], rows * ROW_IN + 0.3, "#1f77b4", alpha=0.12,
                                gid="input-cycle"))
    for index, line in enumerate(view.notes):
        ax.text(-LABEL_IN + 0.1, top + rows * ROW_IN + 0.25 + 0.22 * index, line, fontsize=8,
                color="#a01010" if index else "black", fontweight="bold" if index == 0 else "normal", va="center",
                gid=f"note-{index}", parse_math=False)
    for index, line in enumerate(LEGEND):
        ax.text(-LABEL_IN + 0.1, top + rows * ROW_IN + 0.25 + 0.22 * len(view.notes) + 0.16 * index, line, fontsize=6.5,
                color="0.35", va="center")
    return fig


def _header(ax: Any, view: Diagram, starts: list[float], widths: list[float], top: float) -> None:
    breaks = iter(view.skipped)
    ax.text(-0.1, top - 0.15, "cycle", ha="right", va="center", fontsize=7.5, color="0.3")
    for column, cycle in enumerate(view.columns):
        centre = starts[column] + widths[column] / 2
        if cycle is None:
            ax.text(centre, top - 0.15, f"+{next(breaks)}", ha="center", va="center", fontsize=6, color="0.4", rotation=90)
            continue
        failing = column == view.failing
        ax.text(centre, top - 0.15, str(cycle), ha="center", va="center", fontsize=7.5 if not failing else 8.5,
                color="#b00000" if failing else "0.2", fontweight="bold" if failing else "normal",
                gid="failing-cycle-number" if failing else None)


def _clock(ax: Any, view: Diagram, starts: list[float], widths: list[float], top: float) -> None:
    low, high = top + ROW_IN * 0.8, top + ROW_IN * 0.2
    ax.text(-0.1, top + ROW_IN / 2, CLOCK_PORT, ha="right", va="center", fontsize=7.5)
    for column, cycle in enumerate(view.columns):
        x0, width = starts[column], widths[column]
        if cycle is None:
            _break(ax, x0, width, top)
            continue
        middle = x0 + width / 2
        ax.plot([x0, x0, middle, middle, x0 + width, x0 + width], [high, low, low, high, high, low], color="0.3", lw=0.8)


def _wrong(view: Diagram, lane: Lane, value: Value) -> bool:
    """The failing column of an output whose check differed (its expected lane follows it)."""
    if lane.role != "output":
        return False
    expected = next((other for other in view.lanes if other.name == f"{lane.name} expected"), None)
    return expected is not None and expected.values[view.failing] != value


def _runs(values: tuple[Value, ...], columns: tuple[int | None, ...], failing: int) -> list[tuple[int, int]]:
    """A bus's columns grouped into runs of one value (first and last column of each), drawn as one
    shape: a break ends a run, and the failing column is a run of its own (it shows the raw value)."""
    runs: list[tuple[int, int]] = []
    for column, cycle in enumerate(columns):
        if cycle is None:
            continue
        if (runs and runs[-1][1] == column - 1 and failing not in (column, runs[-1][1])
                and values[runs[-1][0]] == values[column]):
            runs[-1] = (runs[-1][0], column)
        else:
            runs.append((column, column))
    return runs


def _wire(ax: Any, lane: Lane, value: Value, x0: float, x1: float, y: float, wrong: bool, changed: bool) -> None:
    """A 1-bit lane in one column; a change of level is drawn at the column's start."""
    low, high, middle = y + ROW_IN * 0.8, y + ROW_IN * 0.2, y + ROW_IN / 2
    if not isinstance(value, int):
        _unknown(ax, value, x0, x1, y)
        return
    shown = lane.role == "expected" or wrong
    color = "#2b7a2b" if lane.role == "expected" else "black"
    if shown:
        ax.add_patch(_rectangle(x0, high, x1 - x0, low - high, WRONG if wrong else EXPECTED))
        ax.text((x0 + x1) / 2, middle, str(value), ha="center", va="center", fontsize=7)
    ax.plot([x0, x1], [high if value else low] * 2, color=color, lw=1.2)
    if changed:
        ax.plot([x0, x0], [high, low], color=color, lw=0.8)


def _bus(ax: Any, lane: Lane, value: Value, x0: float, x1: float, y: float, fmt: QFormat, wrong: bool,
         failing: bool) -> None:
    """A run of one bus value: a hexagon with the value inside; in the failing column its raw hex too,
    so that values one LSB apart read differently."""
    from matplotlib.patches import Polygon

    if not isinstance(value, int):
        _unknown(ax, value, x0, x1, y)
        return
    low, high, middle, slant = y + ROW_IN * 0.8, y + ROW_IN * 0.2, y + ROW_IN / 2, 0.06
    fill = WRONG if wrong else EXPECTED if lane.role == "expected" else "white"
    corners = [(x0 + slant, high), (x1 - slant, high), (x1, middle), (x1 - slant, low), (x0 + slant, low), (x0, middle)]
    ax.add_patch(Polygon(corners, closed=True, facecolor=fill, edgecolor="0.25", lw=0.7, gid="wrong-value" if wrong else None))
    text = cell_text(value, lane, fmt)
    if failing and lane.unit in FIXED_UNITS:
        text = f"{fmt.hex(value)}  {text}"
    ax.text((x0 + x1) / 2, middle, text, ha="center", va="center", fontsize=6.5, color="#a01010" if wrong else "black",
            clip_on=True)


def _unknown(ax: Any, value: Value, x0: float, x1: float, y: float) -> None:
    """Not sampled (grey), or X/Z (hatched red)."""
    low, high = y + ROW_IN * 0.8, y + ROW_IN * 0.2
    if value is None:
        ax.add_patch(_rectangle(x0, high, x1 - x0, low - high, NOT_SAMPLED))
        return
    ax.add_patch(_rectangle(x0, high, x1 - x0, low - high, "white", edge=UNKNOWN, hatch="////"))
    ax.text((x0 + x1) / 2, y + ROW_IN / 2, "X", ha="center", va="center", fontsize=7, color=UNKNOWN)


def _break(ax: Any, x0: float, width: float, top: float) -> None:
    ax.text(x0 + width / 2, top + ROW_IN / 2, "≈", ha="center", va="center", fontsize=9, color="0.4")


def _rectangle(x: float, y: float, width: float, height: float, color: str, alpha: float = 1.0, edge: str = "none",
               hatch: str | None = None, gid: str | None = None) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), width, height, facecolor=color, edgecolor=edge, alpha=alpha, hatch=hatch, lw=0.6, gid=gid)
