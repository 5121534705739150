"""How this machine isolates a step: bubblewrap's namespaces, or (in a container that refuses them) another user."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

INSTALL_HINT = "apt-get install bubblewrap"
MODES = ("bwrap", "uid")
MODE_VARIABLE = "ROOFLINE_SANDBOX"


class SandboxUnavailable(RuntimeError):
    """bubblewrap or setpriv is missing; the message says how to install it."""


@functools.cache
def mode() -> str | None:
    """How this machine isolates a step: "bwrap" (namespaces), "uid" (another user and limits, for a
    container where namespaces cannot be created), or None. ROOFLINE_SANDBOX=bwrap|uid chooses;
    otherwise bwrap, and the uid isolation only when bwrap is installed but cannot start (a
    container's seccomp profile refuses namespaces) and this grader runs as root."""
    wanted = os.environ.get(MODE_VARIABLE, "auto")
    if wanted not in ("auto", *MODES):
        raise SandboxUnavailable(f"{MODE_VARIABLE}={wanted}: use one of {', '.join(MODES)} (or leave it unset)")
    if shutil.which("setpriv") is None:
        return None
    if wanted in ("auto", "bwrap") and shutil.which("bwrap") and _bwrap_starts():
        return "bwrap"
    if (wanted == "uid" or (wanted == "auto" and shutil.which("bwrap"))) and os.geteuid() == 0:
        return "uid"
    return None


def _bwrap_starts() -> bool:
    """bubblewrap can make the namespaces a sandbox needs (a container's seccomp profile may refuse them)."""
    run = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--unshare-ipc", "true"],
                         capture_output=True, timeout=30)
    return run.returncode == 0


def available() -> str | None:
    """None when sandboxing works here, else the one line that says what to install or do."""
    if mode() is not None:
        return None
    missing = [tool for tool in ("bwrap", "setpriv") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found: {INSTALL_HINT} (or pass --unsafe-no-sandbox to grade without one)"
    return ("bubblewrap cannot create namespaces here (a container's seccomp profile?), and the fallback, the "
            "simulator as another user, needs the grader to run as root")


def describe_mode() -> str:
    """One line on the isolation in use, for the grader's log."""
    if mode() == "uid":
        return ("isolation: another user, limits and file permissions (bubblewrap cannot create namespaces here): no "
                "network isolation, and /proc and /tmp are the machine's; see docs/threat-model.md")
    return "isolation: bubblewrap (its own namespaces: no network, no /proc, no grader files), another user, limits"
