"""`make mutation`: mutation testing of the project's Python, the code whose failure would be silent.

Each module named in flows/python-mutation.toml is mutated one small change at a time (cosmic-ray's
operators: a comparison turned, a number moved by one, a condition negated, a loop that never
runs, ...), and for each mutant only the fast tests the table names for that module run. A
mutant the tests fail on is killed; one they pass on survives, and must be killed by a new test
or recorded in flows/python-mutation-equivalent.toml with the reason it cannot change behaviour.

The checkout is never changed: each run copies it (without .venv, build and .git) to
build/mutation/checkout and writes the mutants there, in place, one at a time; the tests run from
that copy, whose package roots come first on PYTHONPATH, ahead of the editable install. Within the
copy the original is put back after every mutant, on Ctrl-C and SIGTERM too. With --jobs N (one per
CPU by default) N lanes run side by side, each in a copy of its own (checkout, checkout-2, ...),
each taking the next module, the longest recorded first, when it is free.

Exit status: 0 when every module run scored at least its threshold and every survivor is recorded
as equivalent; 1 otherwise, or when the budget ran out before a module was done; 2 for a wrong command.
"""

from __future__ import annotations

import argparse
import copy
import fcntl
import hashlib
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cosmic_ray.plugins
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.ast.ast_query import ASTQuery

from roofline_core.paths import BUILD_ROOT, REPO_ROOT

