"""The sandbox's users: one per concurrent step, its private folder, and (without namespaces) the
file permissions and clean-up that keep one run from another and from the grader's files."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from roofline_course.sandbox.isolation import SandboxUnavailable

SANDBOX_UID = 64000  # plus a slot number, so that concurrent sandboxes do not share a process budget
MAX_SLOTS = 100
LOCKS = Path("/tmp/roofline-sandbox-users")  # one lock per sandbox user in use
UID_WORK = Path("/tmp/roofline-sandbox-work")  # uid mode: each step's private folder, below a root-only parent


@contextlib.contextmanager
def claim(slot: int) -> Iterator[int]:
    """A sandbox user no other run is using now (from `slot` on): its cleanup kills only its own processes."""
    LOCKS.mkdir(mode=0o700, parents=True, exist_ok=True)
    for offset in range(MAX_SLOTS):
        number = (slot + offset) % MAX_SLOTS
        handle = (LOCKS / f"{number}.lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            yield number
        finally:
            handle.close()
        return
    raise SandboxUnavailable(f"all {MAX_SLOTS} sandbox users are busy")

SHARED_SCRATCH = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))  # what any user may write without namespaces


def remove_leftovers(uid: int) -> None:
    """The uid isolation: whatever the sandbox user left in the machine's shared scratch folders
    goes, so no run finds what an earlier one wrote."""
    for folder in SHARED_SCRATCH:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.lstat().st_uid == uid:
                    shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            except OSError:
                continue


def private_folder(slot: int, unsafe: bool) -> Path:
    """A fresh working folder for one step: the sandbox user's own (mode 0700) below a parent only
    root may list; a plain folder of this user's when unsafe."""
    UID_WORK.mkdir(parents=True, exist_ok=True)
    UID_WORK.chmod(0o711)
    folder = Path(tempfile.mkdtemp(prefix=f"slot{slot}-", dir=UID_WORK))
    (folder / "tmp").mkdir()
    if not unsafe:
        for path in (folder, folder / "tmp"):
            os.chown(path, SANDBOX_UID + slot, SANDBOX_UID + slot)
    return folder


def as_the_sandbox_user(argv: list[str], slot: int) -> list[str]:
    uid = SANDBOX_UID + slot
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
            "--no-new-privs", "--", *argv]


def protect(paths: list[Path]) -> None:
    """The uid isolation: what the sandbox user must not read (the hidden groups, the reference, the
    tests) made unreadable to other users, and the folders a step's files sit in made passable."""
    for path in paths:
        if path.exists():
            path.chmod(path.stat().st_mode & ~0o007)


def readable(folder: Path) -> None:
    """A tree the grader made for steps to read (a cache): folders 0755 and files 0644, readable by every
    user and writable by the grader alone. A link is left as it is (chmod would change its target)."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


def passable(folder: Path) -> None:
    """Every folder above a staged submission searchable (not listable) by other users."""
    for parent in [folder, *folder.parents]:
        mode_bits = parent.stat().st_mode
        if not mode_bits & 0o001:
            parent.chmod(mode_bits | 0o001)


def wait_until_gone(uid: int, seconds: float = 30.0) -> None:
    """A killed process with a large memory takes a moment to exit: return only once none is left."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = []
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                if f"\nUid:\t{uid}\t" in status.read_text():
                    alive.append(int(status.parent.name))
            except OSError:
                continue
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
