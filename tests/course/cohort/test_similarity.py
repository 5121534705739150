"""The similarity table's budget per submission (cohort/similarity.py, docs/threat-model.md): its
staged files within MAX_SUBMISSION_BYTES, its tokenising within FINGERPRINT_S. A submission over
either is left out with the reason and the others are still compared, before and after it."""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_course.cohort import similarity
from roofline_course.labs.definitions import load_lab

LAB = load_lab(1)
DESIGN = "".join((RTL_DIR / name).read_text() for name in ("roofline_level.sv", "roofline_round_cap.sv"))
BUDGET_S = 1.0


def staged(folder: Path, text: str) -> str:
    (folder / similarity.STAGED).mkdir(parents=True)
    (folder / similarity.STAGED / "design.sv").write_text(text)
    return str(folder)


@pytest.fixture
def slow_tokeniser(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tokeniser hangs on a text that says HANG, raises on RAISE and dies on DIE (the child is a fork)."""
    real = similarity._fingerprint

    def tokenise(text: str, *args: object, **options: object) -> object:
        if "HANG" in text:
            while True:
                time.sleep(0.05)
        if "RAISE" in text:
            raise ValueError("a tokeniser error")
        if "DIE" in text:
            os._exit(3)
        return real(text, *args, **options)

    monkeypatch.setattr(similarity, "_fingerprint", tokenise)
    monkeypatch.setattr(similarity, "FINGERPRINT_S", BUDGET_S)


@pytest.mark.usefixtures("slow_tokeniser")
def test_a_submission_whose_tokenising_overruns_is_left_out_and_the_others_compared(tmp_path: Path) -> None:
    texts = {"a": DESIGN, "b": DESIGN, "hang": DESIGN + "// HANG", "raise": DESIGN + "// RAISE", "die": DESIGN + "// DIE",
             "y": DESIGN, "z": DESIGN}
    folders = {key: staged(tmp_path / key, text) for key, text in texts.items()}
    started = time.monotonic()
    found = similarity.similarity(folders, LAB.starter)
    assert dict(found.left_out) == {"hang": f"tokenising its files took longer than {BUDGET_S:g} s: not compared",
                                    "raise": "could not be tokenised (ValueError)",
                                    "die": "could not be tokenised (the tokeniser stopped)"}
    assert found.compared == ["a", "b", "y", "z"]  # before and after the ones left out
    assert {(pair.first, pair.second) for pair in found.pairs} == {("a", "b"), ("a", "y"), ("a", "z"), ("b", "y"),
                                                                  ("b", "z"), ("y", "z")}
    assert time.monotonic() - started < 60  # the hung one was not waited on (the limit is far above its budget)


@pytest.mark.usefixtures("slow_tokeniser")
def test_a_submission_within_its_budget_is_compared() -> None:
    prints, left_out = similarity.fingerprints({"a": DESIGN, "b": DESIGN}, [], "design.sv", BUDGET_S * 30)
    assert sorted(prints) == ["a", "b"] and left_out == []


@pytest.mark.parametrize(("size", "compared"), [(similarity.MAX_SUBMISSION_BYTES - 1, True),
                                                (similarity.MAX_SUBMISSION_BYTES, True),
                                                (similarity.MAX_SUBMISSION_BYTES + 1, False)])
def test_the_staged_size_cap_is_held_on_both_sides_and_at_it(size: int, compared: bool, tmp_path: Path) -> None:
    folder = staged(tmp_path / "s", "")
    (Path(folder) / similarity.STAGED / "design.sv").write_text("m" * size)
    if compared:
        assert len(similarity.staged_text(Path(folder) / similarity.STAGED)) == size
    else:
        with pytest.raises(similarity.NotComparable, match="exceed 1 MiB"):
            similarity.staged_text(Path(folder) / similarity.STAGED)


# ---------------------------------------------------------------- the starter is boilerplate

# 60 tokens whose 25-token runs all differ once copydetect has filtered them (66 characters of its code)
VARIED = ("( a | e ^ 3 ) f c a ( ( 2 1 b f 1 b ; ; + 2 e e - ? + ^ - : a c | ? : d + - ^ 1 e - & 2 ) ( << 1 3 "
          "? 2 ; << ^ = ) 2 c ? a 2 a ( e")
STARTER = (LAB.starter / "roofline_attainable.sv").read_text()
STUB = "  assign cap_o       = '0;\n  assign mem_bound_o = 1'b0;\n"
# Two students' own bodies for the starter's TODOs, written apart: without the starter counted as
# boilerplate, the two submissions share 0.63 of their tokens (the starter alone: 1.0).
OWN_A = ("  logic [2*W-1:0] product;\n  assign product = ai_i * bw_i;\n"
         "  assign mem_bound_o = product < {peak_i, {FRAC_BITS{1'b0}}};\n"
         "  assign cap_o = mem_bound_o ? W'((product + (1 << (FRAC_BITS-1))) >> FRAC_BITS) : peak_i;\n")
OWN_B = ("  wire [2*W-1:0] p = {{W{1'b0}}, ai_i} * {{W{1'b0}}, bw_i};\n"
         "  wire [2*W-1:0] rounded = p + ({{(2*W-1){1'b0}}, 1'b1} << (FRAC_BITS - 1));\n"
         "  always_comb begin\n    if (p < ({{W{1'b0}}, peak_i} << FRAC_BITS)) begin mem_bound_o = 1'b1; "
         "cap_o = rounded[FRAC_BITS +: W]; end\n    else begin mem_bound_o = 1'b0; cap_o = peak_i; end\n  end\n")


def on_the_starter(body: str) -> str:
    assert STUB in STARTER
    return STARTER.replace(STUB, body)


def test_two_students_who_share_only_the_starter_are_not_similar(tmp_path: Path) -> None:
    folders = {"starter-1": staged(tmp_path / "s1", STARTER), "starter-2": staged(tmp_path / "s2", STARTER),
               "a": staged(tmp_path / "a", on_the_starter(OWN_A)), "b": staged(tmp_path / "b", on_the_starter(OWN_B)),
               "a-copy": staged(tmp_path / "c", on_the_starter(OWN_A))}
    found = similarity.similarity(folders, LAB.starter)
    assert found.compared == sorted(folders) and found.left_out == []
    # the control: a copy of a student's own code is found, at the whole of it
    assert [(pair.first, pair.second, round(pair.share, 2)) for pair in found.pairs] == [("a", "a-copy", 1.0)], found.pairs


# ---------------------------------------------------------------- what is read, and the budgets' words

def test_only_the_staged_regular_design_files_are_read_in_name_order_and_no_link_is_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "secret.sv").write_text("module secret; endmodule")
    (outside / "deep" / "also_secret.sv").write_text("module also_secret; endmodule")
    folder = tmp_path / "s"
    (folder / "sub").mkdir(parents=True)
    files = {"b.sv": "module b; endmodule", "a.txt": "notes", "c.py": "x = 1", "sub/d.v": "module d; endmodule",
             "z.svh": "`define Z 1", "zz.vh": "`define ZZ 1"}
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "a_link.sv").symlink_to(outside / "secret.sv")
    (folder / "a_folder").symlink_to(outside / "deep", target_is_directory=True)
    text = similarity.staged_text(folder)
    # every regular .sv/.v/.svh/.vh/.py file, by its path in the folder; the notes, the link and the folder link left out
    assert text == "\n".join(files[name] for name in ("b.sv", "c.py", "sub/d.v", "z.svh", "zz.vh"))


def test_a_file_that_vanishes_while_staged_files_are_listed_is_skipped_and_the_rest_read(tmp_path: Path,
                                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    for name in ("a.sv", "gone.sv", "z.sv"):
        (folder / name).write_text(f"module {name[:-3]}; endmodule")
    real = Path.lstat

    def lstat(path: Path) -> object:
        if path.name == "gone.sv":
            raise FileNotFoundError(path)
        return real(path)

    monkeypatch.setattr(Path, "lstat", lstat)
    assert similarity.staged_text(folder) == "module a; endmodule\nmodule z; endmodule"


def test_a_staged_folder_with_no_design_text_is_not_comparable(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "empty.sv").write_text(" \n\t\n")
    (folder / "notes.txt").write_text("module m; endmodule")
    with pytest.raises(similarity.NotComparable, match="no staged design files"):
        similarity.staged_text(folder)


def test_a_shared_run_counts_from_copydetects_k_of_25_tokens_and_every_run_is_a_fingerprint() -> None:
    """Shorter shared runs are noise: 25 tokens make one fingerprint, 24 none; and no run is winnowed
    away (window 1): a text whose 25-token runs all differ has one fingerprint for each."""
    names = " ".join(f"n{index}" for index in range(25))
    assert len(similarity._fingerprint(names).hashes) == 1
    assert len(similarity._fingerprint(names.rsplit(" ", 1)[0]).hashes) == 0
    varied = similarity._fingerprint(VARIED)
    assert len(varied.filtered_code) == 66 and len(varied.hashes) == 66 - 25 + 1


def test_the_budgets_the_threat_model_states_are_the_codes() -> None:
    text = " ".join((REPO_ROOT / "docs" / "threat-model.md").read_text().split())
    assert f"tokenises at most {similarity.MAX_SUBMISSION_BYTES >> 20} MiB of its staged files within " \
           f"`FINGERPRINT_S` ({similarity.FINGERPRINT_S:g} s)" in text


def test_a_staged_file_that_cannot_be_read_leaves_the_submission_out_saying_why(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "a.sv").write_text("module a; endmodule")
    monkeypatch.setattr(Path, "read_text", lambda *_, **__: (_ for _ in ()).throw(PermissionError("no")))
    with pytest.raises(similarity.NotComparable, match=r"a staged file could not be read \(PermissionError\)"):
        similarity.staged_text(folder)


def test_without_copydetect_every_entry_is_left_out_saying_how_to_install_it(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "copydetect", None)  # import copydetect raises ImportError
    found = similarity.similarity({"a": staged(tmp_path / "a", DESIGN), "b": staged(tmp_path / "b", DESIGN)}, LAB.starter)
    assert found.left_out == [("a", "copydetect is not installed (pip install -e '.[course]')"),
                              ("b", "copydetect is not installed (pip install -e '.[course]')")]
    assert found.pairs == [] and found.compared == []


def test_a_submission_that_cannot_be_compared_is_left_out_and_the_rest_compared(tmp_path: Path) -> None:
    folders = {"a": staged(tmp_path / "a", DESIGN), "empty": staged(tmp_path / "e", "\n"), "z": staged(tmp_path / "z", DESIGN)}
    found = similarity.similarity(folders, LAB.starter)
    assert found.left_out == [("empty", "no staged design files")]
    assert found.compared == ["a", "z"] and [(pair.first, pair.second) for pair in found.pairs] == [("a", "z")]


@pytest.mark.parametrize("above", [False, True])
def test_a_pair_at_the_floor_is_listed_and_one_just_below_it_is_not(above: bool, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy shares exactly all of its tokens (1.0): listed with the floor at 1.0, not just above it."""
    monkeypatch.setattr(similarity, "FLOOR", math.nextafter(1.0, 2.0) if above else 1.0)
    found = similarity.similarity({"a": staged(tmp_path / "a", DESIGN), "b": staged(tmp_path / "b", DESIGN)}, LAB.starter)
    assert [(pair.first, pair.second, pair.share) for pair in found.pairs] == ([] if above else [("a", "b", 1.0)])


def test_pairs_come_highest_share_first_then_most_tokens_then_by_name(tmp_path: Path) -> None:
    level, round_cap, hierarchy, counts = ((RTL_DIR / name).read_text() for name in (
        "roofline_level.sv", "roofline_round_cap.sv", "roofline_hierarchy.sv", "roofline_counts.sv"))
    texts = {"level": level, "level-copy": level, "cap": round_cap, "cap-copy": round_cap,
             "mixed-1": level + round_cap + hierarchy, "mixed-2": level + round_cap + counts}
    found = similarity.similarity({key: staged(tmp_path / key, text) for key, text in texts.items()}, LAB.starter)
    ranked = [(pair.first, pair.second) for pair in found.pairs]
    seen = {(pair.first, pair.second): (pair.share, pair.tokens) for pair in found.pairs}
    # the data tell each key apart: a whole copy with fewer tokens in common than a pair that shares
    # less of its code; two whole copies of different sizes; two pairs alike but for their names
    assert seen[("level", "level-copy")][0] == 1.0 > seen[("mixed-1", "mixed-2")][0]
    assert seen[("level", "level-copy")][1] < seen[("mixed-1", "mixed-2")][1]
    assert seen[("cap", "cap-copy")] > seen[("level", "level-copy")] and seen[("cap", "cap-copy")][0] == 1.0
    assert seen[("level", "level-copy")] == seen[("level", "mixed-1")]
    assert ranked.index(("cap", "cap-copy")) < ranked.index(("level", "level-copy")) < ranked.index(("level", "mixed-1")) \
        < ranked.index(("mixed-1", "mixed-2"))
    assert found.pairs == sorted(found.pairs, key=lambda pair: (-pair.share, -pair.tokens, pair.first, pair.second))



def test_the_class_page_takes_the_labs_starter_as_boilerplate_and_nothing_else_of_the_lab(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dashboard.write compares the class against the lab's starter: two students who both handed in lab 6's
    own solution are alike (the solution is no boilerplate, though it sits in the lab's folder), two who
    handed in the starter are not."""
    from roofline_course.cohort import dashboard, table
    from roofline_course.cohort.lateness import ON_TIME

    lab6 = load_lab(6)
    solution = (lab6.folder / "solution" / "test_roofline_attainable.py").read_text()
    starter = (lab6.starter / "test_roofline_attainable.py").read_text()
    rows = {}
    for key, text in (("sol-1", solution), ("sol-2", solution), ("start-1", starter), ("start-2", starter)):
        (tmp_path / key / similarity.STAGED).mkdir(parents=True)
        (tmp_path / key / similarity.STAGED / "test_roofline_attainable.py").write_text(text)
        row = table.make_row(lab6, key, table.Graded("graded", 10.0, folder=str(tmp_path / key)), ON_TIME, "", 10.0)
        rows[row["id"]] = row
    seen: list[Path] = []
    real = dashboard.similarity
    monkeypatch.setattr(dashboard, "similarity", lambda folders, starter_folder: seen.append(starter_folder) or real(
        folders, starter_folder))
    dashboard.write(tmp_path, lab6, rows)
    assert seen == [lab6.starter]
    pairs = (tmp_path / dashboard.PAIRS_FILE).read_text()
    assert '"sol-1","sol-2"' in pairs and "start-1" not in pairs, pairs
