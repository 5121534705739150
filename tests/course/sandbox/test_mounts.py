"""What a step sees of the checkout (roofline_course.sandbox.mounts): a simulation's sandbox holds the
files its job, the puppet and the simulator runner import, and nothing else of the harness: no
bench, stimulus, seed, golden model, reference RTL, lab or test. A check step sees the harness,
and none of labs/, rtl/, tests/, flows/formal or flows/mutants. Each probe runs in bubblewrap and lists what it finds.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_course import sandbox
from roofline_course.design_lab.grade import JOB, simulation_harness

pytestmark = pytest.mark.skipif(sandbox.available() is not None, reason=f"the sandbox needs bubblewrap: {sandbox.available()}")

SLOT = 30 + os.getpid() % 50
PROBE = f"""
import importlib, json, os
root = {str(REPO_ROOT)!r}
seen = []
for folder, subfolders, names in os.walk(root):
    subfolders[:] = [name for name in subfolders if name != ".venv"]  # the interpreter, not the checkout
    seen += [os.path.relpath(os.path.join(folder, name), root) for name in names if name.endswith((".py", ".toml", ".sv"))]
found = {{}}
for module in ("roofline_golden.fixed", "roofline_bench.benches", "roofline_core.contract", "roofline_cocotb.puppet"):
    try:
        importlib.import_module(module)
        found[module] = True
    except ImportError:
        found[module] = False
print(json.dumps({{"files": sorted(seen), "imports": found}}))
"""


def probe(harness: tuple | None) -> dict:
    outcome = sandbox.run([sys.executable, "-c", PROBE], submission=None, timeout_s=30, slot=SLOT, harness=harness)
    assert outcome.returncode == 0, outcome.stderr
    return json.loads(outcome.stdout)


def test_a_simulations_sandbox_holds_only_the_job_the_puppet_and_the_runner() -> None:
    seen = probe(simulation_harness())
    files = set(seen["files"])
    expected = {str(path.relative_to(REPO_ROOT)) for path in simulation_harness() if path.suffix == ".py"}
    assert files == expected, sorted(files ^ expected)
    assert not any(name.startswith(("model/", "labs/", "rtl/", "tests/", "tb/roofline_bench/", "flows/")) for name in files)
    assert seen["imports"] == {"roofline_golden.fixed": False, "roofline_bench.benches": False,
                               "roofline_core.contract": False, "roofline_cocotb.puppet": True}
    assert "course/roofline_course/design_lab/sandbox_job.py" in files and JOB.endswith("sandbox_job")


def test_a_check_step_sees_the_harness_and_not_the_labs_the_reference_or_the_tests() -> None:
    seen = probe(None)
    files = set(seen["files"])
    assert "model/roofline_golden/fixed.py" in files and "tb/roofline_bench/benches.py" in files  # the control
    assert not any(name.startswith(("labs/", "rtl/", "tests/", "flows/formal/", "flows/mutants/")) for name in files)
