"""The sandbox's walls as its command line states them, read without running bubblewrap (so they
hold on every machine, in the everyday tier): what is mounted and how, and who the step runs as.
tests/course/sandbox/test_mounts.py and test_run.py run the same walls in bubblewrap.

- the submission is mounted read-only at /submission, and nothing is mounted writable;
- no mount shows labs/ (the hidden groups), rtl/ (the reference), tests/, .git, flows/formal (the
  formal reference) or flows/mutants (the mutant list), whoever asks for it;
- the step runs as the slot's unprivileged user, with no group, capability or way to gain one,
  in bubblewrap and in the uid isolation alike.
"""

from __future__ import annotations

import importlib
import os
import subprocess
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course import sandbox
from roofline_course.design_lab.grade import simulation_harness
from roofline_course.sandbox import mounts
from roofline_course.sandbox.users import SANDBOX_UID

sandbox_run = importlib.import_module("roofline_course.sandbox.run")  # the package's `run` is the function

SLOT = 7
SECRETS = ["labs", "labs/lab1/hidden.toml", "rtl", "rtl/roofline_attainable.sv", "tests", "tests/dropin", ".git",
           "flows/formal", "flows/mutants", "flows/mutants/catalogue.toml"]
WRITABLE = ("--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--bind-fd", "--chmod")


def bound(argv: list[str]) -> list[tuple[str, str]]:
    """(source, target) of every read-only bind of a bwrap command line."""
    return [(argv[at + 1], argv[at + 2]) for at, word in enumerate(argv) if word in ("--ro-bind", "--ro-bind-try")]


def shows(source: str, secret: Path) -> bool:
    path = Path(source).resolve()
    return path.is_relative_to(secret.resolve()) or secret.resolve().is_relative_to(path)


def user_part(argv: list[str]) -> list[str]:
    """The words from setpriv to the step's own argv."""
    start = argv.index("setpriv")
    return argv[start:argv.index("--", start)]


HARNESSES = {"a check step": None, "a simulation": simulation_harness()}


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_submission_is_mounted_read_only_and_nothing_is_mounted_writable(harness: str, tmp_path: Path) -> None:
    argv = mounts.command(["true"], tmp_path, sandbox.Limits(), SLOT, harness=HARNESSES[harness])
    assert (str(tmp_path), "/submission") in bound(argv)
    assert argv.count("/submission") == 1  # bound once, read-only
    assert not set(WRITABLE) & set(argv), [word for word in argv if word in WRITABLE]
    assert {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--clearenv", "--die-with-parent"} <= set(argv)
    assert "--proc" not in argv  # a simulation gets no /proc: it would reach the result pipe by path


@pytest.mark.parametrize("harness", HARNESSES)
def test_no_mount_shows_the_labs_the_reference_the_tests_or_the_formal_reference(harness: str, tmp_path: Path) -> None:
    argv = mounts.command(["true"], tmp_path, sandbox.Limits(), SLOT, harness=HARNESSES[harness])
    seen = [source for source, _ in bound(argv)]
    assert any(Path(source).is_relative_to((REPO_ROOT / "course").resolve()) for source in seen)  # the control: the harness
    shown = [(source, secret) for source in seen for secret in SECRETS if shows(source, REPO_ROOT / secret)]
    assert not shown, shown


@pytest.mark.parametrize("secret", ["labs", "labs/lab1", "rtl", "tests", "flows/formal", "flows/mutants", "flows", "."])
def test_a_mount_that_would_show_what_no_step_may_see_is_refused(secret: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="the sandbox would see"):
        mounts.command(["true"], tmp_path, sandbox.Limits(), SLOT, extra_ro=[(REPO_ROOT / secret, "/x")])
    mounts.command(["true"], tmp_path, sandbox.Limits(), SLOT, extra_ro=[(tmp_path, "/x")])  # the control


def test_the_step_runs_as_the_slots_unprivileged_user_with_no_way_to_gain_more(tmp_path: Path) -> None:
    argv = mounts.command(["true"], tmp_path, sandbox.Limits(), SLOT)
    uid = SANDBOX_UID + SLOT
    assert uid not in (0, os.getuid()) and uid >= 1000
    assert user_part(argv) == ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                               "--bounding-set=-all", "--no-new-privs"]
    assert argv[-1] == "true" and argv[-2] == "--"


class Started(Exception):
    """What the fake Popen raises: the command the sandbox would start, and how."""

    def __init__(self, argv: list[str], options: dict) -> None:
        super().__init__("started")
        self.argv, self.options = argv, options


@pytest.mark.parametrize("isolation", ["bwrap", "uid"])
def test_every_isolation_starts_the_step_as_the_sandbox_user(isolation: str, monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    def popen(argv: list[str], **options: object) -> None:
        raise Started(argv, options)

    monkeypatch.setattr(sandbox_run, "mode", lambda: isolation)
    monkeypatch.setattr(sandbox_run, "private_folder", lambda slot, unsafe: tmp_path)
    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(Started) as started:
        sandbox.run(["true"], submission=tmp_path, timeout_s=5, slot=SLOT)
    argv = started.value.argv
    assert argv[0] == ("bwrap" if isolation == "bwrap" else "setpriv")
    assert f"--reuid={SANDBOX_UID + SLOT}" in user_part(argv) and "--no-new-privs" in user_part(argv)
    assert started.value.options["preexec_fn"] is not None  # the limits
    if isolation == "uid":
        assert started.value.options["env"]["HOME"] == str(tmp_path)  # a private folder, not the grader's home
