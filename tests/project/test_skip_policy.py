"""The skip policy (tests/support/skip_policy.py, tests/allowed-skips.toml): on a machine that must run
everything, a skip fails the run by name; elsewhere it is reported; a skipped security test
ends the run with a loud line. Shown on small sessions, then for real: the regression's own
sandbox tests with bubblewrap taken off PATH."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import skip_policy
from real_grading import needs_sandbox
from skip_policy import Allowed, Policy, PolicyError, SkipPolicy

from roofline_core.paths import REPO_ROOT

pytest_plugins = ["pytester"]

TESTS = """
import pytest

def test_runs():
    pass

def test_needs_a_tool():
    pytest.skip("frobnicate not found: apt-get install frobnicate")

@pytest.mark.xfail(reason="a known bug", strict=True)
def test_known_bug():
    assert False
"""


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Small sessions with the policy's plugin and no installed one (pytester imports each anew every session)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def session(pytester: pytest.Pytester, policy: Policy, environment: str | None, files: dict[str, str] | None = None
            ) -> pytest.RunResult:
    pytester.makepyfile(**(files or {"test_tools": TESTS}))
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs", plugins=[SkipPolicy(policy, environment)])


NOTHING_ALLOWED = Policy(security=(), environments={"ci": ()})


def test_an_unexpected_skip_fails_the_run_and_names_the_test_and_its_reason(pytester: pytest.Pytester) -> None:
    result = session(pytester, NOTHING_ALLOWED, "ci")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)  # the expected failure is not a skip
    unexpected = [line for line in result.outlines if line.startswith("UNEXPECTED SKIP")]
    assert unexpected == ["UNEXPECTED SKIP test_tools.py::test_needs_a_tool: frobnicate not found: apt-get install frobnicate"]


def test_a_skip_the_machine_allows_passes(pytester: pytest.Pytester) -> None:
    policy = Policy((), {"ci": (Allowed("test_tools.py::test_needs_*", "no frobnicate on CI"),)})
    result = session(pytester, policy, "ci")
    assert result.ret == pytest.ExitCode.OK
    assert not [line for line in result.outlines if "UNEXPECTED SKIP" in line]


def test_a_skip_allowed_on_another_machine_still_fails_this_one(pytester: pytest.Pytester) -> None:
    policy = Policy((), {"ci": (), "laptop": (Allowed("test_tools.py::test_needs_a_tool", "no frobnicate here"),)})
    assert session(pytester, policy, "ci").ret == pytest.ExitCode.TESTS_FAILED


def test_a_module_that_skips_whole_counts_as_a_skip(pytester: pytest.Pytester) -> None:
    files = {"test_module": "import pytest\npytest.importorskip('no_such_module_for_roofline')\n\ndef test_x():\n    pass\n",
             "test_other": "def test_y():\n    pass\n"}
    result = session(pytester, NOTHING_ALLOWED, "ci", files)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert any(line.startswith("UNEXPECTED SKIP test_module.py: could not import 'no_such_module_for_roofline'")
               for line in result.outlines), result.outlines


def test_without_an_environment_skips_are_reported_not_failed(pytester: pytest.Pytester) -> None:
    result = session(pytester, NOTHING_ALLOWED, None)
    assert result.ret == pytest.ExitCode.OK
    assert not [line for line in result.outlines if "UNEXPECTED SKIP" in line]
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] test_tools.py:*: frobnicate not found*"])  # pytest's -r line


def test_a_skipped_security_test_ends_the_run_with_a_loud_line(pytester: pytest.Pytester) -> None:
    policy = Policy(("test_tools.py::test_needs_*",), {"ci": ()})
    result = session(pytester, policy, None)
    assert result.ret == pytest.ExitCode.OK
    assert result.outlines[-1] == ("!!! SECURITY TESTS SKIPPED: 1 sandbox and course-kit test(s) did not run "
                                   "(frobnicate not found: apt-get install frobnicate): the grader's sandbox is unchecked "
                                   "on this machine !!!")
    quiet = session(pytester, Policy(("test_tools.py::test_runs",), {"ci": ()}), None)  # the security test ran
    assert not [line for line in quiet.outlines if "SECURITY" in line]


def test_an_unknown_environment_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match=r"ROOFLINE_TEST_ENV=lab: .* names no such environment \(it has: ci\)"):
        SkipPolicy(NOTHING_ALLOWED, "lab")


def test_the_policy_file_reads_and_every_allowed_skip_gives_a_reason(tmp_path: Path) -> None:
    policy = skip_policy.load()
    assert "ci" in policy.environments
    assert policy.is_security("tests/course/sandbox/test_run.py::test_a_server_on_the_hosts_loopback_is_out_of_reach")
    hostile = "tests/course/intake/test_hostile.py::test_a_hostile_submission_is_stopped_and_leaks_nothing[log_flood]"
    assert policy.is_security(hostile)
    assert not policy.is_security("tests/model/test_qformat.py::test_defaults")
    bad = tmp_path / "allowed-skips.toml"
    bad.write_text('[environment.ci]\nallowed = [{ test = "tests/test_x.py::*" }]\n')
    with pytest.raises(PolicyError, match=r"environment.ci.allowed\[0\] needs a test and a reason"):
        skip_policy.load(bad)


# ---------------------------------------------------------------- for real: bubblewrap off PATH

SANDBOX_TEST = "tests/course/sandbox/test_run.py::test_a_file_within_every_limit_is_written_whole"


def path_without(tool: str, folder: Path) -> str:
    """This PATH, each of its folders mirrored by links to everything in it but `tool`."""
    mirrored = []
    for number, entry in enumerate(os.environ["PATH"].split(os.pathsep)):
        mirror = folder / str(number)
        mirror.mkdir(parents=True)
        if Path(entry).is_dir():
            for program in Path(entry).iterdir():
                if program.name != tool:
                    (mirror / program.name).symlink_to(program)
        mirrored.append(str(mirror))
    return os.pathsep.join(mirrored)


def regression(tmp_path: Path, *tests: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on some of the regression's sandbox tests (one, unless named), as a fresh run (its own build
    folder; the installed plugins, which those tests do not use, left out for speed)."""
    inherited = {name: value for name, value in os.environ.items()
                 if not name.startswith("PYTEST_") and name != skip_policy.ENVIRONMENT_VARIABLE}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *(tests or [SANDBOX_TEST])],
                          cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600,
                          env={**inherited, "ROOFLINE_BUILD": str(tmp_path / "build"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                               **env})