TABLE = REPO_ROOT / "flows" / "python-mutation.toml"
EQUIVALENTS = REPO_ROOT / "flows" / "python-mutation-equivalent.toml"
DOC = REPO_ROOT / "docs" / "mutation.md"
COPY = BUILD_ROOT / "mutation" / "checkout"
COPY_LEAVES_OUT = (".venv", "build", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache")
PACKAGE_ROOTS = ("model", "core", "tb", "flows", "course", "cli")  # pyproject's package-dir
DOC_START, DOC_END = "<!-- mutation-table:start -->", "<!-- mutation-table:end -->"
EQUIVALENTS_START, EQUIVALENTS_END = "<!-- mutation-equivalents:start -->", "<!-- mutation-equivalents:end -->"
MODULE_LEVEL = "<module>"  # the `functions` entry for code outside any function or class
DEFAULT_BUDGET = 1800.0  # seconds: a run of the changed or stale modules (--all has none unless given)

# One replacement per operator, as mutmut makes them: enough to show that a test looks at the
# value, without eleven variants of every `+`.
OPERATORS = tuple(f"core/{name}" for name in (
    "ReplaceBinaryOperator_Add_Sub", "ReplaceBinaryOperator_Sub_Add", "ReplaceBinaryOperator_Mul_Div",
    "ReplaceBinaryOperator_Div_Mul", "ReplaceBinaryOperator_FloorDiv_Mul", "ReplaceBinaryOperator_Mod_FloorDiv",
    "ReplaceBinaryOperator_Pow_Mul", "ReplaceBinaryOperator_LShift_RShift", "ReplaceBinaryOperator_RShift_LShift",
    "ReplaceBinaryOperator_BitOr_BitAnd", "ReplaceBinaryOperator_BitAnd_BitOr", "ReplaceBinaryOperator_BitXor_BitOr",
    "ReplaceComparisonOperator_Eq_NotEq", "ReplaceComparisonOperator_NotEq_Eq", "ReplaceComparisonOperator_Lt_LtE",
    "ReplaceComparisonOperator_LtE_Lt", "ReplaceComparisonOperator_Gt_GtE", "ReplaceComparisonOperator_GtE_Gt",
    "ReplaceComparisonOperator_Is_IsNot", "ReplaceComparisonOperator_IsNot_Is",
    "ReplaceUnaryOperator_USub_UAdd", "ReplaceUnaryOperator_Delete_USub", "ReplaceUnaryOperator_Delete_Not",
    "AddNot", "ReplaceTrueWithFalse", "ReplaceFalseWithTrue", "ReplaceAndWithOr", "ReplaceOrWithAnd",
    "ReplaceBreakWithContinue", "ReplaceContinueWithBreak", "ExceptionReplacer", "NumberReplacer", "ZeroIterationForLoop",
))


class MutationError(ValueError):
    """A table, an equivalents file or a command that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Target:
    """One module of the table: its file, the tests meant to catch its breaks, what to mutate."""

    path: str  # relative to the repository
    tests: tuple[str, ...]  # pytest arguments: files, node ids, -k expressions
    functions: tuple[str, ...] = ()  # the functions and classes to mutate (MODULE_LEVEL: outside them); () all
    threshold: float = 0.9

    @property
    def name(self) -> str:
        return self.path

    @property
    def test_files(self) -> tuple[str, ...]:
        """The files among the tests' pytest arguments (a node id's file, not -k and its expression)."""
        return tuple(dict.fromkeys(arg.split("::")[0] for arg in self.tests if arg.split("::")[0].endswith(".py")))


@dataclass(frozen=True)
class Mutant:
    module: str
    id: str  # stable across runs: the module, the function, the operator and the lines changed
    operator: str
    occurrence: int
    function: str
    line: int
    change: str  # "-old line\n+new line"
    code: str  # the whole mutated module


@dataclass
class Tally:
    module: str
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    timed_out: int = 0
    equivalent: int = 0
    not_run: int = 0
    threshold: float = 0.9
    survivors: list[Mutant] = field(default_factory=list)  # not recorded as equivalent
    unmatched: list[str] = field(default_factory=list)     # recorded equivalents no mutant of the module has now
    error: str = ""  # why the module could not be run at all (its tests fail unmutated)
    seconds: float = 0.0

    @property
    def tested(self) -> int:
        return self.killed + self.survived + self.timed_out + self.equivalent

    @property
    def score(self) -> float | None:
        """Killed (timeouts count: the tests did not pass) over the mutants that can be killed."""
        killable = self.tested - self.equivalent
        return (self.killed + self.timed_out) / killable if killable else None

    @property
    def ok(self) -> bool:
        return (not self.error and self.mutants > 0 and self.not_run == 0 and not self.survivors and not self.unmatched
                and self.score is not None and self.score >= self.threshold)

    @property
    def why_not_ok(self) -> str:
        if self.error:
            return self.error
        if self.not_run:
            return f'{self.not_run} mutants not run (ARGS="--budget <s>")'
        if not self.mutants:
            return "no mutants"
        if self.survivors:
            return f"survivors not recorded as equivalent: {', '.join(m.id for m in self.survivors)}"
        if self.unmatched:
            return (f"recorded as equivalent but no mutant of the module has the id now (its code changed): "
                    f"{', '.join(self.unmatched)}; remove them from {EQUIVALENTS.relative_to(REPO_ROOT)}")
        return f"score below {100 * self.threshold:.0f}%"


def load_table(path: Path = TABLE) -> list[Target]:
    try:
        document = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as problem:
        raise MutationError(f"{path}: {problem}") from None
    targets = []
    for number, entry in enumerate(document.get("module", [])):
        if not entry.get("path") or not entry.get("tests"):
            raise MutationError(f"{path}: module[{number}] needs a path and tests")
        if not (REPO_ROOT / entry["path"]).is_file():
            raise MutationError(f"{path}: module[{number}]: {entry['path']}: no such file")
        targets.append(Target(entry["path"], tuple(entry["tests"]), tuple(entry.get("functions", ())),
                              float(entry.get("threshold", document.get("threshold", 0.9)))))
    return targets


def load_equivalents(path: Path = EQUIVALENTS) -> dict[tuple[str, str], str]:
    """(module, mutant id) -> why that mutant cannot change what the module does."""
    try:
        document = tomllib.loads(path.read_text()) if path.exists() else {}
    except (OSError, tomllib.TOMLDecodeError) as problem:
        raise MutationError(f"{path}: {problem}") from None
    found = {}
    for number, entry in enumerate(document.get("equivalent", [])):
        if not all(entry.get(key) for key in ("module", "id", "reason")):
            raise MutationError(f"{path}: equivalent[{number}] needs a module, an id and a reason")
        found[(entry["module"], entry["id"])] = entry["reason"]
    return found


# ---------------------------------------------------------------- the mutants of a module

def in_annotation(node: object) -> bool:
    """A type annotation: never evaluated here (`from __future__ import annotations`), so a mutant in one is no mutant."""
    child, parent = node, getattr(node, "parent", None)
    while parent is not None:
        siblings = parent.children
        if parent.type == "tfpdef" and siblings.index(child) == 2:
            return True
        if parent.type == "annassign" and siblings.index(child) == 1:
            return True
        at = siblings.index(child)
        if parent.type == "funcdef" and at > 0 and getattr(siblings[at - 1], "value", "") == "->":
            return True
        child, parent = parent, parent.parent
    return False


def changed_lines(original: str, mutated: str) -> tuple[int, str]:
    """The first line that differs (1-based) and the change as -old/+new lines."""
    old, new = original.splitlines(), mutated.splitlines()
    start = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    change = [f"-{line.strip()}" for line in old[start:end_old]] + [f"+{line.strip()}" for line in new[start:end_new]]
    return start + 1, "\n".join(change)


def mutate_code(module: Any, path: tuple[int, ...], operator: Any, index: int) -> str | None:
    """The module's text with mutation `index` of `operator` made at the node `path` leads to (child
    indices from the module down): the change cosmic-ray's mutate_code makes there (its visitor puts
    operator.mutate's result in the node's place, or drops the node for None), made on a copy of that
    node alone and put back, without mutate_code's new parse of the whole text for every mutant, which
    was nearly all of the two minutes --stale spent counting every module's mutants."""
    node = module
    for at in path:
        node = node.children[at]
    mutated = operator.mutate(copy.deepcopy(node, {id(node.parent): node.parent}), index)  # parent: not copied
    if not path:
        return mutated.get_code() if mutated is not None else ""
    siblings = node.parent.children
    if mutated is None:
        del siblings[path[-1]]
    else:
        siblings[path[-1]] = mutated
    try:
        return module.get_code()
    finally:
        if mutated is None:
            siblings.insert(path[-1], node)
        else:
            siblings[path[-1]] = node


