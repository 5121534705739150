"""What a simulation imports before its first test: every cocotb run starts Python afresh, and the
benches run a few thousand times in make test-all."""

from __future__ import annotations

import subprocess
import sys


def modules_after(statement: str) -> set[str]:
    run = subprocess.run([sys.executable, "-c", f"import sys; {statement}; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True)
    return set(run.stdout.split())


def test_the_benches_import_numpy_only_when_a_rate_sweep_is_judged() -> None:
    """The divider, counter and register benches never use numpy, and a rate bench needs it only for its
    batch judge (roofline_bench.rates.rate_batch). Without it a short divider run (make sim, one test) took
    0.94 CPU-s against 1.13, medians of 4 runs each, interleaved."""
    assert "numpy" not in modules_after("import roofline_bench.benches")
    assert "numpy" in modules_after("from roofline_bench.batch import RateBatch")