# Everyday tests of several parts that need the sandbox, and the control: the sandbox's command line, checked without it.
NEED_THE_SANDBOX = [SANDBOX_TEST, "tests/course/sandbox/test_mounts.py",
                    "tests/course/test_labs.py::test_reference_gets_full_marks[1]"]
WITHOUT_THE_SANDBOX = ("tests/course/sandbox/test_command_line.py::"
                       "test_the_step_runs_as_the_slots_unprivileged_user_with_no_way_to_gain_more")


@needs_sandbox
def test_ci_fails_when_bubblewrap_is_missing_and_is_green_when_it_is_there(tmp_path: Path) -> None:
    """Without bubblewrap every test that needs it says so (none dies of it), each skip is a security skip
    (the loud line's count is the skip count), and CI fails by name; with it, the run is green."""
    without = path_without("bwrap", tmp_path / "path")
    failed = regression(tmp_path, *NEED_THE_SANDBOX, WITHOUT_THE_SANDBOX, PATH=without, ROOFLINE_TEST_ENV="ci")
    assert failed.returncode == pytest.ExitCode.TESTS_FAILED, failed.stdout + failed.stderr
    assert f"UNEXPECTED SKIP {SANDBOX_TEST}: the sandbox needs bubblewrap: bwrap not found" in failed.stdout, failed.stdout
    skipped = int(re.search(r"(\d+) skipped", failed.stdout)[1])
    assert skipped == 4 and re.search(r"\b1 passed", failed.stdout) and " failed" not in failed.stdout.splitlines()[-2]
    unexpected = [line for line in failed.stdout.splitlines() if line.startswith("UNEXPECTED SKIP")]
    assert len(unexpected) == skipped and all(f"{skip_policy.SANDBOX_REASON}: bwrap not found" in line
                                              for line in unexpected), unexpected
    last = failed.stdout.strip().splitlines()[-1]
    assert last.startswith(f"!!! SECURITY TESTS SKIPPED: {skipped} sandbox and course-kit test(s)"), last
    green = regression(tmp_path, ROOFLINE_TEST_ENV="ci")
    assert green.returncode == pytest.ExitCode.OK and "1 passed" in green.stdout, green.stdout + green.stderr
    assert "UNEXPECTED SKIP" not in green.stdout and "SECURITY TESTS SKIPPED" not in green.stdout


@pytest.mark.full
def test_elsewhere_a_missing_bubblewrap_passes_but_says_so_last(tmp_path: Path) -> None:
    run = regression(tmp_path, PATH=path_without("bwrap", tmp_path / "path"))
    assert run.returncode == pytest.ExitCode.OK, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1].startswith("!!! SECURITY TESTS SKIPPED: 1 sandbox and course-kit test(s)")
