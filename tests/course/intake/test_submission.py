"""Intake without a sandbox: what a submission becomes when it is staged and cut down to the lab's
design, rule by rule as course/roofline_course/intake/submission.py's docstring and docs/threat-model.md
(row 7, and the caps under the table) state them. Fast, so that `make mutation` runs it per mutant."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course.intake import submission as intake
from roofline_course.intake import testbench as testbench_intake
from roofline_course.intake.submission import IntakeError

TOP = "roofline_attainable"
# docs/threat-model.md: the intake's caps
FILES, MIB_IN_ALL, MEMBERS, ARCHIVE_MIB = 200, 20, 2000, 100


def design(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


TOP_USES_LEVEL = f"module {TOP}; roofline_level u(); endmodule\n"
LEVEL = "module roofline_level; endmodule\n"


# ---------------------------------------------------------------- reading modules out of the text

def test_comments_and_strings_are_blanked_in_place() -> None:
    text = 'a // module x\nb /* module y\n */ c "module z" d\n'
    blanked = intake.strip_comments(text)
    assert blanked == "a" + " " * 12 + "\nb" + " " * 12 + "\n" + " " * 3 + " c " + " " * 10 + " d\n"
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")


def test_modules_are_found_by_name_and_their_bodies_end_at_endmodule() -> None:
    text = ("// module commented;\nmodule a(input x); b u(); endmodule\nmacromodule b; endmodule\n"
            "module automatic c; \"module d\" endmodule\nmodule static e; a u();")
    bodies = intake.modules_in(text)
    assert sorted(bodies) == ["a", "b", "c", "e"]
    assert bodies["a"].strip() == "(input x); b u();" and bodies["b"].strip() == ";"
    assert bodies["e"].strip() == "; a u();"  # no endmodule: the body runs to the end of the text


@pytest.mark.parametrize("before", ["", "module first; endmodule\n"])
def test_a_module_without_endmodule_ends_where_the_next_module_starts(before: str) -> None:
    """The bodies never overlap: the next module's text (and what it uses) is not the unfinished one's."""
    bodies = intake.modules_in(f"{before}module open; leaf u();\nmodule next; other v(); endmodule\n")
    assert bodies["open"].strip() == "; leaf u();"
    assert bodies["next"].strip() == "; other v();"
    assert "other" not in bodies["open"]


def test_reachable_follows_uses_through_other_modules_and_stops_at_a_cycle() -> None:
    bodies = {"top": "mid u();", "mid": "leaf u(); top v();", "leaf": "", "spare": "leaf u();"}
    assert intake.reachable(bodies, "top") == {"top", "mid", "leaf"}
    assert intake.reachable(bodies, "leaf") == {"leaf"}
    assert intake.reachable({}, "top") == {"top"}


# ---------------------------------------------------------------- the design: the files the top reaches

def test_only_the_files_the_top_reaches_are_the_design(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {"top.sv": TOP_USES_LEVEL, "level.v": LEVEL, "tb_mine.sv": "module tb_mine; endmodule\n"})
    chosen = intake.select_design(intake.stage(str(folder), tmp_path / "s"), TOP)
    assert sorted(p.name for p in chosen.files) == ["level.v", "top.sv"]
    assert chosen.ignored == [f"tb_mine.sv (defines no module that {TOP} uses: left out, as a testbench would be)"]


def test_a_missing_top_names_what_was_found(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {"level.sv": LEVEL, "other.sv": "module other; endmodule\n"})
    with pytest.raises(IntakeError, match=re.escape(f"no module named {TOP} in your files (found: other, roofline_level); "
                                                    f"the file must declare 'module {TOP}'")):
        intake.select_design(intake.stage(str(folder), tmp_path / "s"), TOP)
    empty = design(tmp_path / "empty", {"notes.sv": "// nothing here\n"})
    with pytest.raises(IntakeError, match=r"\(found: no module at all\)"):
        intake.select_design(intake.stage(str(empty), tmp_path / "s2"), TOP)


def test_a_folder_with_no_verilog_is_refused(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {"readme.txt": "hello"})
    with pytest.raises(IntakeError, match=r"^no \.sv or \.v file in the submission$"):
        intake.select_design(intake.stage(str(folder), tmp_path / "s"), TOP)


# ---------------------------------------------------------------- staging a file, a folder, a .zip

def test_one_file_is_staged_under_a_safe_name(tmp_path: Path) -> None:
    source = design(tmp_path, {"my top (final).sv": TOP_USES_LEVEL})
    staged = intake.stage(str(source / "my top (final).sv"), tmp_path / "s")
    assert [p.name for p in staged.root.iterdir()] == ["my_top__final_.sv"]
    assert staged.notes == ["my top (final).sv: staged as my_top__final_.sv "
                            "(the tools take no spaces or punctuation in file names)"]


def test_a_folder_keeps_its_sub_folders_and_include_files_and_drops_the_rest(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {"src/top.sv": TOP_USES_LEVEL, "src/inc/defs.svh": "`define X 1\n", "lib/level.v": LEVEL,
                                      "notes.txt": "x", "build.log": "x", ".git/HEAD.sv": "module leak; endmodule\n",
                                      "__MACOSX/top.sv": "junk", "src/.hidden/x.sv": "module leak2; endmodule\n"})
    (folder / "link.sv").symlink_to(folder / "lib" / "level.v")
    staged = intake.stage(str(folder), tmp_path / "s")
    files = sorted(str(p.relative_to(staged.root)) for p in staged.root.rglob("*") if p.is_file())
    assert files == ["lib/level.v", "src/inc/defs.svh", "src/top.sv"]
    assert staged.notes == ["link.sv: a symbolic link, not followed"]
    assert {oct(p.stat().st_mode & 0o777) for p in staged.root.rglob("*") if p.is_file()} == {"0o644"}
    assert {oct(p.stat().st_mode & 0o777) for p in [staged.root, *staged.root.rglob("*")] if p.is_dir()} == {"0o755"}
    assert staged.folders == [staged.root, staged.root / "lib", staged.root / "src", staged.root / "src" / "inc"]


def test_staging_again_starts_from_nothing(tmp_path: Path) -> None:
    first = design(tmp_path / "one", {"a.sv": LEVEL})
    second = design(tmp_path / "two", {"b.sv": LEVEL})
    intake.stage(str(first), tmp_path / "s")
    (tmp_path / "s-unpacked").mkdir()  # what an interrupted unzip left
    staged = intake.stage(str(second), tmp_path / "s")
    assert [p.name for p in staged.root.iterdir()] == ["b.sv"] and not (tmp_path / "s-unpacked").exists()


def write_zip(path: Path, members: dict[str, str], links: tuple[str, ...] = (), method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as bundle:
        bundle.writestr(zipfile.ZipInfo("folder/"), "")
        for name in links:  # first: what comes after a link is still unpacked
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16  # a symbolic link
            bundle.writestr(info, "/etc/passwd")
        for name, text in members.items():
            bundle.writestr(zipfile.ZipInfo(name) if name.endswith("/") else name, text)
    return path


def test_a_zip_is_unpacked_without_escaping_or_links(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "hand in.zip", {"../escape.sv": "module e; endmodule", "/abs.sv": "module a; endmodule",
                                                   "lab1/top.sv": TOP_USES_LEVEL, "lab1/level.sv": LEVEL},
                        links=("lab1/link.sv",))
    staged = intake.stage(str(archive), tmp_path / "s")
    files = sorted(str(p.relative_to(staged.root)) for p in staged.root.rglob("*") if p.is_file())
    assert files == ["lab1/level.sv", "lab1/top.sv"]
    assert staged.notes == ["lab1/link.sv: a symbolic link, not unpacked",
                            "../escape.sv: a path outside the archive, not unpacked",
                            "/abs.sv: a path outside the archive, not unpacked"]
    assert not (tmp_path / "escape.sv").exists() and not (tmp_path / "s-unpacked").exists()


def test_a_folder_holding_only_a_zip_is_the_zip_and_two_zips_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    write_zip(folder / "lab.zip", {"top.sv": TOP_USES_LEVEL})
    assert [p.name for p in intake.stage(str(folder), tmp_path / "s").root.iterdir()] == ["top.sv"]
    write_zip(folder / "again.zip", {"top.sv": TOP_USES_LEVEL})
    with pytest.raises(IntakeError, match=r"^the submission holds 2 \.zip files; hand in one$"):
        intake.stage(str(folder), tmp_path / "s")
    (folder / "top.sv").write_text(TOP_USES_LEVEL)  # Verilog beside the archives: the archives are not the submission
    assert [p.name for p in intake.stage(str(folder), tmp_path / "s").root.iterdir()] == ["top.sv"]


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: (d / "x.txt").write_text("x") and d / "x.txt", r"^x\.txt: not a \.sv, \.v or \.zip file$"),
    (lambda d: d / "absent.sv", r"^no such file or folder$"),
    (lambda d: (d / "bad.zip").write_text("not a zip") and d / "bad.zip", r"^bad\.zip: not a readable \.zip \("),
    (lambda d: os.symlink(d, d / "link") or d / "link", r"^link: a symbolic link; hand in the file itself$"),
], ids=["not-hdl", "missing", "bad-zip", "a-link"])
def test_what_cannot_be_staged_is_one_line(make: object, message: str, tmp_path: Path) -> None:
    source = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(IntakeError, match=message):
        intake.stage(str(source), tmp_path / "s")


def test_an_unreadable_name_is_the_entrys_problem(tmp_path: Path) -> None:
    long = tmp_path / ("a" * 200)  # a path below the limit, a staged name (plus -unpacked) above it
    long.mkdir()
    with pytest.raises(IntakeError, match=r"^the submission cannot be read: File name too long$"):
        intake.stage(str(long), tmp_path / ("s" * 250))


def test_the_staging_folder_is_made_with_its_parents(tmp_path: Path) -> None:
    source = design(tmp_path / "in", {"a.sv": LEVEL})
    assert [p.name for p in intake.stage(str(source), tmp_path / "grade" / "lab1" / "s").root.iterdir()] == ["a.sv"]


# ---------------------------------------------------------------- the caps, at their edges

def test_the_caps_are_the_documented_ones() -> None:
    threat_model = " ".join((REPO_ROOT / "docs" / "threat-model.md").read_text().split())
    assert (f"at most {FILES} Verilog files and {MIB_IN_ALL} MiB of them in all; a .zip of at most {MEMBERS:,} members "
            f"and {ARCHIVE_MIB} MiB unpacked") in threat_model


def test_the_file_count_cap(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {f"m{i}.sv": "" for i in range(FILES)})
    assert len(list(intake.stage(str(folder), tmp_path / "s").root.iterdir())) == FILES
    (folder / "one_more.v").write_text("")
    with pytest.raises(IntakeError, match=rf"^the submission holds more than {FILES} Verilog files or {MIB_IN_ALL} MiB$"):
        intake.stage(str(folder), tmp_path / "s")


def test_the_size_cap(tmp_path: Path) -> None:
    folder = design(tmp_path / "in", {"big.sv": "0" * ((MIB_IN_ALL << 20) - 1), "one.sv": "1"})
    intake.stage(str(folder), tmp_path / "s")
    (folder / "two.sv").write_text("2")
    with pytest.raises(IntakeError, match="more than"):
        intake.stage(str(folder), tmp_path / "s")


def test_the_archive_caps(tmp_path: Path) -> None:
    """The member cap counts folders too (a folder is cheap to unpack: nothing is written)."""
    folders = {f"d{i}/": "" for i in range(MEMBERS - 1)}  # and write_zip's own folder: MEMBERS in all
    intake.stage(str(write_zip(tmp_path / "many.zip", folders)), tmp_path / "s")
    more = write_zip(tmp_path / "more.zip", {**folders, "one_more/": ""})
    with pytest.raises(IntakeError, match=r"^more\.zip: the archive is too large to unpack$"):
        intake.stage(str(more), tmp_path / "s")
    full = write_zip(tmp_path / "full.zip", {"big.txt": "0" * (ARCHIVE_MIB << 20)}, method=zipfile.ZIP_STORED)
    intake.stage(str(full), tmp_path / "s")
    over = write_zip(tmp_path / "over.zip", {"big.txt": "0" * ((ARCHIVE_MIB << 20) + 1)}, method=zipfile.ZIP_STORED)
    with pytest.raises(IntakeError, match="too large"):
        intake.stage(str(over), tmp_path / "s")


def test_staged_files_are_readable_by_the_sandbox_user_under_the_graders_umask(tmp_path: Path) -> None:
    """Without namespaces the grader runs with umask 077 (grade.guard_for_the_uid_isolation), and
    the sandbox user is another user: the staged files must still be world-readable."""
    folder = design(tmp_path / "in", {"src/top.sv": TOP_USES_LEVEL})
    previous = os.umask(0o077)
    try:
        staged = intake.stage(str(folder), tmp_path / "s")
    finally:
        os.umask(previous)
    modes = {str(p.relative_to(staged.root)): oct(p.stat().st_mode & 0o777) for p in staged.root.rglob("*")}
    assert modes == {"src": "0o755", "src/top.sv": "0o644"} and oct(staged.root.stat().st_mode & 0o777) == "0o755"


@pytest.mark.parametrize("filler", ["/*", '"', "module m ", "endmodule ", "`", "\\", "// "])
def test_reading_modules_out_of_a_hostile_text_costs_what_its_size_does(filler: str, tmp_path: Path) -> None:
    """The intake reads the student's text in the grader's own process: every scan of it is linear
    (an unclosed comment or string runs to the end, module bodies do not overlap), so a text of
    unclosed comments, strings or modules near the cap is read in one pass, not once per opening."""
    text = f"module {TOP}; endmodule\n" + filler * ((256 << 10) // len(filler))  # a quadratic scan: minutes
    folder = design(tmp_path / "in", {"top.sv": text})
    chosen = intake.select_design(intake.stage(str(folder), tmp_path / "s"), TOP)
    assert [p.name for p in chosen.files] == ["top.sv"]


SECRET = "the hidden groups' seeds\n"


@pytest.mark.parametrize("shape", ["a folder", "one file", "a testbench file"])
def test_a_file_swapped_for_a_link_after_the_checks_is_not_followed(shape: str, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the check that an entry is no link and its copy, the entry becomes a link to a grader's
    file (the submission's folder is the student's): nothing of that file is staged, and no link."""
    secret = tmp_path / "hidden.toml"
    secret.write_text(SECRET)
    name = "tb.py" if shape == "a testbench file" else "a.sv"
    folder = design(tmp_path / "in", {name: LEVEL})
    real = intake.safe_relative  # called after the checks, just before the copy

    def swapped(relative: Path, notes: list[str]) -> Path:
        entry = folder / relative
        if entry.is_file() and not entry.is_symlink():
            entry.unlink()
            entry.symlink_to(secret)
        return real(relative, notes)

    monkeypatch.setattr(intake, "safe_relative", swapped)
    monkeypatch.setattr(testbench_intake, "safe_relative", swapped)
    if shape == "a folder":
        staged = intake.stage(str(folder), tmp_path / "s")
        assert f"{name}: a symbolic link, not followed" in staged.notes
    else:
        stage = testbench_intake.stage if shape == "a testbench file" else intake.stage
        with pytest.raises(IntakeError, match=rf"^{re.escape(name)}: a symbolic link; hand in the file itself$"):
            stage(str(folder / name), tmp_path / "s")
    kept = [path for path in (tmp_path / "s").rglob("*")]
    assert not [path for path in kept if path.is_symlink()], kept
    assert not [path for path in kept if path.is_file() and SECRET in path.read_text()], kept
