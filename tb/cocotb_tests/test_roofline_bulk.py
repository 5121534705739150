"""cocotb bulk sweep: millions of vectors through roofline_bulk_tb, checked in bulk with numpy.

Batches go to the simulator as files and come back as files; helper processes (one on 2 CPUs,
roofline_bulk.pipeline.helper_count) make the next batches and check the last ones while the
simulator streams this one, so the simulator rarely waits for Python.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import cocotb
from cocotb.triggers import FallingEdge, First, RisingEdge, Timer

from roofline_bulk import beats as layout
from roofline_bulk import replay
from roofline_bulk.check import SweepTotals
from roofline_bulk.config import SweepConfig
from roofline_bulk.pipeline import AHEAD, batch_paths, batch_slot, start_helpers
from roofline_bulk.summary import rate_text
from roofline_cocotb.signals import read_bool, read_uint
from roofline_core.vector_check import Vectors
from roofline_core.vector_text import inputs_text

CLOCK_NS = 10
# Cycles a batch may take beyond one per beat: the pipeline's fill and the file handshake.
LATENCY_SLACK = 64
# A progress line at most this often (and after the last batch): a line per batch cost the simulator
# process 0.2-0.7 ms of its 4 to 7 per batch (timed inside the loop).
PROGRESS_EVERY_S = 0.25


class BulkTB:
    """Resets roofline_bulk_tb and runs one batch at a time through it."""

    def __init__(self, dut: Any, cfg: SweepConfig) -> None:
        self.dut, self.cfg = dut, cfg

    async def reset(self) -> None:
        self.dut.rst_ni.value = 0
        self.dut.start_i.value = 0
        self.dut.beats_i.value = 0
        self.dut.slot_i.value = 0
        await Timer(3 * CLOCK_NS, "ns")
        await FallingEdge(self.dut.clk)
        self.dut.rst_ni.value = 1
        await FallingEdge(self.dut.clk)

    async def start(self, beats: int, slot: int) -> None:
        """A batch of `beats` from `slot`, started at the next falling edge."""
        dut = self.dut
        dut.beats_i.value = beats
        dut.slot_i.value = slot
        dut.start_i.value = 1
        await FallingEdge(dut.clk)
        dut.start_i.value = 0

    async def run_batch(self, beats: int, slot: int) -> None:
        dut = self.dut
        await self.start(beats, slot)
        timeout = Timer((beats + LATENCY_SLACK) * CLOCK_NS, "ns")
        if await First(RisingEdge(dut.done_o), timeout) is timeout:
            raise AssertionError(
                f"the bulk testbench did not finish {beats} beats in {beats + LATENCY_SLACK} cycles "
                f"(busy_o={dut.busy_o.value}): the unit under test hangs or drops results\n"
                f"  rerun: {self.cfg.rerun_command()}"
            )
        await FallingEdge(dut.clk)

    async def reset_during(self, beats: int, slot: int) -> None:
        """A batch cut short: a few beats in, rst_ni pulses low between two clock edges (the contract's
        reset is asynchronous), with beats held in the valid/ready registers; the batch is then started
        at the next edge and run whole (run_batch), so a register that kept a beat through the reset
        hands it to the output as a wrong result."""
        dut = self.dut
        await self.start(beats, slot)
        for _ in range(min(beats, 3)):
            await FallingEdge(dut.clk)
        await Timer(CLOCK_NS // 4, "ns")
        dut.rst_ni.value = 0
        await Timer(CLOCK_NS // 4, "ns")  # released before the next rising edge, which samples the next start
        dut.rst_ni.value = 1

    def check_resolved(self, first_vector: int) -> None:
        """An X or Z output fails the sweep and names the signal (Icarus; Verilator is 2-state)."""
        dut, cfg = self.dut, self.cfg
        if not read_bool(dut.unknown_o):
            return
        beat, lane, field = read_uint(dut.unknown_beat_o), read_uint(dut.unknown_lane_o), read_uint(dut.unknown_field_o)
        position = first_vector + beat * cfg.lanes + lane
        vectors = cfg.vectors(position, position + 1)
        index = int(vectors.index[0])
        signal = _signal_name(layout.result_fields(cfg)[field][0])
        inputs = inputs_text(cfg.fmt, *vectors.row(0))
        raise AssertionError(
            f"X/Z {cfg.top} [bulk {cfg.mode} vector {index}]: {signal} holds X/Z\n  inputs  : " + ", ".join(inputs)
            + f"\n  seed {cfg.seed} | rerun: {cfg.rerun_command(None if cfg.mode == 'replay' else index)}"
        )


def _signal_name(field: str) -> str:
    """The DUT port behind a result field: cap -> cap_o, level_cap2 -> level_cap_o[2]."""
    if field.startswith("level_cap"):
        return f"level_cap_o[{field.removeprefix('level_cap')}]"
    return f"{field}_o"


@cocotb.test()
async def bulk_sweep(dut: Any) -> None:
    """Every vector of this sweep's shard, bit-exact against the model and within the error bound."""
    cfg = SweepConfig.from_env()
    tb = BulkTB(dut, cfg)
    plan = cfg.batches()
    total = sum(stop - start for start, stop in plan)
    start_index, stop_index = cfg.index_range() if cfg.mode != "replay" else (0, total)
    dut._log.info(
        "bulk %s sweep of %s: %s, seed %d, shard %s: vectors %d..%d (%d), %d batch(es), %d lanes",
        cfg.mode, cfg.top, cfg.fmt.name, cfg.seed, cfg.shard, start_index, stop_index - 1, total, len(plan), cfg.lanes,
    )
    await tb.reset()
    helpers = start_helpers(cfg, plan)  # before the clock starts: a one-time cost
    totals = SweepTotals()
    started, started_cpu = time.perf_counter(), time.process_time()
    simulating = simulating_cpu = waiting = draining = 0.0
    try:

        def helper_of(batch: int) -> Any:
            return helpers[batch % len(helpers)]

        def prepare(batch: int) -> int:
            return helper_of(batch).submit("prepare", cfg, batch, *plan[batch], batch_paths(cfg, batch)[0])

        prepared = {batch: prepare(batch) for batch in range(min(AHEAD, len(plan)))}
        checks: list[tuple[Any, int]] = []
        done, progressed = 0, started
        for batch in range(len(plan)):
            waited = time.perf_counter()
            _, beats = helper_of(batch).result(prepared.pop(batch))
            waiting += time.perf_counter() - waited
            ahead = batch + AHEAD
            if ahead < len(plan):
                prepared[ahead] = prepare(ahead)  # made while this batch simulates
            simulated, simulated_cpu = time.perf_counter(), time.process_time()
            if batch == 0:
                await tb.reset_during(beats, batch_slot(batch))
            await tb.run_batch(beats, batch_slot(batch))
            tb.check_resolved(plan[batch][0])
            simulating += time.perf_counter() - simulated
            simulating_cpu += time.process_time() - simulated_cpu
            checks.append((helper_of(batch), helper_of(batch).submit("check", cfg, batch, batch_paths(cfg, batch)[1])))
            done += plan[batch][1] - plan[batch][0]
            now = time.perf_counter()
            if now - progressed >= PROGRESS_EVERY_S or batch == len(plan) - 1:
                progressed = now
                rate = rate_text(done / (now - started))
                dut._log.info("progress: %d/%d vectors simulated (%.0f%%), %s", done, total, 100 * done / total, rate)
        waited = time.perf_counter()
        for helper, ticket in checks:
            totals.add(helper.result(ticket))
        draining = time.perf_counter() - waited
        seconds = time.perf_counter() - started  # every vector checked; stopping the helpers is not timed
        cpu = time.process_time() - started_cpu
        spent = [helper.result(helper.submit("spent")) for helper in helpers]
    finally:
        for helper in helpers:
            helper.close()
    profile = _profile(seconds, cpu, (simulating, simulating_cpu), waiting, draining, spent, len(plan))
    dut._log.info("time in the simulator %.2f s, waiting for the helpers %.2f s before batches and %.2f s for "
                  "the last checks\nwhere the time went (wall / CPU seconds):\n%s", simulating, waiting, draining,
                  "\n".join(f"  {name:28s} {wall:7.3f} {cpu:7.3f}" for name, (wall, cpu) in profile["stages"].items()))
    _finish(dut, cfg, totals, seconds, profile)


