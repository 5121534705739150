"""The ridge in every output of `roofline` that names a roof, on both sides of it and at it.

The expectations are the contract's (roofline-spec section 1 and the edge-case table of section 5):
a level is memory-bound when ai*bw < peak, strictly; at the ridge (ai*bw == peak) the compute roof
binds. The platform is the documents' (peak 100 GFLOP/s, DRAM 20 GB/s: ridge 5 FLOP/B); the
kernels sit one millionth of a FLOP/B below it, on it, and one millionth above it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_cli import main as cli
from roofline_cli.place import place
from roofline_cli.platform import Platform, load
from roofline_cli.plot import figure
from roofline_cli.plot_html import _point_rows
from roofline_cli.plot_layout import scene

# kernel name -> intensity (FLOP/B) and the roof the contract says binds there
SIDES = {"below": ("4.999999", "memory"), "at": ("5", "compute"), "above": ("5.000001", "compute")}
# Two levels, both exactly at their ridge: neither is memory-bound, so compute binds (not L1, the lower index).
BOTH_AT = {"L1": "1", "DRAM": "5"}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Platform:
    path = tmp_path_factory.mktemp("ridge") / "ridge.toml"
    kernels = "".join(f'[[kernel]]\nname = "{name}"\nintensity = {{ DRAM = "{ai} FLOP/B" }}\n'
                      for name, (ai, _) in SIDES.items())
    kernels += '[[kernel]]\nname = "both at"\nintensity = { L1 = "1 FLOP/B", DRAM = "5 FLOP/B" }\n'
    path.write_text('[platform]\npeak = { FP64 = "100 GFLOP/s" }\n'
                    'levels = [{ name = "L1", bandwidth = "100 GB/s" }, { name = "DRAM", bandwidth = "20 GB/s" }]\n'
                    + kernels)
    return load(path)


def expected_binding(name: str) -> str:
    return "DRAM" if SIDES.get(name, ("", "compute"))[1] == "memory" else "compute"


def test_the_table_names_the_contracts_roof_on_each_side_of_the_ridge_and_at_it(
        platform: Platform, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["place", str(platform.path)]) == 0
    blocks = capsys.readouterr().out.split("\n\n")
    for name, (_, roof) in SIDES.items():
        block = next(b for b in blocks if b.lstrip().startswith(f"{name}  ["))
        dram = next(line.split() for line in block.splitlines() if line.split()[:1] == ["DRAM"])
        assert dram[4] == roof, (name, dram)  # (the table shows six figures: 4.999999 reads 5)
        bound_by = "DRAM (memory)" if roof == "memory" else "the compute roof"
        assert f"bound by {bound_by}" in block and (("<- binds" in block) == (roof == "memory")), block
    both = next(b for b in blocks if b.lstrip().startswith("both at  ["))
    assert [line.split()[4] for line in both.splitlines() if line.split()[:1] in (["L1"], ["DRAM"])] == ["compute"] * 2
    assert "bound by the compute roof" in both and "<- binds" not in both, both


def test_the_json_names_the_contracts_roof_on_each_side_of_the_ridge_and_at_it(
        platform: Platform, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["place", str(platform.path), "--json"]) == 0
    kernels = {k["name"]: k for k in json.loads(capsys.readouterr().out)["kernels"]}
    for name, (_, roof) in SIDES.items():
        dram = next(level for level in kernels[name]["levels"] if level["name"] == "DRAM")
        assert (dram["roof"], kernels[name]["binding"]) == (roof, expected_binding(name)), kernels[name]
        assert kernels[name]["cap_exact"] == ("4999999/50000" if roof == "memory" else "100")
    assert [level["roof"] for level in kernels["both at"]["levels"]] == ["compute", "compute"]
    assert kernels["both at"]["binding"] == "compute"


def test_the_plots_label_and_point_name_the_contracts_roof_at_the_ridge(platform: Platform) -> None:
    placements = [place(platform, kernel) for kernel in platform.kernels]
    view = scene(platform, placements)
    for placement in placements:
        name = placement.kernel.name
        label = next(lab for lab in view.labels if lab.kind == "kernel" and lab.lines[0] == name)
        assert label.level == expected_binding(name), (name, label)
        assert label.color == (view.level_colors["DRAM"] if expected_binding(name) == "DRAM" else "black"), label
        # the page's hover says which roof bounds it
        assert _point_rows(placement, "DRAM", None)[6] == f"{expected_binding(name)} roof", name
    # the PNG: compute-bound kernels get the flat roof's black square, exactly the at, above and both-at kernels
    fig = figure(platform, placements)
    squares = [tuple(zip(*line.get_data(), strict=True)) for ax in fig.axes for line in ax.get_lines()
               if line.get_marker() == "s" and len(line.get_xdata())]
    assert sorted(x for points in squares for x, _ in points) == pytest.approx([5.0, 5.0, 5.000001]), squares


def test_the_ridge_kernels_of_the_fixture_are_where_the_contract_says(platform: Platform) -> None:
    """The premise: below, at and above are one step from the ridge of peak / bandwidth = 5 FLOP/B."""
    assert Path(platform.path).is_file()
    peak = platform.peaks["FP64"]
    ridge = peak / platform.level("DRAM").bandwidth
    assert ridge == 5
    products = {k.name: k.intensity["DRAM"] * platform.level("DRAM").bandwidth for k in platform.kernels if k.name in SIDES}
    assert products["below"] < peak == products["at"] < products["above"]
