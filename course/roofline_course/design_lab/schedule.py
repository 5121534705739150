"""The order a design lab's simulations run in: which groups share one, and which wait for others."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from roofline_course.labs.definitions import Group
from roofline_course.results import GroupScore


def batches(groups: tuple[Group, ...]) -> list[list[Group]]:
    """Groups that can share one simulation: same visibility, parameter set, seed and sweep, the
    visible ones first. A hidden group never shares a run with a visible one (state a design keeps
    between tests could carry a hidden vector into a visible report); a group that requires
    another runs alone."""
    keyed: dict[object, list[Group]] = {}
    for group in sorted(groups, key=lambda g: g.hidden):
        key = (group.hidden, group.param_set, group.seed, group.sweep) if group.kind == "sim" and not group.requires \
            else group.name
        keyed.setdefault(key, []).append(group)
    return list(keyed.values())


def run_in_order_of_needs(todo: list[list[Group]], run: Callable[[list[Group], dict[str, GroupScore]], list[GroupScore]],
                          parallel: int, earlier: dict[str, GroupScore] | None = None) -> dict[str, GroupScore]:
    """Run every batch, `parallel` at a time; a batch that requires other groups starts as soon as
    they are scored, ahead of the batches still queued (in the labs it is the synthesis, the longest job).
    Returns every score, the `earlier` ones included."""
    scored: dict[str, GroupScore] = dict(earlier or {})
    workers = max(1, parallel)
    waiting = [batch for batch in todo if batch[0].requires]
    ready = [batch for batch in todo if not batch[0].requires]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running: dict[Future[list[GroupScore]], list[Group]] = {}
        while waiting or ready or running:
            unblocked = [batch for batch in waiting if all(name in scored for name in batch[0].requires)]
            if not (unblocked or ready or running):
                unblocked = waiting[:1]  # requirements that can never be scored (a cycle): it is skipped
            for batch in reversed(unblocked):
                waiting.remove(batch)
                ready.insert(0, batch)
            while ready and len(running) < workers:
                batch = ready.pop(0)
                running[pool.submit(run, batch, dict(scored))] = batch
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                scored.update((score.group.name, score) for score in future.result())
    return scored
