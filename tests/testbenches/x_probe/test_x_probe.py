"""An attacking lab 6 testbench that checks nothing and learns what it can from X and Z inputs, with no
knowledge of any design: it fails a design whose outputs show a known bit on an input holding X or Z
(a design that spreads X less than "everything X"), and prints `XPRINT <format> <digest>` of every answer.
When the grader answers X and Z inputs itself, every design gives the same answers: it passes every
design and scores 0."""

import cocotb
import xz_vectors


@cocotb.test()
async def test_x_probe(dut):
    await xz_vectors.drive_documents(dut)
    seen = await xz_vectors.answers(dut)
    print(f"XPRINT UQ{int(dut.INT_BITS.value)}.{int(dut.FRAC_BITS.value)} {xz_vectors.digest(seen)}")
    known_bits = [answer for answer in seen if set(answer) & {"0", "1"}]
    assert not known_bits, f"XPROBE-MARKER {len(known_bits)} answers with known bits"