def _path(node: Any) -> tuple[int, ...]:
    """The child indices from the module down to `node`."""
    path = []
    while node.parent is not None:
        path.append(next(at for at, child in enumerate(node.parent.children) if child is node))
        node = node.parent
    return tuple(reversed(path))


def mutants_of(target: Target, root: Path = REPO_ROOT) -> list[Mutant]:
    source = (root / target.path).read_text()
    tree = get_ast(source)
    found: list[Mutant] = []
    seen: dict[str, int] = {}
    for operator_name in OPERATORS:
        operator = cosmic_ray.plugins.get_operator(operator_name)()
        positions = [(node, index) for node in ast_nodes(tree) for index, _ in enumerate(operator.mutation_positions(node))]
        for occurrence, (node, index) in enumerate(positions):
            function = ASTQuery(node).get_definition_name() or MODULE_LEVEL
            if (target.functions and function not in target.functions) or in_annotation(node):
                continue
            try:
                code = mutate_code(tree, _path(node), operator, index)
            except Exception:  # noqa: BLE001 - an operator that cannot rewrite this node (ExceptionReplacer on a.B)
                code = None
            if code is None or code == source:
                continue
            line, change = changed_lines(source, code)
            key = f"{target.path}\n{function}\n{operator_name}\n{change}"
            digest = hashlib.sha1(key.encode()).hexdigest()[:10]
            seen[digest] = seen.get(digest, 0) + 1  # the same change twice in one function: numbered in order
            mutant_id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"
            found.append(Mutant(target.path, mutant_id, operator_name.removeprefix("core/"), occurrence, function, line,
                                change, code))
    return sorted(found, key=lambda m: (m.line, m.operator, m.id))


# ---------------------------------------------------------------- the copy, a mutant in it, and always put back

def make_copy(into: Path = COPY) -> Path:
    """A fresh copy of the checkout to mutate: whatever an earlier (killed) run left there is gone."""
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(REPO_ROOT, into, symlinks=True, ignore=shutil.ignore_patterns(*COPY_LEAVES_OUT))
    return into


@contextmanager
def one_run_at_a_time() -> Iterator[None]:
    """The copies in build/mutation are this run's alone: a second run in the same checkout would make its
    copies anew under the first one's mutants. Raises MutationError while another run holds them."""
    COPY.parent.mkdir(parents=True, exist_ok=True)
    with (COPY.parent / ".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise MutationError(f"another make mutation is running in this checkout ({COPY.parent}); wait for it, "
                                "or run this one from another clone") from None
        yield


