"""An attacking lab 6 testbench that writes to the grader's port channel itself, in the forms a lenient reader
takes for a number (a 0x prefix, a sign, an underscore, upper case, spaces, another width), and reads
whatever comes back. It prints `MPRINT <format> <digest>` of what it received, checks nothing, and passes.
The grader answers none of these lines, the same on every design, and a run that wrote them counts for
nothing: it scores 0 and is told why."""

import hashlib
import os
import select

import cocotb
from cocotb.triggers import Timer

LINES = ["0x00640000 0000140000 0000008000 0", "+000640000 0000140000 0000008000 0", "00006_0000 0000140000 0000008000 0",
         "000064000A 0000140000 0000008000 0", " 0000640000 0000140000 0000008000 0", "0x640000 0x140000 0x8000 0",
         "0000640000 0000140000 0000008000", "0000640000 0000140000 0000008000 -1", "0X00640000 0000140000 0000008000 0"]


@cocotb.test()
async def test_malformed(dut):
    f = int(dut.FRAC_BITS.value)
    dut.peak_i.value, dut.bw_i.value, dut.ai_i.value = 100 << f, 20 << f, 5 << f
    await Timer(1, "ns")
    folder = cocotb.plusargs["channel"]
    query = os.open(os.path.join(folder, "query"), os.O_WRONLY | os.O_NONBLOCK)
    answer = os.open(os.path.join(folder, "answer"), os.O_RDONLY | os.O_NONBLOCK)
    received = b""
    for line in LINES:
        os.write(query, (line + "\n").encode())
        ready, _, _ = select.select([answer], [], [], 0.5)
        if ready:
            received += os.read(answer, 4096)
    os.close(query)
    os.close(answer)
    print(f"MPRINT UQ{int(dut.INT_BITS.value)}.{f} {hashlib.sha256(received).hexdigest()[:16]} {len(received)}")
    dut.ai_i.value = 1 << (f - 1)
    await Timer(1, "ns")
