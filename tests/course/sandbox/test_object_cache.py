"""The Verilator runtime's compiled objects, which the grader makes once and a step only reads
(roofline_course.sandbox.object_cache): a step sees the cache and cannot write it, under bubblewrap
and under the uid isolation, and a real Verilator grade takes the runtime from it, leaves it as it
was, and scores as a build from nothing does."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from real_grading import needs_sandbox

from roofline_core.paths import RTL_DIR
from roofline_core.tools import ABSOLUTE_PATHS_VARIABLE, object_cache
from roofline_course import sandbox
from roofline_course.design_lab import grade
from roofline_course.labs.definitions import load_lab
from roofline_course.sandbox import isolation
from roofline_course.sandbox import object_cache as cache
from roofline_course.sandbox.users import readable

SLOT = 31 + os.getpid() % 50
# A step that reads the cache, tries to leave a file in it, and says what ccache was told.
POISON = ('cat "$CCACHE_DIR/warmed"; echo poison > "$CCACHE_DIR/poison" || echo "WRITE REFUSED"; '
          'ccache --show-config | grep -E "^\\(environment\\) (read_only|stats) "')


@pytest.fixture(autouse=True)
def fresh_mode() -> Iterator[None]:
    """Each test chooses its isolation (ROOFLINE_SANDBOX), which mode() reads once."""
    isolation.mode.cache_clear()
    yield
    isolation.mode.cache_clear()


def fake_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder.mkdir(parents=True)
    (folder / "warmed").write_text("the grader's toolchain\n")
    readable(folder)
    monkeypatch.setattr(cache, "warmed", lambda: folder)
    return folder


def poisoned(step: cache.CacheStep) -> tuple[str, list[str]]:
    run = sandbox.run(["sh", "-c", POISON], submission=None, timeout_s=30, slot=SLOT, env=step.env, extra_ro=step.extra_ro)
    return run.stdout + run.stderr, sorted(path.name for path in cache.warmed().iterdir())


@needs_sandbox
@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed")
def test_a_bubblewrap_step_reads_the_cache_read_only_and_ccache_is_told_not_to_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOFLINE_SANDBOX", "bwrap")
    fake_cache(tmp_path / "cache", monkeypatch)
    step = cache.verilator_cache()
    assert step.env["CCACHE_DIR"] == cache.MOUNT and step.extra_ro == [(tmp_path / "cache", cache.MOUNT)]
    said, left = poisoned(step)
    assert "the grader's toolchain" in said and "WRITE REFUSED" in said and "Read-only file system" in said, said
    assert "(environment) read_only = true" in said and "(environment) stats = false" in said, said
    assert left == ["warmed"]


@needs_sandbox
@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed")
def test_a_uid_step_reads_the_cache_where_it_is_and_cannot_write_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROOFLINE_SANDBOX", "uid")
    if sandbox.mode() != "uid":
        pytest.skip("the uid isolation needs root")
    folder = fake_cache(tmp_path / "closed" / "cache", monkeypatch)
    (tmp_path / "closed").chmod(0o700)
    assert cache.verilator_cache() == cache.CacheStep()  # a folder the step's user cannot reach: no cache at all
    (tmp_path / "closed").chmod(0o755)
    sandbox.passable(folder)
    step = cache.verilator_cache()
    assert step.env["CCACHE_DIR"] == str(folder) and step.extra_ro == []
    said, left = poisoned(step)
    assert "the grader's toolchain" in said and "WRITE REFUSED" in said and "Permission denied" in said, said
    assert "(environment) read_only = true" in said, said
    assert left == ["warmed"]


def test_without_the_cache_a_step_has_ccache_off_and_with_it_paths_stay_absolute(monkeypatch: pytest.MonkeyPatch) -> None:
    from roofline_course.sandbox.mounts import environment

    assert environment(Path("/run"), Path("/tmp"), {})["CCACHE_DISABLE"] == "1"
    assert "CCACHE_DISABLE" not in environment(Path("/run"), Path("/tmp"), {"CCACHE_DIR": "/verilator-ccache"})
    if shutil.which("ccache") is None:
        pytest.skip("ccache is not installed")
    monkeypatch.delenv(ABSOLUTE_PATHS_VARIABLE, raising=False)
    assert object_cache()[0].startswith("OBJCACHE=CCACHE_BASEDIR=")
    monkeypatch.setenv(ABSOLUTE_PATHS_VARIABLE, "1")
    assert object_cache() == ["OBJCACHE=ccache"]


@needs_sandbox
@pytest.mark.full
@pytest.mark.sim
@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed")
def test_a_verilator_grade_takes_the_runtime_from_the_cache_leaves_it_as_it_was_and_scores_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiler runs for the design and never for the runtime's files (verilated*.cpp)."""
    monkeypatch.setenv("ROOFLINE_SANDBOX", "bwrap")
    folder = cache.warmed()
    assert folder is not None, "the grader could not fill the cache"
    before = {path: path.stat().st_mtime_ns for path in folder.rglob("*")}
    shown = cache.verilator_cache
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "say").write_text('#!/bin/sh\necho "COMPILER RUN: $*" >&2\nexec "$@"\n')
    (probe / "say").chmod(0o755)

    def said(unsafe: bool = False) -> cache.CacheStep:  # ccache runs the prefix only where it runs the compiler
        step = shown(unsafe)
        return cache.CacheStep({**step.env, "CCACHE_PREFIX": "/probe/say"}, [*step.extra_ro, (probe, "/probe")])

    lab = load_lab(1, with_hidden=False)
    settings = grade.Settings(sim="verilator", slot=SLOT)
    monkeypatch.setattr(sandbox, "verilator_cache", said)
    cached = grade.grade(lab, str(RTL_DIR), tmp_path / "cached", settings, progress=False)
    logs = sorted((tmp_path / "cached" / "groups").rglob("sim.log"))
    assert logs
    for log in logs:
        compiled = [line for line in log.read_text().splitlines() if "COMPILER RUN:" in line]
        assert any("Vtop__ALL.cpp" in line for line in compiled), (log, compiled)  # the design itself is compiled
        assert not [line for line in compiled if re.search(r"verilated\w*\.cpp", line)], (log, compiled)
    assert {path: path.stat().st_mtime_ns for path in folder.rglob("*")} == before
    monkeypatch.setattr(sandbox, "verilator_cache", lambda unsafe=False: cache.CacheStep())
    uncached = grade.grade(lab, str(RTL_DIR), tmp_path / "uncached", settings, progress=False)
    assert [(s.group.name, s.score) for s in cached.scores] == [(s.group.name, s.score) for s in uncached.scores]
    assert cached.score == uncached.score and all(score.full for score in cached.scores), cached.scores

