"""A session fixture's work done once per test run, not once per pytest-xdist worker: the first
worker to ask does it in a folder every worker of the run shares, under a lock, and writes what it
found as JSON; the others wait on the lock and read it. Without xdist it is done in the session's
own folder (the shared one would outlive the run)."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def once_per_run(factory: pytest.TempPathFactory, name: str, work: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """work(folder) -> a JSON-able dict, done once per run in `folder`; every caller gets that dict.
    The worker is read from xdist's environment, so that a run without xdist (`-p no:xdist`, as make
    mutation's) needs none of its fixtures."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # no xdist: nothing to share, and pytest-of-<user> is kept across runs
        return work(factory.mktemp(name))
    shared = factory.getbasetemp().parent  # pytest-<n>: this run's, the parent of every worker's folder
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / f"{name}.json"
        if not done.exists():
            folder = shared / name
            folder.mkdir()
            partial = shared / f".{name}.json"
            partial.write_text(json.dumps(work(folder)))
            partial.replace(done)
        return json.loads(done.read_text())
