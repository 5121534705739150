"""These folders are students' lab-6 testbenches, graded by tests/course/testbench_lab/test_lab6.py in a
sandbox: cocotb modules, not pytest tests, and some import a helper beside them. pytest does not collect them."""

collect_ignore_glob = ["*"]
