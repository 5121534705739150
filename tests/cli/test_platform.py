"""Generated platform files, well-formed or not, thrown at `roofline place` and `roofline plot`:
every run ends with exit 0, or with exit 2 and one line that names the file; never anything else."""

from __future__ import annotations

import copy
import json
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roofline_cli import main as cli
from roofline_cli import plot as plotting
from roofline_cli import plot_layout
from roofline_cli.place import place
from roofline_cli.platform import load
from roofline_core.paths import REPO_ROOT

pytestmark = pytest.mark.full  # generated inputs by the hundred: make test-all

NUMBERS = st.one_of(
    st.integers(-10, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["1e400", "1e5000", "-3", "0", "nan", "0x10", "1,5"]),
)
UNITS = st.sampled_from(["GFLOP/s", "TFLOP/s", "GB/s", "TB/s", "GiB/s", "FLOP/B", "FLOP", "B", "MB", "", "furlong"])
QUANTITIES = st.one_of(
    NUMBERS,
    st.builds(lambda n, u: f"{n} {u}", NUMBERS, UNITS),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
NAMES = st.sampled_from(["DRAM", "L2", "HBM", "FP64", "FP32", "k", "", "x"])
LEVELS = st.lists(st.fixed_dictionaries({"name": NAMES, "bandwidth": QUANTITIES}), max_size=3)
KERNEL = st.fixed_dictionaries(
    {"name": NAMES},
    optional={
        "precision": st.one_of(NAMES, st.lists(NAMES, max_size=1)),
        "intensity": st.dictionaries(NAMES, QUANTITIES),
        "ops": QUANTITIES,
        "bytes": st.dictionaries(NAMES, QUANTITIES),
        "measured": QUANTITIES,
    },
)
PLATFORM = st.fixed_dictionaries(
    {"platform": st.fixed_dictionaries({"peak": st.dictionaries(NAMES, QUANTITIES, max_size=2), "levels": LEVELS})},
    optional={"kernel": st.lists(KERNEL, max_size=3)},
)
EXAMPLE = tomllib.loads((REPO_ROOT / "examples" / "document.toml").read_text())


def leaves(node: object, path: tuple = ()) -> list[tuple]:
    if isinstance(node, dict):
        return [leaf for key, value in node.items() for leaf in leaves(value, (*path, key))]
    if isinstance(node, list):
        return [leaf for index, value in enumerate(node) for leaf in leaves(value, (*path, index))]
    return [path]


LEAVES = leaves(EXAMPLE)


def perturbed(index: int, value: object) -> str:
    """The documents' example with one value replaced: most runs get far, many succeed."""
    document = copy.deepcopy(EXAMPLE)
    *parents, last = LEAVES[index]
    target = document
    for key in parents:
        target = target[key]
    target[last] = value
    return json.dumps(document)


DOCUMENTS = st.one_of(PLATFORM.map(json.dumps), st.builds(perturbed, st.integers(0, len(LEAVES) - 1), QUANTITIES),
                      st.text(max_size=200), st.binary(max_size=200))


def run(argv: list[str], capsys: pytest.CaptureFixture[str], path: Path) -> int:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status in (0, 2), (status, err)
    if status == 2:
        assert err.count("\n") == 1 and str(path) in err and "Traceback" not in err, err
    return status


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=DOCUMENTS, suffix=st.sampled_from([".json", ".toml"]))
def test_place_and_plot_end_in_exit_0_or_one_line_and_exit_2(
    document: str | bytes, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"platform{suffix}"
        path.write_bytes(document if isinstance(document, bytes) else document.encode())
        if run(["place", str(path)], capsys, path) == 0:
            assert run(["plot", str(path), "-o", str(Path(folder) / "out.svg")], capsys, path) == 0


def test_many_kernels_plot_as_a_density_with_few_labels(tmp_path: Path) -> None:
    kernels = [
        {"name": f"k{i}", "intensity": {"DRAM": f"{(i % 97 + 1) / 7} FLOP/B"}} for i in range(plot_layout.MAX_POINTS * 3)
    ]
    path = tmp_path / "many.json"
    path.write_text(
        json.dumps(
            {
                "platform": {"peak": {"FP64": "100 GFLOP/s"}, "levels": [{"name": "DRAM", "bandwidth": "20 GB/s"}]},
                "kernel": kernels,
            }
        )
    )
    assert cli.main(["plot", str(path), "-o", str(tmp_path / "many.png")]) == 0
    assert (tmp_path / "many.png").stat().st_size > 10_000
    platform = load(path)
    ax = plotting.figure(platform, [place(platform, kernel) for kernel in platform.kernels]).axes[0]
    labelled = [text for text in ax.texts if text.get_gid() == "label-kernel"]
    assert 0 < len(labelled) <= plot_layout.MAX_LABELS
    assert len(ax.collections) == 1 and len(ax.collections[0].get_offsets()) > 1, "the density (hexbin) is drawn"
    ticks = [text.get_text() for text in ax.get_xticklabels() + ax.get_yticklabels()]
    assert ticks and not any("$" in tick for tick in ticks), f"decades as plain numbers (1k, 0.1), not 10^n: {ticks}"
