"""Running a printed command as a person would: `make ...` from the checkout, with none of the
make variables of the pytest run itself (nor MAKEFLAGS, when pytest runs under `make test`)."""

from __future__ import annotations

import os
import re
import subprocess

from roofline_core.paths import REPO_ROOT

MAKEFILE = REPO_ROOT / "Makefile"
# Every variable the Makefile reads: one given to `make test` (ARGS=..., SEED=...) is in the
# environment of what the tests run, and a printed line's make would read it too.
MAKE_VARIABLES = {*re.findall(r"\$\(([A-Z][A-Z0-9_]*)\)", MAKEFILE.read_text()), "SWEEP",
                  "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "ROOFLINE_RTL"}


def command_env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in MAKE_VARIABLES}, **extra}


def run_command(argv: list[str], timeout: float = 300, **extra: str) -> subprocess.CompletedProcess[str]:
    """argv (a printed rerun or replay line, split) run from the checkout in a clean environment."""
    return subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout, env=command_env(**extra))
