"""roofline: place kernels on a platform's roofline and plot it.

    roofline place FILE [--rtl icarus|verilator] [--format UQ24.16]
    roofline plot  FILE -o out.png|out.svg|out.html [--rtl icarus|verilator]

FILE is TOML or JSON (see examples/). Bad input exits with status 2 and one message that names
the file and the field; a disagreement between the RTL and the model exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

from roofline_cli import place as placing
from roofline_cli import rtl
from roofline_cli.document import document
from roofline_cli.platform import InputError, Platform, load


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="roofline", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("place", "print each kernel's placement"), ("plot", "draw the roofline with the kernels")):
        command = commands.add_parser(name, help=text)
        command.add_argument("file", type=Path, help="platform and kernels, .toml or .json")
        command.add_argument("--rtl", choices=("icarus", "verilator"), default=None,
                             help="compute the caps with the simulated RTL as well, and compare")
        command.add_argument("--format", default="UQ24.16", help="the RTL's fixed-point format (default UQ24.16)")
        if name == "plot":
            command.add_argument("-o", "--output", type=Path, required=True, help="out.png, out.svg, or out.html (interactive)")
        else:
            command.add_argument("--json", action="store_true",
                                 help="a schema-versioned JSON document instead of the table (roofline_cli/schema/)")
    return parser.parse_args(argv)


def through_rtl(platform: Platform, placements: list[placing.Placement], sim: str, fmt_text: str,
                lines: list[str], raw: dict[str, dict] | None = None) -> tuple[bool, dict[str, Fraction]]:
    """Run each path's kernels through the RTL; add comparison lines; (all agree, RTL caps by kernel).
    raw, when given, gets each kernel's values for the JSON document."""
    fmt = rtl.parse_format(fmt_text)
    agree, rtl_caps = True, {}
    comparisons: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="roofline-cli-") as work:
        for by_counts in (False, True):
            chosen = [p for p in placements if p.kernel.by_counts == by_counts]
            if not chosen:
                continue
            vectors = rtl.vectors_for(fmt, platform, chosen, by_counts)
            results = rtl.simulate(sim, fmt, len(platform.levels), by_counts, vectors, Path(work))
            for placement, vector, result in zip(chosen, vectors, results, strict=True):
                compared = rtl.compare(fmt, platform, placement, vector, result, by_counts)
                agree &= all(c.agrees(fmt) for c in compared)
                rtl_caps[placement.kernel.name] = fmt.to_real(result["cap"])
                comparisons[placement.kernel.name] = rtl.describe(fmt, sim, rtl.module_for(by_counts), compared)
                if raw is not None:
                    raw[placement.kernel.name] = {"module": rtl.module_for(by_counts), "values": [
                        {"name": c.name, "exact_gflops": float(c.exact), "model_raw": c.model_raw, "rtl_raw": c.rtl_raw,
                         "diff_lsb": float(c.diff_lsb(fmt)), "bound_lsb": float(c.bound_lsb), "agrees": c.agrees(fmt)}
                        for c in compared]}
    for placement in placements:
        lines += placing.describe(placement) + comparisons[placement.kernel.name] + [""]
    return agree, rtl_caps


PICTURE_SUFFIXES = (".png", ".svg", ".html")


def output_problem(output: Path) -> str:
    """Why the picture cannot be written there, or "" when it can be tried."""
    if output.suffix.lower() not in PICTURE_SUFFIXES:
        return "write a .png, a .svg or an .html (interactive) file"
    if output.is_dir():
        return "a folder; give a file name ending in .png, .svg or .html"
    if not output.parent.is_dir():
        return f"{output.parent} is not a folder"
    return ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        platform = load(args.file)
        placements = [placing.place(platform, kernel) for kernel in platform.kernels]
        header = [f"platform: {platform.name}" + (f"  ({platform.source})" if platform.source else ""),
                  "  peaks: " + ", ".join(f"{name} {placing.number(v)} GFLOP/s" for name, v in platform.peaks.items()),
                  "  levels: " + ", ".join(f"{lv.name} {placing.number(lv.bandwidth)} GB/s" for lv in platform.levels), ""]
        lines, agree, rtl_caps = list(header), True, None
        raw: dict[str, dict] = {}
        if args.rtl:
            lines.append(f"each value from the exact model (Fractions) and from the RTL simulated on {args.rtl}, "
                         f"{rtl.parse_format(args.format).name}; bound = 1/2 LSB + the error of quantizing the inputs")
            lines.append("")
            agree, rtl_caps = through_rtl(platform, placements, args.rtl, args.format, lines, raw)
        else:
            lines.append("each value from the exact model (Fractions); --rtl icarus|verilator adds the RTL's")
            lines.append("")
            for placement in placements:
                lines += placing.describe(placement) + [""]
    except InputError as problem:
        print(f"roofline: {problem}", file=sys.stderr)
        return 2
    except RuntimeError as problem:
        print(f"roofline: {problem}", file=sys.stderr)
        return 3
    if args.command == "place" and args.json:
        fmt = rtl.parse_format(args.format).name if args.rtl else None
        print(json.dumps(document(platform, placements, raw if args.rtl else None, args.rtl, fmt), indent=2))
    elif args.command == "place":
        print("\n".join(lines))
    else:
        from roofline_cli.plot import plot
        from roofline_cli.plot_html import plot_html

        problem = output_problem(args.output)
        if problem:
            print(f"roofline: -o {args.output}: {problem}", file=sys.stderr)
            return 2
        title = f"Roofline: {platform.name}" + (f" (caps computed by the RTL on {args.rtl})" if args.rtl else "")
        try:
            draw = plot_html if args.output.suffix.lower() == ".html" else plot
            draw(platform, placements, args.output, title, rtl_caps)
        except OSError as failure:
            print(f"roofline: -o {args.output}: cannot be written: {failure.strerror or failure}", file=sys.stderr)
            return 2
        print(f"wrote {args.output}")
    if not agree:
        print("roofline: the RTL disagrees with the model beyond the stated bound (marked above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
