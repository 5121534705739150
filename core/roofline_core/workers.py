"""Dask, for work that spans machines: connecting to a cluster and checking that its workers run
the same code as the client (no cocotb; `distributed` is imported only when a cluster is used)."""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Iterable
from pathlib import Path
from typing import Any

WAIT_FOR_WORKERS_S = 60


class ClusterError(RuntimeError):
    """The cluster cannot do this work; the message is one line."""


def connect(address: str) -> Any:
    """A Dask client for `address` (tcp://host:port, or a scheduler file), or a local cluster for local:K."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("CLUSTER= needs Dask: pip install -e '.[cluster]' (make sim installs it)") from None
    if address.startswith("local:"):
        workers = address.removeprefix("local:")
        if not workers.isdigit() or int(workers) < 1:
            raise ClusterError(f"CLUSTER={address}: write local:K with K workers, for example local:2")
        cluster = LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True, dashboard_address=":0")
        return Client(cluster)
    if not Path(address).is_file():
        _refuse_if_closed(address)
    try:
        client = Client(scheduler_file=address, timeout="10s") if Path(address).is_file() else Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as problem:
        raise ClusterError(f"CLUSTER={address}: no Dask scheduler answers there ({problem})") from None
    try:
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS_S)
    except TimeoutError:
        client.close()
        raise ClusterError(f"CLUSTER={address}: the scheduler has had no worker for {WAIT_FOR_WORKERS_S} s") from None
    return client


def _refuse_if_closed(address: str) -> None:
    """A port nothing listens on fails at once (Dask would retry it for its whole timeout)."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not address.startswith("tcp://") or not port.isdigit():
        return  # another protocol, or no port: Dask reports it
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except ConnectionRefusedError:
        raise ClusterError(f"CLUSTER={address}: no Dask scheduler answers there (connection refused)") from None
    except OSError:
        return  # unreachable or slow: Dask's own timeout decides


def worker_count(client: Any) -> int:
    return len(client.scheduler_info().get("workers", {}))


def code_digest(files: Iterable[Path], packages: Iterable[str] = ()) -> str:
    """The content of these files and of these packages' Python modules: equal on client and worker,
    or the worker runs other code."""
    paths = list(files)
    for package in packages:
        module = __import__(package)
        paths += sorted(Path(module.__file__ or "").parent.glob("*.py"))
    digest = hashlib.sha256()
    for path in paths:
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def worker_name() -> str:
    """This Dask worker's name, or the process when not on a worker."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return str(worker.name if worker.name is not None else worker.address)
    except (ImportError, ValueError):
        return f"local-{os.getpid()}"
