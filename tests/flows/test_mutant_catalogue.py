"""A hand-written mutant is judged only as written: an entry whose bench cannot build the mutated
file (so its survival would mean nothing), or whose top or parameter set does not exist, stops
make mutants with a one-line error naming the entry and what would work."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_flows.rtl_mutant_catalogue import load_catalogue


def catalogue(tmp_path: Path, file: str, top: str, params: str = "default") -> Path:
    path = tmp_path / "catalogue.toml"
    path.write_text(f'[[mutant]]\nid = "m"\nclass = "c"\nbug = "b"\nfile = "{file}"\noriginal = "x"\nmutated = "y"\n'
                    f'top = "{top}"\nparams = "{params}"\n')
    return path


def test_the_projects_catalogue_loads() -> None:
    assert len(load_catalogue()) >= 60


@pytest.mark.parametrize(("file", "top"), [("roofline_pipe_reg.sv", "roofline_pipe_reg"),
                                           ("roofline_round_cap.sv", "roofline_hierarchy_pipe"),
                                           ("roofline_div_step.sv", "roofline_intensity")])
def test_a_top_that_builds_the_file_is_accepted(tmp_path: Path, file: str, top: str) -> None:
    (mutant,) = load_catalogue(catalogue(tmp_path, file, top))
    assert mutant.top == top


def test_a_top_whose_bench_never_builds_the_file_is_refused_naming_one_that_does(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as refused:
        load_catalogue(catalogue(tmp_path, "roofline_pipe_reg.sv", "roofline_hierarchy_pipe"))
    assert str(refused.value) == (f"{tmp_path / 'catalogue.toml'}: mutant m: its top roofline_hierarchy_pipe does not "
                                  "build roofline_pipe_reg.sv, so that bench cannot see the bug; top is a module that "
                                  "does: roofline_pipe_reg")


@pytest.mark.parametrize(("top", "params", "said"), [("roofline_nothing", "default", "top 'roofline_nothing' is no module"),
                                                     ("roofline_attainable", "huge", "params 'huge' is none of default")])
def test_an_unknown_top_or_parameter_set_is_refused(tmp_path: Path, top: str, params: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        load_catalogue(catalogue(tmp_path, "roofline_round_cap.sv", top, params))
