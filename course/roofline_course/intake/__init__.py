"""A submission as the grader takes it, before any of it runs.

- `submission`: a design handed in (a file, a folder, a .zip), staged and cut down to the lab's modules.
- `testbench`: a lab-6 testbench handed in (Python files), staged.
- `design_check`: what the tools will build of a design, read with pyslang and held to an allow-list.
- `precheck`: the checks before any test (files, compile, the design check, the ports), each in the sandbox.
"""