def _forget_bytecode(path: Path) -> None:
    for cached in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        cached.unlink(missing_ok=True)


def _raise_on_term(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def mutated(path: Path, code: str) -> Iterator[None]:
    original = path.read_bytes()
    try:
        path.write_text(code)
        _forget_bytecode(path)
        yield
    finally:
        path.write_bytes(original)
        _forget_bytecode(path)


# ---------------------------------------------------------------- running the tests

def run_tests(target: Target, work: Path, timeout: float) -> tuple[str, float, str]:
    """The target's tests in the copy `work`: ("passed" | "failed" | "timeout", seconds, the output's tail)."""
    # No xdist and no hypothesis plugin: a second or two less per mutant, and no test here needs them.
    # The import mode is the project's (pyproject's addopts, dropped with the rest): two test files of one
    # name (tests/course/test_grade.py, tests/course/design_lab/test_grade.py) collide under the default.
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
               "-p", "no:hypothesispytest", "-o", "addopts=", "--import-mode=importlib", *target.tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "ROOFLINE_SEED": os.environ.get("ROOFLINE_SEED", "1"),
           "PYTHONPATH": os.pathsep.join(str(work / root) for root in PACKAGE_ROOTS), "ROOFLINE_BUILD": str(work / "build")}
    env.pop("ROOFLINE_TEST_ENV", None)  # a skip of a mutant's test run is not CI's skip policy
    started = time.monotonic()
    # The output goes to a file, not a pipe: a process the tests forked may hold a pipe open after pytest
    # ended. The tests run in a session of their own, ended whole whether pytest passed, failed or ran
    # out of time: a worker a mutant left behind (a timed-out one's pool) would otherwise live on.
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(command, cwd=work, stdout=output, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
        try:
            outcome = "passed" if process.wait(timeout=timeout) == 0 else "failed"
        except subprocess.TimeoutExpired:
            outcome = "timeout"
        finally:
            end_session(process)
        seconds = time.monotonic() - started
        output.seek(max(0, output.seek(0, os.SEEK_END) - 2000))
        return outcome, seconds, output.read().decode(errors="replace")


def end_session(process: subprocess.Popen[bytes]) -> None:
    """Kill every process left in the session `process` leads (started with start_new_session), it too."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # nothing is left of it
    process.wait()


def unmatched_equivalents(target: Target, found: list[Mutant], equivalents: dict[tuple[str, str], str]) -> list[str]:
    """The module's recorded equivalents whose id no mutant of it has now: an entry that no longer
    says anything true (a mutant's id changes with its code, and the new one runs again)."""
    ids = {mutant.id for mutant in found}
    return sorted(mutant_id for module, mutant_id in equivalents if module == target.path and mutant_id not in ids)


_printing = threading.Lock()


def say(text: str) -> None:
    """One message, whole, however many lanes print at once."""
    with _printing:
        print(text, flush=True)


def run_module(target: Target, work: Path, equivalents: dict[tuple[str, str], str], deadline: float,
               verbose: bool = False, stop: threading.Event | None = None) -> Tally:
    """Every mutant of the module, each with its tests, until the deadline or `stop` (the ones left are not run)."""
    tally = Tally(target.name, threshold=target.threshold)
    started = time.monotonic()
    baseline, seconds, tail = run_tests(target, work, timeout=600)
    if baseline != "passed":
        raise MutationError(f"{target.path}: its tests do not pass unmutated ({baseline}):\n{tail}")
    timeout = 3 * seconds + 10
    found = mutants_of(target)
    tally.mutants = len(found)
    tally.unmatched = unmatched_equivalents(target, found, equivalents)
    say(f"{target.path}: {len(found)} mutants, tests {' '.join(target.tests)} ({seconds:.1f} s unmutated)")
    if tally.unmatched:
        say(f"  {target.path}: recorded as equivalent, and no mutant has the id now: {', '.join(tally.unmatched)}")
    for number, mutant in enumerate(found):
        if time.monotonic() > deadline or (stop is not None and stop.is_set()):
            tally.not_run = len(found) - number
            say(f"  {target.path}: {'budget spent' if time.monotonic() > deadline else 'stopped'}: "
                f"{tally.not_run} mutants not run")
            break
        if (target.path, mutant.id) in equivalents:
            tally.equivalent += 1
            continue
        with mutated(work / target.path, mutant.code):
            outcome, _, tail = run_tests(target, work, timeout)
        if outcome == "failed":
            tally.killed += 1
        elif outcome == "timeout":
            tally.timed_out += 1
        else:
            tally.survived += 1
            tally.survivors.append(mutant)
            say(f"  SURVIVED {mutant.id} {mutant.operator} in {target.path} {mutant.function} (line {mutant.line}):\n"
                + "\n".join(f"      {line}" for line in mutant.change.splitlines()))
        if verbose:
            say(f"  {outcome:<8} {mutant.id} {mutant.operator} {target.path} line {mutant.line}")
    tally.seconds = time.monotonic() - started
    return tally


# ---------------------------------------------------------------- which modules, and the table

def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def _changed_since(root: Path, commit: str) -> set[str]:
    """The files changed since `commit`, committed or not, and the untracked ones."""
    return set(_git(root, "diff", "--name-only", commit).split()) | set(
        _git(root, "ls-files", "--others", "--exclude-standard").split())


def _touched(target: Target, changed: set[str]) -> bool:
    return target.path in changed or bool(set(target.test_files) & changed)


def changed_modules(targets: list[Target], base: str = "main") -> list[Target]:
    """The modules changed against the merge base with `base`, committed or not, or whose tests changed."""
    try:
        changed = _changed_since(REPO_ROOT, _git(REPO_ROOT, "merge-base", "HEAD", base).strip())
    except (OSError, subprocess.CalledProcessError) as problem:
        raise MutationError(f"cannot tell the files changed against {base} (git: {problem}); "
                            "give ARGS=--all or ARGS=\"--modules <names>\"") from None
    return [target for target in targets if _touched(target, changed)]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row_measures_now(target: Target, line: str, root: Path) -> bool:
    """A row passed (verdict ok) over the mutants the table's entry yields now: a row left failing, or
    one measured over other functions (the entry in flows/python-mutation.toml changed), is not a
    measurement of the module as it is."""
    cells = _cells(line)
    return len(cells) == 9 and cells[8] == "ok" and cells[1] == str(len(mutants_of(target, root)))


def stale_modules(targets: list[Target], root: Path = REPO_ROOT, doc: Path = DOC) -> list[Target]:
    """The modules whose measured row is older than their code: no row in the docs' table, a change
    to the module or to one of its test files (committed or not) since the last commit that changed
    its row, a row whose verdict is not ok, or one whose count of mutants is not the count the module's
    entry yields now. A change committed together with its row counts as measured."""
    try:
        rows = _rows(doc.read_text(), doc)
        stale = []
        for target in targets:
            # Its row of results (git's -G reads an extended regular expression): a number after the
            # name, where the table of what is mutated has words.
            pattern = re.escape(f"| `{target.path}` | ") + "[0-9]"
            written = _git(root, "log", "-1", "--format=%H", "-G", pattern, "--", str(doc.relative_to(root))).strip()
            if (target.path not in rows or not written or _touched(target, _changed_since(root, written))
                    or not _row_measures_now(target, rows[target.path], root)):
                stale.append(target)
    except (OSError, subprocess.CalledProcessError) as problem:
        raise MutationError(f"cannot tell which rows of {doc.name} are older than their modules (git: {problem})") from None
    return stale


def choose(targets: list[Target], names: list[str]) -> list[Target]:
    chosen = []
    for name in names:
        matches = [t for t in targets if name in (t.path, Path(t.path).stem) or t.path.endswith(name)]
        if not matches:
            raise MutationError(f"--modules: {name!r} is not in {TABLE.relative_to(REPO_ROOT)} "
                                f"(it has: {', '.join(t.path for t in targets)})")
        chosen += [t for t in matches if t not in chosen]
    return chosen


def row(tally: Tally) -> str:
    score = f"{100 * tally.score:.0f}%" if tally.score is not None else "-"
    verdict = ("ok" if tally.ok else "not run (its tests fail unmutated)" if tally.error else "incomplete" if tally.not_run
               else "stale equivalents" if tally.unmatched and not tally.survivors and tally.score is not None
               and tally.score >= tally.threshold else "BELOW")
    return (f"| `{tally.module}` | {tally.mutants} | {tally.killed} | {tally.survived} | {tally.timed_out} | "
            f"{tally.equivalent} | {score} | {tally.seconds:.0f} s | {verdict} |")


HEADER = ("| module | mutants | killed | survived | timed out | equivalent (recorded) | score | run time | verdict |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")


def write_doc(tallies: list[Tally], path: Path = DOC) -> None:
    """The table between the markers: these modules' rows replaced, every other row kept (under a
    lock: two runs side by side each add their rows); and the recorded equivalents, as they are now."""
    with path.open() as lock:  # the document itself is the lock
        fcntl.flock(lock, fcntl.LOCK_EX)
        _write_rows(tallies, path)


def equivalents_table(path: Path = EQUIVALENTS) -> str:
    """The recorded equivalents as a table for the document: module, id, the change, why."""
    document = tomllib.loads(path.read_text()) if path.exists() else {}
    def cell(text: str) -> str:
        return text.replace("|", "\\|")  # a bar inside a Markdown table's cell

    rows = [f"| `{e['module']}` | `{e['id']}` | `{cell(e.get('change', ''))}` | {cell(e['reason'])} |"
            for e in document.get("equivalent", [])]
    return "\n".join(["| module | id | the mutant | why it cannot change what the program does |",
                      "| --- | --- | --- | --- |", *rows])


def _inside(text: str, start: str, end: str, path: Path) -> str:
    if start not in text or end not in text:
        raise MutationError(f"{path}: the markers {start} and {end} are missing")
    return text.split(start, 1)[1].split(end, 1)[0]


def _between(text: str, start: str, end: str, body: str, path: Path) -> str:
    """`text` with what lies between the markers replaced by `body`."""
    old = _inside(text, start, end, path)
    return text.replace(f"{start}{old}{end}", f"{start}\n{body}\n{end}", 1)


def _rows(text: str, path: Path) -> dict[str, str]:
    """The table of results' rows, by module."""
    return {m[1]: line for line in _inside(text, DOC_START, DOC_END, path).splitlines()
            if (m := re.match(r"\| `([^`]+)` \|", line))}


def _write_rows(tallies: list[Tally], path: Path) -> None:
    text = path.read_text()
    rows = _rows(text, path)
    rows.update({t.module: row(t) for t in tallies})
    order = [t.path for t in load_table()]
    body = "\n".join(rows[name] for name in sorted(rows, key=lambda n: order.index(n) if n in order else len(order)))
    text = _between(text, DOC_START, DOC_END, f"{HEADER}\n{body}", path)
    path.write_text(_between(text, EQUIVALENTS_START, EQUIVALENTS_END, equivalents_table(), path))


def recorded_seconds(doc: Path = DOC) -> dict[str, float]:
    """Each module's run time as its row in the docs' table records it (none for a module with no row)."""
    try:
        rows = _rows(doc.read_text(), doc)
    except (OSError, MutationError):
        return {}
    found = {}
    for module, line in rows.items():
        cells = _cells(line)
        if len(cells) > 7 and (seconds := re.fullmatch(r"(\d+(?:\.\d+)?) s", cells[7])):
            found[module] = float(seconds[1])
    return found


def longest_first(chosen: list[Target], seconds: dict[str, float]) -> list[Target]:
    """The modules in the order lanes take them: the longest recorded first (a module with no row counts
    as the longest: its time is unknown), so that no lane starts a long module when the others are done."""
    return sorted(chosen, key=lambda target: -seconds.get(target.path, math.inf))


def run_lanes(chosen: list[Target], lanes: int, equivalents: dict[tuple[str, str], str], deadline: float,
              verbose: bool = False, on_done: Callable[[Tally], None] | None = None) -> list[Tally]:
    """The modules over `lanes` lanes side by side, each lane in a copy of the checkout of its own taking
    the next module when it is free; the tallies in the table's order. A module whose tests fail
    unmutated gets a tally saying so (no row is written for it) and the others still run; a lane that
    fails otherwise stops the others after their current mutant, and its error is raised."""
    waiting = longest_first(chosen, recorded_seconds())
    taking = threading.Lock()
    stop = threading.Event()
    done: dict[str, Tally] = {}
    problems: list[BaseException] = []

    def lane(number: int) -> None:
        try:
            work = make_copy(COPY if number == 1 else COPY.with_name(f"{COPY.name}-{number}"))
            while not stop.is_set():
                with taking:
                    if not waiting:
                        return
                    target = waiting.pop(0)
                try:
                    tally = run_module(target, work, equivalents, deadline, verbose, stop)
                except MutationError as problem:  # its tests fail unmutated: said, and the other modules still run
                    say(f"  {target.path}: not run: {problem}")
                    done[target.path] = Tally(target.name, threshold=target.threshold, error=str(problem).splitlines()[0])
                    continue
                done[target.path] = tally
                if on_done is not None:  # each module's row as soon as it is done: a run stopped later keeps them
                    on_done(tally)
        except BaseException as problem:  # noqa: BLE001 - raised again in the main thread, after the other lanes stop
            problems.append(problem)
            stop.set()

    threads = [threading.Thread(target=lane, args=(number,), name=f"mutation-lane-{number}") for number in
               range(1, lanes + 1)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)  # in short waits, so that Ctrl-C and SIGTERM reach this thread
    except KeyboardInterrupt:
        stop.set()  # each lane puts its module back after its current mutant (mutated's finally), then ends
        for thread in threads:
            thread.join()
        raise
    if problems:
        raise problems[0]
    return [done[target.path] for target in chosen if target.path in done]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, default=None,
                        help=f"seconds before no new mutant starts (default {DEFAULT_BUDGET:g}; none with --all)")
    parser.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1,
                        help="lanes side by side, each in its own copy of the checkout (default: one per CPU)")
    parser.add_argument("--all", action="store_true", help="every module of the table")
    parser.add_argument("--modules", default="", help="modules by path or name, comma or space separated")
    parser.add_argument("--stale", action="store_true",
                        help=f"the modules whose row in {DOC.relative_to(REPO_ROOT)} is older than their code or tests")
    parser.add_argument("--write", action="store_true", help=f"the table into {DOC.relative_to(REPO_ROOT)}")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument("--verbose", action="store_true", help="a line per mutant")
    parser.add_argument("--table", type=Path, default=TABLE, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} lanes: give 1 or more")
    return value


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _raise_on_term)  # a stopped run still puts the original back (mutated's finally)
    try:
        targets = load_table(args.table)
        equivalents = load_equivalents()
        names = [name for name in re.split(r"[,\s]+", args.modules) if name]
        chosen = (targets if args.all else choose(targets, names) if names
                  else stale_modules(targets) if args.stale else changed_modules(targets))
    except MutationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not chosen:
        print("make mutation: nothing to mutate: every row is as new as its module and tests" if args.stale else
              "make mutation: nothing to mutate: no module of the table, and none of its tests, changed against main "
              "(ARGS=--all runs them all)")
        return 0
    if args.list:
        for target in chosen:
            for mutant in mutants_of(target):
                print(f"{target.path} {mutant.id} {mutant.operator} {mutant.function} line {mutant.line}: "
                      + " ".join(mutant.change.splitlines()))
        return 0
    budget = args.budget if args.budget is not None else math.inf if args.all else DEFAULT_BUDGET
    deadline = time.monotonic() + budget
    write = args.write or args.all or args.stale
    lanes = max(1, min(args.jobs, len(chosen)))
    try:
        with one_run_at_a_time():
            say(f"make mutation: {len(chosen)} module(s) in {lanes} lane(s), each mutating a copy of the checkout in "
                f"{COPY.parent}")
            tallies = run_lanes(chosen, lanes, equivalents, deadline, args.verbose,
                                on_done=(lambda tally: write_doc([tally])) if write else None)
    except MutationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("make mutation: stopped (the checkout was never changed; the copy is made anew each run)", file=sys.stderr)
        return 1
    print("\n" + HEADER + "\n" + "\n".join(row(t) for t in tallies))
    if write:
        print(f"table written into {DOC.relative_to(REPO_ROOT)}")
    failing = [t for t in tallies if not t.ok]
    for tally in failing:
        print(f"{'ERROR' if tally.error else 'FAIL'} {tally.module}: {tally.why_not_ok}")
    print(f"make mutation: {len(tallies) - len(failing)} of {len(tallies)} modules pass")
    return 2 if any(t.error for t in tallies) else 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
