"""The uid isolation's walls (sandbox/users.py), each at its edge, in the everyday tier: one run per
sandbox user at a time, the next free one taken and all of them counted; a step's private folder is the
user's alone, below a parent others may pass but not list; what the user left in the shared scratch
folders goes, and nothing else; what it must not read is closed to others; and no process of the user
outlives its step. tests/course/sandbox/test_users.py grades whole submissions this way (full tier)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from roofline_course.sandbox import users
from roofline_course.sandbox.isolation import SandboxUnavailable
from roofline_course.sandbox.users import SANDBOX_UID

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox users' walls need root (chown, setpriv)")
SLOT = 90 + os.getpid() % 9  # a user of this worker's own: two workers never hold one


def mode(path: Path) -> int:
    return path.lstat().st_mode & 0o777


@pytest.fixture
def locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(users, "LOCKS", tmp_path / "made" / "however" / "deep")
    return tmp_path / "made" / "however" / "deep"


def test_a_user_serves_one_run_at_a_time_and_the_next_free_one_is_taken(locks: Path) -> None:
    with users.claim(5) as first:
        assert first == 5 and mode(locks) == 0o700
        with users.claim(5) as second, users.claim(5) as third:
            assert (second, third) == (6, 7)
    with users.claim(5) as again:
        assert again == 5  # given back when the run ended


def test_the_users_wrap_around_and_a_run_with_none_free_is_refused(locks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(users, "MAX_SLOTS", 3)
    with users.claim(2) as last, users.claim(2) as wrapped:
        assert (last, wrapped) == (2, 0)
        with users.claim(2) as third:
            assert third == 1
            with pytest.raises(SandboxUnavailable, match="all 3 sandbox users are busy"), users.claim(0):
                pass


def test_a_steps_folder_is_its_users_alone_below_a_parent_others_pass_but_cannot_list(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(users, "UID_WORK", tmp_path / "deep" / "work")
    folder = users.private_folder(SLOT, unsafe=False)
    assert folder.parent == tmp_path / "deep" / "work" and folder.name.startswith(f"slot{SLOT}-") and mode(folder.parent) == 0o711
    for path in (folder, folder / "tmp"):
        assert (path.stat().st_uid, path.stat().st_gid) == (SANDBOX_UID + SLOT, SANDBOX_UID + SLOT)
    assert mode(folder) == 0o700  # no other user reaches its tmp/ through it
    unsafe = users.private_folder(SLOT, unsafe=True)  # no sandbox user: the grader's own folder
    assert unsafe.stat().st_uid == os.geteuid() and (unsafe / "tmp").is_dir()


def test_what_the_user_left_in_the_shared_scratch_goes_and_nothing_else(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    uid = SANDBOX_UID + SLOT
    scratch, other = tmp_path / "tmp", tmp_path / "shm"
    monkeypatch.setattr(users, "SHARED_SCRATCH", (tmp_path / "absent", scratch, other))  # one missing: the rest still
    scratch.mkdir()
    other.mkdir()
    kept_target = tmp_path / "graders"
    kept_target.mkdir()
    (kept_target / "precious").write_text("x")
    made = {"left.txt": "file", "left-dir": "dir", "a-link": "link", "mine.txt": "root", "neighbour.txt": "uid+1"}
    for name, kind in made.items():
        path = scratch / name
        if kind == "dir":
            (path / "deep").mkdir(parents=True)
            (path / "deep" / "f").write_text("x")
        elif kind == "link":
            path.symlink_to(kept_target, target_is_directory=True)
        else:
            path.write_text("x")
        if kind != "root":
            os.lchown(path, uid + (kind == "uid+1"), uid)
    (other / "also-left").write_text("x")
    os.chown(other / "also-left", uid, uid)
    users.remove_leftovers(uid)
    assert sorted(p.name for p in scratch.iterdir()) == ["mine.txt", "neighbour.txt"]
    assert list(other.iterdir()) == [] and (kept_target / "precious").exists()  # the link went, not what it led to


def test_a_leftover_that_cannot_be_removed_leaves_the_others_removed(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    uid = SANDBOX_UID + SLOT
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(users, "SHARED_SCRATCH", (scratch,))
    for name in ("a-stuck", "b", "c"):
        (scratch / name).write_text("x")
        os.chown(scratch / name, uid, uid)
    real_unlink = Path.unlink

    def unlink(path: Path, missing_ok: bool = False) -> None:
        if path.name == "a-stuck":
            raise PermissionError(1, "Operation not permitted", str(path))
        real_unlink(path, missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    users.remove_leftovers(uid)
    assert sorted(p.name for p in scratch.iterdir()) == ["a-stuck"]


def test_what_the_user_must_not_read_is_closed_to_others_and_the_way_to_a_submission_passable(tmp_path: Path) -> None:
    secret, folder, missing = tmp_path / "hidden.toml", tmp_path / "labs", tmp_path / "gone"
    secret.write_text("x")
    secret.chmod(0o777)
    folder.mkdir()
    folder.chmod(0o755)
    users.protect([secret, folder, missing])
    assert (mode(secret), mode(folder), missing.exists()) == (0o770, 0o750, False)
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for path, bits in ((deep, 0o700), (deep.parent, 0o702), (deep.parent.parent, 0o711)):
        path.chmod(bits)  # others: nothing; write without passing; already passing
    users.passable(deep)
    assert [mode(p) for p in (deep, deep.parent, deep.parent.parent)] == [0o701, 0o703, 0o711]  # pass, never list
    assert all(p.stat().st_mode & 0o001 for p in deep.parents)


def test_no_process_of_the_user_outlives_its_step_and_no_other_users_is_touched() -> None:
    uid = SANDBOX_UID + SLOT
    theirs = subprocess.Popen(users.as_the_sandbox_user(["sleep", "60"], SLOT))
    ours = subprocess.Popen(["sleep", "60"])
    ended: list[int] = []
    reaper = threading.Thread(target=lambda: ended.append(theirs.wait()), daemon=True)  # as the step's parent does
    try:
        deadline = time.monotonic() + 10
        while f"\nUid:\t{uid}\t" not in Path(f"/proc/{theirs.pid}/status").read_text() and time.monotonic() < deadline:
            time.sleep(0.02)  # setpriv has become the user
        reaper.start()
        started = time.monotonic()
        users.wait_until_gone(uid, seconds=10)
        reaper.join(timeout=5)
        assert ended == [-9] and time.monotonic() - started < 5  # killed, and gone at once, not at the deadline
        assert ours.poll() is None
    finally:
        for process in (theirs, ours):
            process.kill()
            process.wait()
