"""Skips are a policy, not an accident (tests/allowed-skips.toml says which test may skip where).

With ROOFLINE_TEST_ENV=<name> (.ci/run sets "ci"), every skip that the file does not allow for
that machine fails the run: the session's exit status becomes 1 and one line names each
unexpected skip with its reason. On every machine, a run in which a security test skipped
ends with a loud line saying so; a test skipped because the sandbox cannot run (SANDBOX_REASON)
is a security test wherever it lives.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

POLICY_FILE = Path(__file__).parents[1] / "allowed-skips.toml"
ENVIRONMENT_VARIABLE = "ROOFLINE_TEST_ENV"
# Every test that needs the sandbox skips with a reason that begins so (real_grading.needs_sandbox),
# then says why; each such skip counts as a security test's, wherever the test lives.
SANDBOX_REASON = "the sandbox needs bubblewrap"


@dataclass(frozen=True)
class Allowed:
    test: str  # a node id, or an fnmatch pattern of node ids
    reason: str  # why it may skip on that machine


@dataclass(frozen=True)
class Policy:
    security: tuple[str, ...]  # patterns of the security tests
    environments: dict[str, tuple[Allowed, ...]]

    def is_security(self, nodeid: str) -> bool:
        return any(fnmatch.fnmatchcase(nodeid, pattern) for pattern in self.security)

    def allows(self, environment: str, nodeid: str) -> bool:
        return any(fnmatch.fnmatchcase(nodeid, entry.test) for entry in self.environments[environment])


class PolicyError(ValueError):
    """The policy file is not what this module reads; the message names the file and the entry."""


def load(path: Path = POLICY_FILE) -> Policy:
    try:
        document = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as problem:
        raise PolicyError(f"{path}: {problem}") from problem
    environments = {}
    for name, table in document.get("environment", {}).items():
        entries = []
        for number, entry in enumerate(table.get("allowed", [])):
            if not isinstance(entry, dict) or not entry.get("test") or not entry.get("reason"):
                raise PolicyError(f"{path}: environment.{name}.allowed[{number}] needs a test and a reason")
            entries.append(Allowed(entry["test"], entry["reason"]))
        environments[name] = tuple(entries)
    return Policy(tuple(document.get("security", [])), environments)


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason a skip gave (pytest keeps it as (file, line, "Skipped: reason"))."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ") or "(no reason given)"


class SkipPolicy:
    """The pytest plugin: collects every skip, and at the end of the session applies the policy."""

    def __init__(self, policy: Policy, environment: str | None) -> None:
        if environment is not None and environment not in policy.environments:
            known = ", ".join(sorted(policy.environments)) or "none"
            raise pytest.UsageError(f"{ENVIRONMENT_VARIABLE}={environment}: {POLICY_FILE.name} names no such "
                                    f"environment (it has: {known})")
        self.policy = policy
        self.environment = environment
        self.skipped: dict[str, str] = {}  # node id -> reason

    def _note(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):  # an expected failure is not a skip
            self.skipped[report.nodeid] = skip_reason(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)  # a module that skips as a whole (importorskip at the top)

    def unexpected(self) -> dict[str, str]:
        if self.environment is None:
            return {}
        return {test: why for test, why in self.skipped.items() if not self.policy.allows(self.environment, test)}

    def security_skips(self) -> dict[str, str]:
        """The security tests that skipped: those the policy names, and every test the sandbox's absence skipped."""
        return {test: why for test, why in self.skipped.items()
                if self.policy.is_security(test) or why.startswith(SANDBOX_REASON)}

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unexpected() and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        unexpected = self.unexpected()
        if not unexpected:
            return
        terminalreporter.section(f"skips this machine ({ENVIRONMENT_VARIABLE}={self.environment}) must not have", red=True)
        for test, why in sorted(unexpected.items()):
            terminalreporter.write_line(f"UNEXPECTED SKIP {test}: {why}", red=True)
        terminalreporter.write_line(f"{len(unexpected)} test(s) skipped that {POLICY_FILE.name} does not allow on "
                                    f"'{self.environment}': the run fails (install what each reason names, or allow "
                                    "the skip there with its reason)", red=True, bold=True)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        """After pytest's own last line: the line a reader of `make test` must not miss."""
        security = self.security_skips()
        if security:
            reasons = "; ".join(sorted(set(security.values())))
            config.get_terminal_writer().line(
                f"!!! SECURITY TESTS SKIPPED: {len(security)} sandbox and course-kit test(s) did not run ({reasons}): "
                "the grader's sandbox is unchecked on this machine !!!", red=True, bold=True)


def register(config: pytest.Config) -> None:
    """Called from conftest.py; the controller alone judges (an xdist worker's reports reach it too)."""
    if hasattr(config, "workerinput"):
        return
    try:
        policy = load()
    except PolicyError as problem:
        raise pytest.UsageError(str(problem)) from problem
    config.pluginmanager.register(SkipPolicy(policy, os.environ.get(ENVIRONMENT_VARIABLE) or None), "roofline-skip-policy")
