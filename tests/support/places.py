"""Where the tests' own files are: the helpers, the fixtures (hostile submissions, drop-in designs, lab-6
testbenches) and the records (durations, the skip policy)."""

from __future__ import annotations

from roofline_core.paths import REPO_ROOT

TESTS_DIR = REPO_ROOT / "tests"
SUPPORT_DIR = TESTS_DIR / "support"
HOSTILE_DIR = TESTS_DIR / "hostile"  # submissions that attack the grader, one folder each, and cases.toml
INDEPENDENT_DIR = TESTS_DIR / "dropin" / "independent"  # an independent implementation of the contract
TESTBENCHES_DIR = TESTS_DIR / "testbenches"  # lab-6 testbenches that attack or fool the grader
