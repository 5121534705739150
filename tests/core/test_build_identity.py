"""Every build has a folder of its own: a parameter set's tag names each of its parameters (two sets that
differ in any one, MUL_STAGES included, never share one), and a module's build folder is named by a
digest of its sources' paths too, so that a drop-in never runs in a folder built from the project's."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from roofline_core.config import BenchConfig
from roofline_core.contract import PADDING_SETS, PARAM_SETS, ParamSet
from roofline_core.runner import build_dir
from roofline_core.sources import rtl_sources


def test_every_parameter_set_of_the_regression_has_a_tag_of_its_own() -> None:
    sets = [*PARAM_SETS, *PADDING_SETS]
    assert len({p.tag for p in sets}) == len(set(sets))


@pytest.mark.parametrize("name", [f.name for f in fields(ParamSet)])
def test_two_sets_that_differ_in_one_parameter_have_two_tags(name: str) -> None:
    base = ParamSet(8, 8, 2, 16, 1)
    other = replace(base, **{name: getattr(base, name) + 1})
    assert base.tag != other.tag, (base, other)


def test_other_sources_build_in_another_folder(tmp_path: Path) -> None:
    cfg = BenchConfig("roofline_attainable", "verilator", ParamSet(), 1)
    project = rtl_sources()
    drop_in = [*project[:-1], tmp_path / project[-1].name]
    drop_in[-1].write_text(project[-1].read_text() + "\n// another design\n")
    assert build_dir(cfg, project) == build_dir(cfg, list(project))
    assert build_dir(cfg, drop_in) != build_dir(cfg, project)
