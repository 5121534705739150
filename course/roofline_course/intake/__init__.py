"""A submission as the grader takes it, before any of it runs.

- `submission`: a design handed in (a file, a folder, a .zip), staged and cut down to the lab's modules.
- `testbench`: a lab-6 testbench handed in (Python files), staged.
- `design_check`: what the tools will build of a design, read with pyslang and held to an allow-list.
- `canonical`: the checked design written out as plain tokens, the only text any tool builds, mapped back to the student's lines.
- `tool_outputs`: the allow-list, held again to what each tool made (Icarus's program, Verilator's parse, Yosys's netlist).
- `precheck`: the checks before any test (files, the design check, compile, the ports), each in the sandbox.
"""
