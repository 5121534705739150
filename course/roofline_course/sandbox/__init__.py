"""Every step that touches a student's code runs here: bubblewrap, an unprivileged user, limits.

What the sandboxed process sees:
- the system's programs and libraries read-only (/usr), the Python installation and .venv,
  and the harness (tb/, model/, course/, flows/'s code) read-only at the paths they have outside;
- the submission, read-only, at /submission;
- two private tmpfs folders of fixed size: /tmp and /run (the working folder);
- for a Verilator simulation, the grader's compiled Verilator runtime, read-only, with ccache set
  read-only (object_cache; without it, ccache is off);
- no network; no /proc (native Yosys and nextpnr, which run no design code, get one of their
  own PID namespace); no /etc beyond the loader cache; no labs/ (so no hidden groups), no
  rtl/ (the reference solution), no tests/, no flows/formal or flows/mutants (mounts.NEVER_SEEN),
  no other student, no file of the grader's.
It runs as an unprivileged user with no capabilities and no way to gain them, in its own
session and PID namespace, under limits on address space, CPU time, file size and processes.

The pip (WebAssembly) Yosys and nextpnr run here too, from a cache the grader compiled (eda).
On the wall-clock limit the whole sandbox is killed with its process group.

Output comes back on pipes the grader reads with a cap: stdout and stderr, and the result on
a third pipe (its fd in ROOFLINE_RESULT_FD) that only the trusted grading process holds. A simulator it starts
does not inherit that pipe, and with no /proc the design cannot reach it by path. Nothing the
sandbox writes reaches the grader's disk.

The parts: `isolation` (bubblewrap, or another user where namespaces cannot be made), `mounts`
(what a step sees), `users` (a user per concurrent step, and the uid fallback's permissions),
`limits`, `eda` (the simulator's and the EDA tools' set-up), `object_cache` (the Verilator runtime, compiled
once by the grader and only read by a step) and `run` (one step, its pipes, its
time limit). This package's names are the interface the grader uses.
"""

from roofline_course.sandbox.eda import simulator_env
from roofline_course.sandbox.isolation import SandboxUnavailable, available, describe_mode, mode
from roofline_course.sandbox.limits import Limits
from roofline_course.sandbox.mounts import NEVER_SEEN, SUBMISSION, WORK, compile_bytecode, harness_files, step_paths
from roofline_course.sandbox.object_cache import CacheStep, verilator_cache
from roofline_course.sandbox.run import RESULT_FD_VARIABLE, Outcome, run
from roofline_course.sandbox.users import passable, protect

__all__ = ["NEVER_SEEN", "RESULT_FD_VARIABLE", "SUBMISSION", "WORK", "CacheStep", "Limits", "Outcome",
           "SandboxUnavailable", "available", "compile_bytecode", "describe_mode", "harness_files", "mode", "passable",
           "protect", "run", "simulator_env", "step_paths", "verilator_cache"]
