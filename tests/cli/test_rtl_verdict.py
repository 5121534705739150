"""`roofline place --rtl`'s verdict over every kernel, with the simulator faked: one kernel the RTL gets
wrong, wherever it comes in the file, makes the command exit 1 and say so; all agreeing, 0. And a count
the RTL's COUNT_BITS cannot hold is refused at its edge. tests/cli/test_main.py runs the real RTL."""

from __future__ import annotations

from fractions import Fraction

import pytest

from roofline_cli import main as cli
from roofline_cli import rtl
from roofline_cli.platform import load
from roofline_core.paths import REPO_ROOT
from roofline_golden import QFormat

EXAMPLE = REPO_ROOT / "examples" / "a100.toml"
KERNELS = [kernel.name for kernel in load(EXAMPLE).kernels]


def faked(monkeypatch: pytest.MonkeyPatch, wrong: set[str]) -> None:
    """The RTL agrees with the model on every kernel but those in `wrong`."""
    monkeypatch.setattr(rtl, "simulate", lambda sim, fmt, levels, by_counts, vectors, work: [{"cap": 5} for _ in vectors])

    def compare(fmt: QFormat, platform: object, placement: object, vector: object, result: object,
                by_counts: bool) -> list[rtl.Compared]:
        bad = placement.kernel.name in wrong  # type: ignore[attr-defined]
        return [rtl.Compared("end to end", Fraction(5, fmt.one), 5, 6 if bad else 5, Fraction(1, 2))]

    monkeypatch.setattr(rtl, "compare", compare)
    monkeypatch.setattr(rtl, "describe", lambda *args: [])


def test_the_example_has_several_kernels() -> None:
    assert len(KERNELS) >= 3


@pytest.mark.parametrize("wrong", [set(), {KERNELS[0]}, {KERNELS[len(KERNELS) // 2]}, {KERNELS[-1]}],
                         ids=["none", "the first", "one in the middle", "the last"])
def test_one_kernel_the_rtl_gets_wrong_anywhere_fails_the_command(wrong: set[str], monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    faked(monkeypatch, wrong)
    status = cli.main(["place", str(EXAMPLE), "--rtl", "icarus"])
    said = capsys.readouterr().err
    assert status == (1 if wrong else 0), said
    assert ("the RTL disagrees with the model" in said) == bool(wrong)


@pytest.mark.parametrize(("value", "fits"), [((1 << rtl.COUNT_BITS) - 1, True), (1 << rtl.COUNT_BITS, False),
                                             ((1 << rtl.COUNT_BITS) + 1, False), (0, True)])
def test_a_count_fits_the_rtls_count_bits_or_is_refused_at_its_edge(value: int, fits: bool) -> None:
    platform = load(EXAMPLE)
    if fits:
        assert rtl.count(Fraction(value), platform, "kernel k: ops") == value
    else:
        with pytest.raises(rtl.InputError, match=f"does not fit the RTL's {rtl.COUNT_BITS}-bit counts"):
            rtl.count(Fraction(value), platform, "kernel k: ops")
