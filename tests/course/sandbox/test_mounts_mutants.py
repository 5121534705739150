"""The bubblewrap command line a step runs under, read as text (make mutation's tests for sandbox/mounts.py).

What the sandbox promises (roofline_course/sandbox/__init__.py's docstring, docs/threat-model.md): /usr,
the Python installation and the harness (core, tb, model, course, flows/roofline_flows) read-only at their own paths; the
submission read-only at /submission; /tmp and /run private tmpfs folders of the limits' sizes; no network,
no /proc unless asked, no labs/, rtl/, tests/ or .git; the unprivileged user of the slot. No bubblewrap is
run here: the command is parsed into bubblewrap's options and each promise is checked on them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course.sandbox import mounts
from roofline_course.sandbox.limits import Limits

ARITY = {"--ro-bind": 2, "--bind": 2, "--symlink": 2, "--setenv": 2, "--perms": 1, "--dir": 1, "--size": 1,
         "--tmpfs": 1, "--dev": 1, "--proc": 1, "--chdir": 1}
FLAGS = ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
         "--new-session", "--clearenv")
MIB = 1024 * 1024
HARNESS = ("core", "tb", "model", "course", "flows/roofline_flows")  # not flows/formal nor flows/mutants
ROOTS = ("core", "tb", "model", "course", "flows")  # the package roots on PYTHONPATH (flows: roofline_flows alone bound)
KEPT_OUT = ("labs", "rtl", "tests", ".git", "flows/formal", "flows/mutants")


def options(command: list[str]) -> tuple[list[tuple[str, ...]], list[str]]:
    """bubblewrap's options in order, each with its arguments, and the command after them."""
    assert command[0] == "bwrap"
    found, at = [], 1
    while at < len(command) and command[at].startswith("--"):
        name = command[at]
        arity = ARITY.get(name, 0)
        assert arity or name in FLAGS, f"an option this test does not know: {name}"
        found.append(tuple(command[at:at + 1 + arity]))
        at += 1 + arity
    return found, command[at:]


def step(submission: Path | None = Path("/staged/sub"), **given: object) -> tuple[list[tuple[str, ...]], list[str]]:
    arguments = {"limits": Limits(tmp_mib=3, work_mib=5), "slot": 7, **given}
    return options(mounts.command(["vvp", "-n", "sim.vvp"], submission, **arguments))


def binds(found: list[tuple[str, ...]]) -> list[tuple[str, str]]:
    return [(option[1], option[2]) for option in found if option[0] == "--ro-bind"]


def test_the_step_is_cut_off_from_the_network_the_other_processes_and_the_graders_environment() -> None:
    found, _ = step()
    assert [option[0] for option in found[:len(FLAGS)]] == list(FLAGS)


def test_the_submission_is_bound_read_only_at_submission_and_nothing_is_bound_writable() -> None:
    found, _ = step(Path("/staged/sub"))
    assert ("/staged/sub", "/submission") in binds(found)
    assert not [option for option in found if option[0] == "--bind"]
    assert [target for _, target in binds(found)].count("/submission") == 1
    none, _ = step(None)
    assert "/submission" not in [target for _, target in binds(none)]


def test_the_system_is_read_only_and_only_the_loader_cache_of_etc_is_there() -> None:
    found, _ = step()
    assert found[found.index(("--ro-bind", "/usr", "/usr")) - 1] != ("--ro-bind",)
    assert {option[1:] for option in found if option[0] == "--symlink"} == {
        ("usr/bin", "/bin"), ("usr/sbin", "/sbin"), ("usr/lib", "/lib"), ("usr/lib64", "/lib64")}
    etc = found.index(("--dir", "/etc"))
    assert found[etc - 1] == ("--perms", "0755")
    for path in ("/etc/ld.so.cache", "/etc/alternatives"):
        assert ((path, path) in binds(found)) == Path(path).exists()
    assert not [source for source, _ in binds(found) if source.startswith("/etc") and source not in mounts.SYSTEM_FILES]


def test_the_harness_and_the_interpreter_are_bound_read_only_at_their_own_paths_and_nothing_else_of_the_checkout() -> None:
    found, _ = step()
    bound = binds(found)
    for part in HARNESS:
        path = str((REPO_ROOT / part).resolve())
        assert (path, path) in bound, part
    for path in (Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()):
        assert (str(path), str(path)) in bound
    checkout = [source for source, _ in bound if Path(source).is_relative_to(REPO_ROOT.resolve())
                and not Path(source).is_relative_to(Path(sys.prefix).resolve())]
    assert sorted(checkout) == sorted(str((REPO_ROOT / part).resolve()) for part in HARNESS)
    for part in KEPT_OUT:  # the hidden groups, the reference, the tests, the history
        assert not [s for s, _ in bound if Path(s).is_relative_to((REPO_ROOT / part).resolve())], part


def test_a_step_given_its_harness_sees_those_files_and_no_harness_folder() -> None:
    files = (REPO_ROOT / "core" / "roofline_core" / "paths.py", REPO_ROOT / "tb" / "roofline_cocotb" / "puppet.py")
    found, _ = step(harness=files)
    checkout = [s for s, _ in binds(found) if Path(s).is_relative_to(REPO_ROOT.resolve())
                and not Path(s).is_relative_to(Path(sys.prefix).resolve())]
    assert sorted(checkout) == sorted(str(f.resolve()) for f in files)
    assert mounts.step_paths(files)[-2:] == [f.resolve() for f in files]


