"""Which isolation a machine gets, decided on a made-up machine (make mutation's tests for sandbox/isolation.py).

The rule (isolation.mode's docstring, docs/threat-model.md): ROOFLINE_SANDBOX=bwrap|uid chooses, anything
else is refused in one line; without setpriv there is no sandbox; otherwise bubblewrap when it is installed
and can start, and the uid isolation only when bubblewrap is installed but cannot start (or uid is asked
for) and the grader is root. `available` says in one line what to install or do; no tool runs here.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from roofline_course.sandbox import isolation


@pytest.fixture(autouse=True)
def fresh_mode() -> Iterator[None]:
    isolation.mode.cache_clear()
    yield
    isolation.mode.cache_clear()


def machine(monkeypatch: pytest.MonkeyPatch, *, tools: tuple[str, ...] = ("bwrap", "setpriv"), starts: bool = True,
            root: bool = True, wanted: str | None = None) -> list[int]:
    started: list[int] = []

    def bwrap_starts() -> bool:
        started.append(1)
        return starts

    monkeypatch.setattr(isolation.shutil, "which", lambda tool: f"/usr/bin/{tool}" if tool in tools else None)
    monkeypatch.setattr(isolation, "_bwrap_starts", bwrap_starts)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0 if root else 1000)
    if wanted is None:
        monkeypatch.delenv(isolation.MODE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(isolation.MODE_VARIABLE, wanted)
    return started


@pytest.mark.parametrize(("made", "expected"), [
    (dict(), "bwrap"),
    (dict(root=False), "bwrap"),
    (dict(starts=False), "uid"),  # installed, refused namespaces, root: another user
    (dict(starts=False, root=False), None),
    (dict(tools=("setpriv",)), None),  # no bubblewrap: no fallback either, unless asked for
    (dict(tools=("bwrap",)), None),  # no setpriv: nothing
    (dict(tools=(), wanted="uid"), None),
    (dict(wanted="bwrap"), "bwrap"),
    (dict(wanted="bwrap", starts=False), None),  # asked for bubblewrap: never the weaker one instead
    (dict(wanted="uid"), "uid"),  # asked for the uid isolation: not bubblewrap
    (dict(wanted="uid", tools=("setpriv",)), "uid"),
    (dict(wanted="uid", root=False), None),
    (dict(wanted="auto", starts=False), "uid"),
])
def test_the_isolation_is_chosen_by_the_rule(monkeypatch: pytest.MonkeyPatch, made: dict, expected: str | None) -> None:
    machine(monkeypatch, **made)
    assert isolation.mode() == expected


def test_the_uid_isolation_never_tries_bubblewrap_and_the_choice_is_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    started = machine(monkeypatch, wanted="uid")
    assert isolation.mode() == "uid" and started == []
    started = machine(monkeypatch)
    isolation.mode.cache_clear()
    assert isolation.mode() == isolation.mode() == "bwrap" and started == [1]


def test_an_unknown_choice_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, wanted="docker")
    refused = r"^ROOFLINE_SANDBOX=docker: use one of bwrap, uid \(or leave it unset\)$"
    with pytest.raises(isolation.SandboxUnavailable, match=refused):
        isolation.mode()


@pytest.mark.parametrize(("made", "says"), [
    (dict(tools=()), "bwrap and setpriv not found: apt-get install bubblewrap (or pass --unsafe-no-sandbox to grade "
                     "without one)"),
    (dict(tools=("setpriv",)), "bwrap not found: apt-get install bubblewrap (or pass --unsafe-no-sandbox to grade "
                               "without one)"),
    (dict(tools=("bwrap",)), "setpriv not found: apt-get install bubblewrap (or pass --unsafe-no-sandbox to grade "
                             "without one)"),
    (dict(starts=False, root=False), "bubblewrap cannot create namespaces here (a container's seccomp profile?), and the "
                                     "fallback, the simulator as another user, needs the grader to run as root"),
    (dict(), None), (dict(starts=False), None),
])
def test_available_says_what_to_install_or_do_in_one_line(monkeypatch: pytest.MonkeyPatch, made: dict,
                                                          says: str | None) -> None:
    machine(monkeypatch, **made)
    assert isolation.available() == says


def test_the_log_names_the_isolation_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    machine(monkeypatch, starts=False)
    assert isolation.describe_mode().startswith("isolation: another user, limits and file permissions")
    isolation.mode.cache_clear()
    machine(monkeypatch)
    assert isolation.describe_mode().startswith("isolation: bubblewrap (its own namespaces")


@pytest.mark.parametrize(("returncode", "starts"), [(0, True), (1, False), (-1, False), (-9, False)])
def test_bubblewrap_starts_when_a_probe_with_the_sandboxs_namespaces_exits_0_quietly_and_within_30_s(
        monkeypatch: pytest.MonkeyPatch, returncode: int, starts: bool) -> None:
    calls: list[tuple[list[str], dict]] = []

    def run(argv: list[str], **options: object) -> SimpleNamespace:
        calls.append((argv, options))
        return SimpleNamespace(returncode=returncode)

    monkeypatch.setattr(isolation.subprocess, "run", run)
    assert isolation._bwrap_starts() is starts
    assert calls == [(["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--unshare-ipc", "true"],
                      {"capture_output": True, "timeout": 30})]  # its output never reaches the grader's log
