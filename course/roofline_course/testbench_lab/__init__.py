"""Grading a testbench lab (lab 6): the student's cocotb testbench against correct and faulty designs.

- `grade`: one testbench's grading: its runs planned, run and scored.
- `port_shell`: the module the testbench drives, with the contract's ports and nothing behind them.
- `design_bank`: every design of one format, side by side outside the sandbox, answering the shell.
- `port_channel`: the grader's end of the channel: reads the shell's queries strictly, answers them, keeps a transcript.
- `run`: one run, the testbench against one design, in a fresh sandbox.
- `sandbox_job`: what runs inside the sandbox (the student's testbench on the shell).
- `marks`: the lab's marks from the runs: no false alarm, the share of bugs caught, coverage.
- `diagnosis`: why a testbench failed a design that behaved correctly: a wrong check (on which vector), or nondeterminism.
"""