def test_every_folder_above_a_bound_path_is_made_passable_from_the_top_down() -> None:
    found, _ = step()
    for source, target in binds(found):
        if target in ("/submission", "/usr") or target.startswith("/etc"):
            continue
        at = found.index(("--ro-bind", source, target))
        parents = [str(p) for p in reversed(Path(source).parents[:-1])]  # every folder above it but /
        made = found[at - 2 * len(parents):at]
        assert made == [option for parent in parents for option in (("--perms", "0755"), ("--dir", parent))], source


def test_the_scratch_folders_are_private_tmpfs_of_the_limits_sizes_made_before_any_bind() -> None:
    found, _ = step(limits=Limits(tmp_mib=3, work_mib=5))
    tmp, run = found.index(("--tmpfs", "/tmp")), found.index(("--tmpfs", "/run"))
    assert found[tmp - 2:tmp] == [("--size", str(3 * MIB)), ("--perms", "01777")]
    assert found[run - 2:run] == [("--size", str(5 * MIB)), ("--perms", "01777")]
    first_bind = next(at for at, option in enumerate(found) if option[0] == "--ro-bind")
    assert tmp < run < first_bind  # a checkout under /tmp is bound over the tmpfs, not hidden by it


def test_extra_read_only_mounts_come_last_so_they_cover_the_harness() -> None:
    empty = Path("/staged/empty")
    extra = [(empty, str(REPO_ROOT / "tb")), (Path("/staged/channel"), "/channel")]
    found, _ = step(extra_ro=extra)
    bound = binds(found)
    assert bound[-2:] == [(str(empty), str(REPO_ROOT / "tb")), ("/staged/channel", "/channel")]
    assert bound.index(("/staged/sub", "/submission")) == len(bound) - 3


@pytest.mark.parametrize("proc", [False, True])
def test_proc_only_when_asked_dev_always_and_the_step_starts_in_run(proc: bool) -> None:
    found, _ = step(proc=proc)
    assert (("--proc", "/proc") in found) is proc
    assert found[-(3 if proc else 2):] == [("--dev", "/dev"), *([("--proc", "/proc")] if proc else []), ("--chdir", "/run")]


@pytest.mark.parametrize("slot", [0, 7])
def test_the_command_runs_as_the_slots_unprivileged_user_with_no_capabilities(slot: int) -> None:
    _, argv = step(slot=slot)
    uid = 64000 + slot
    assert argv == ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                    "--bounding-set=-all", "--no-new-privs", "--", "vvp", "-n", "sim.vvp"]


def test_the_environment_is_cleared_and_set_to_the_harness_and_the_scratch_folders() -> None:
    found, _ = step(env={"COCOTB_TOPLEVEL": "x", "LANG": "C"})
    env = {option[1]: option[2] for option in found if option[0] == "--setenv"}
    assert env == {"HOME": "/run", "TMPDIR": "/tmp", "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
                   "PYTHONPATH": ":".join(str(REPO_ROOT / part) for part in ROOTS), "LANG": "C",
                   "PYTHONDONTWRITEBYTECODE": "1", "CCACHE_DISABLE": "1", "COCOTB_TOPLEVEL": "x"}
    assert mounts.environment(Path("/h"), Path("/t"), {})["LANG"] == "C.UTF-8"
    assert (mounts.environment(Path("/h"), Path("/t"), {})["HOME"], mounts.environment(Path("/h"), Path("/t"), {})["TMPDIR"]) \
        == ("/h", "/t")


def test_a_venv_whose_folders_are_links_is_bound_where_they_lead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real, venv = tmp_path / "real", tmp_path / "venv"
    (real / "bin").mkdir(parents=True)
    (real / "lib").mkdir()
    venv.mkdir()
    (venv / "bin").symlink_to(real / "bin")
    (venv / "lib").symlink_to(real / "lib")
    (venv / "lib64").mkdir()  # a folder, not a link: bound with the venv
    (venv / "pyvenv.cfg").symlink_to(real / "bin")
    monkeypatch.setattr(sys, "prefix", str(venv))
    assert mounts.interpreter_paths() == [Path(sys.base_prefix), venv, real / "bin", real / "lib", real / "bin"]


@pytest.mark.parametrize(("text", "expected"), [
    ("/submission/a.sv", "/s/x/a.sv"), ("/submission", "/s/x"), ("+incdir+/submission/inc", "+incdir+/s/x/inc"),
    ("/autograder/submission/a.sv", "/autograder/submission/a.sv"), ("/submissions/a", "/submissions/a"),
    ("cd /run && ls /submission", "cd /w && ls /s/x"), ("x/run", "x/run"), (".run", ".run"),
])
def test_relocate_moves_a_whole_logical_path_and_nothing_that_merely_contains_it(text: str, expected: str) -> None:
    assert mounts.relocate(text, {Path("/submission"): Path("/s/x"), Path("/run"): Path("/w")}) == expected


def test_by_default_a_step_gets_no_proc_and_the_first_slots_user() -> None:
    found, argv = options(mounts.command(["true"], None, Limits()))
    assert ("--proc", "/proc") not in found and argv[1:3] == ["--reuid=64000", "--regid=64000"]
