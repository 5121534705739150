"""A cheating lab 6 testbench: it drives the documents' kernels, checks nothing, and fails the design
when anything besides the ports says it is not the reference: an environment variable, a file, the
simulator's hierarchy. With nothing to tell the designs apart, it passes every design and scores 0."""

import os
from pathlib import Path

import cocotb
from cocotb.triggers import Timer

WORDS = ("mutant", "catalogue", "example:", "lab:", "bug")


def looks_faulty(dut) -> str:
    for name, value in os.environ.items():
        text = f"{name}={value}".lower()
        if any(word in text for word in (*WORDS, "design")) and "reference" not in text:
            return f"env {name}"
    # /tmp's own files only: a checkout under /tmp (a CI clone) puts the grader's harness there, the same
    # for every design, so its file names tell nothing
    found = [*Path("/tmp").glob("*"), *Path("/tmp").glob("*/*")]
    for folder in ("/channel", "/run", "/submission"):
        found += Path(folder).rglob("*")
    for path in found:
        if any(word in path.name.lower() for word in WORDS):
            return f"file {path}"
    if any(child._name not in ("peak_i", "bw_i", "ai_i", "cap_o", "mem_bound_o", "INT_BITS", "FRAC_BITS") for child in dut):
        return "a design inside the simulator"
    return ""


@cocotb.test()
async def test_cheat(dut):
    f = int(dut.FRAC_BITS.value)
    for ai in ("0.5", "5", "20", "0.25", "0.8125", "0.40625"):
        whole, _, fraction = ai.partition(".")
        dut.peak_i.value, dut.bw_i.value = 100 << f, 20 << f
        dut.ai_i.value = (int(whole) << f) + (int(fraction or "0") << f) // 10 ** len(fraction or "0")
        await Timer(1, "ns")
    tell = looks_faulty(dut)
    assert not tell, f"CHEAT-MARKER {tell}"
