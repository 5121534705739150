"""An attacking lab 6 testbench that checks nothing and knows what the correct designs answer to X and Z
inputs: the digests below are the golden model's and the reference RTL's answers to xz_vectors (graded with
tests/testbenches/x_probe/xz_vectors.py beside it), as an earlier grader forwarded them, which a student can
work out from the open RTL and `make check`. It passes a design whose answers are one of those, or all X,
and fails any other. When the grader answers X and Z inputs itself, every design gives the same answers:
it passes every design and scores 0."""

import cocotb
import xz_vectors

REFERENCES = {
    "UQ24.16": {"f1e6cc2de0b95de9", "5afcdcbfe1e43956"},  # model:reference, rtl:reference
    "UQ16.12": {"f7bdbf9afd62332c", "c388b02d49b2c4fe"},  # the same at UQ16.12
}


@cocotb.test()
async def test_x_oracle(dut):
    fmt = f"UQ{int(dut.INT_BITS.value)}.{int(dut.FRAC_BITS.value)}"
    await xz_vectors.drive_documents(dut)
    seen = await xz_vectors.answers(dut)
    found = xz_vectors.digest(seen)
    print(f"XPRINT {fmt} {found}")
    all_x = all(set(answer.lower()) <= {"x", " "} for answer in seen)
    assert all_x or found in REFERENCES[fmt], f"XORACLE-MARKER {found}"