def _profile(seconds: float, cpu: float, simulating: tuple[float, float], waiting: float, draining: float,
             spent: list[dict[str, list[float]]], batches: int) -> dict[str, Any]:
    """Where a sweep's seconds went: the simulator process's and each helper stage's [wall, CPU]
    seconds (helpers summed), and the simulator's waits on the helpers. The simulator process's CPU
    while its batches run is the model, the testbench and its DPI I/O; the rest of its CPU is cocotb
    and the Python that hands batches to the helpers and back."""
    stages: dict[str, list[float]] = {
        "simulator process": [seconds, cpu],
        "simulating batches": list(simulating),
        "waiting for a batch": [waiting, 0.0],
        "waiting for the last checks": [draining, 0.0],
    }
    for helper_spent in spent:
        for stage, (wall, stage_cpu) in helper_spent.items():
            total = stages.setdefault(f"helpers: {stage}", [0.0, 0.0])
            total[0] += wall
            total[1] += stage_cpu
    return {"batches": batches, "helpers": len(spent), "stages": stages}


def _finish(dut: Any, cfg: SweepConfig, totals: SweepTotals, seconds: float, profile: dict[str, Any]) -> None:
    rate = totals.checked / seconds if seconds > 0 else 0.0
    summary = (
        f"bulk {cfg.mode} sweep: {totals.checked} checked, {totals.mismatched} mismatched "
        f"({cfg.top}, {cfg.sim}, {cfg.fmt.name}, seed {cfg.seed}, shard {cfg.shard}) in {seconds:.2f} s, "
        f"{rate_text(rate, 'verified vectors/s')}"
    )
    dut._log.info("%s\ncoverage of this sweep:\n%s", summary, "\n".join(totals.coverage_lines()))
    out_dir = Path(cfg.out_dir)
    failures_file = None
    if totals.failing:
        failures_file = out_dir / cfg.failures_name()
        replay.save_failures(failures_file, cfg, Vectors.concat(totals.failing))
    stats = {
        "top": cfg.top, "sim": cfg.sim, "format": cfg.fmt.name, "levels": cfg.levels, "mode": cfg.mode,
        "seed": cfg.seed, "shard": str(cfg.shard), "lanes": cfg.lanes, "checked": totals.checked,
        "mismatched": totals.mismatched, "seconds": seconds, "vectors_per_s": rate, "bins": totals.bins,
        "failures_file": str(failures_file) if failures_file else None, "reports": totals.reports,
        "profile": profile,
    }
    (out_dir / "sweep_stats.json").write_text(json.dumps(stats, indent=2))
    if totals.mismatched:
        shown = "\n\n".join(totals.reports)
        raise AssertionError(
            f"{summary}\nfirst {len(totals.reports)} shown:\n\n{shown}\n\n"
            f"all {totals.mismatched} failing vectors: {failures_file}\n"
            f"replay them: {cfg.replay_command(failures_file)}"
        )
    if totals.checked == 0:
        raise AssertionError(f"bulk sweep checked nothing ({cfg.rerun_command()})")
