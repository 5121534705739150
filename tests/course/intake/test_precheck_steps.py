"""The precheck's steps with the sandbox faked (make mutation's tests for intake/precheck.py): how a
tool's messages become a student's lines, when a step hit its limits, what each reply of the design
check, the compile and the port check means. No tool runs: every Outcome here is written by hand,
and the expected ports and widths are the contract table's, written out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from roofline_core.contract import ParamSet
from roofline_course import sandbox
from roofline_course.intake import precheck
from roofline_course.intake.canonical import Canonical
from roofline_course.intake.submission import Submission

TOP = "roofline_attainable"
FILE = f"{TOP}.sv"
NOT_BUILT = "not built: the grader builds only the constructs a lab design needs"
RAN_OUT = ("ran out of its limits (4096 MiB of memory, 20 MiB of output): a very large memory, a huge generate loop, "
           "or a flood of messages?")
# The student's file, line by line: 3 is blank, 4 indented, 5 long, 6 holds a byte that is not UTF-8.
LINES = [b"module roofline_attainable (", b"  input  logic [39:0] peak_i,", b"", b"      assign   cap_o = peak_i;   ",
         b"  // " + b"x" * 150, b"  wire \xff bad;", *(b"  wire w%d;" % n for n in range(7, 25)), b"endmodule"]
QUOTE_4 = "\n      | assign   cap_o = peak_i;"
QUOTE_2 = "\n      | input  logic [39:0] peak_i,"
QUOTE_21 = "\n      | wire w21;"
DESIGN = Canonical("module roofline_attainable ( ;\nassign cap_o = peak_i ;\nwire w21 ;\n",
                   [(FILE, 1), (FILE, 4), (FILE, 21)])
VVP = '#! /usr/bin/vvp\n:vpi_module "/usr/lib/x86_64-linux-gnu/ivl/system.vpi";\n'
DEFAULT, OTHER = ParamSet(), ParamSet(16, 12)  # W = 40 and W = 28


def outcome(returncode: int | None = 0, stdout: str = "", stderr: str = "", *, timed_out: bool = False,
            truncated: tuple[str, ...] = ()) -> sandbox.Outcome:
    return sandbox.Outcome(returncode, stdout, stderr, b"", 0.1, timed_out=timed_out, output_truncated=list(truncated))


class FakeRun:
    """Stands in for precheck.Runner: answers each call with the next outcome, and records it."""

    def __init__(self, root: Path, *outcomes: sandbox.Outcome, limits: sandbox.Limits | None = None) -> None:
        self.root, self.outcomes = root, list(outcomes)
        self.limits = limits or sandbox.Limits()
        self.calls: list[tuple[list[str], dict]] = []

    def __call__(self, argv: list[str], **options: object) -> sandbox.Outcome:
        self.calls.append((argv, options))
        return self.outcomes.pop(0)

    def path(self, staged: Path) -> str:
        return f"sandbox:{staged.relative_to(self.root)}"


@pytest.fixture
def student(tmp_path: Path) -> Submission:
    """A staged submission: the design file, an include folder with a sub-folder, and a link that leaves it."""
    root = tmp_path / "staged"
    (root / "inc" / "deep").mkdir(parents=True)
    (root / FILE).write_bytes(b"\n".join(LINES) + b"\n")
    (root / "inc" / "defs.svh").write_text("`define WIDTH 8\n")
    (tmp_path / "outside.sv").write_text("module outside; endmodule\n")
    (root / "link.sv").symlink_to(tmp_path / "outside.sv")
    return Submission(root, [root / FILE])


def built_with(student: Submission, tmp_path: Path, *outcomes: sandbox.Outcome,
               limits: sandbox.Limits | None = None) -> precheck.Built:
    folder = tmp_path / "design"
    folder.mkdir()
    (folder / "canonical.sv").write_text(DESIGN.text)
    design = Submission(folder, [folder / "canonical.sv"])
    return precheck.Built(design, DESIGN, student, FakeRun(folder, *outcomes, limits=limits))  # type: ignore[arg-type]


# ---------------------------------------------------------------- names, paths and the contract's ports

@pytest.mark.parametrize(("reported", "shown", "ours"), [
    (f"/submission/{FILE}", FILE, FILE),
    (FILE, FILE, FILE),  # relative to the submission
    ("inc/defs.svh", "inc/defs.svh", "inc/defs.svh"),
    ("/submission/inc/defs.svh", "inc/defs.svh", "inc/defs.svh"),
    ("/etc/passwd", "passwd (not one of your files)", None),
    (f"/elsewhere/{FILE}", f"{FILE} (not one of your files)", None),  # absolute, outside the sandbox's /submission
    ("/submission/missing.sv", "missing.sv (not one of your files)", None),
    ("missing.sv", "missing.sv (not one of your files)", None),
    ("/submission/inc", "inc (not one of your files)", None),  # a folder, not a file
    ("/submission/link.sv", "link.sv (not one of your files)", None),  # a staged link that leaves the submission
    ("/submission/../outside.sv", "outside.sv (not one of your files)", None),
])
def test_a_reported_file_is_the_students_only_when_it_is_a_staged_file_inside_the_submission(
        student: Submission, reported: str, shown: str, ours: str | None) -> None:
    assert precheck.shown_name(student, reported) == (shown, None if ours is None else student.root / ours)


def test_a_staged_file_is_named_as_the_sandbox_sees_it_and_every_folder_is_an_include_folder(student: Submission) -> None:
    assert precheck.inside(student, student.root / "inc" / "defs.svh") == "/submission/inc/defs.svh"
    assert precheck.inside(student, student.root / FILE) == f"/submission/{FILE}"
    assert precheck.include_flags(student) == ["-I/submission", "-I/submission/inc", "-I/submission/inc/deep"]


def test_the_expected_ports_are_the_contract_tables_at_the_parameters() -> None:
    assert precheck.expected_ports(TOP, ParamSet(8, 8)) == {
        "peak_i": ("input", 16), "bw_i": ("input", 16), "ai_i": ("input", 16), "cap_o": ("output", 16),
        "mem_bound_o": ("output", 1)}
    assert precheck.expected_ports("roofline_hierarchy", ParamSet(16, 12, 4)) == {
        "peak_i": ("input", 28), "bw_i": ("input", 112), "ai_i": ("input", 112), "cap_o": ("output", 28),
        "level_cap_o": ("output", 112), "mem_bound_o": ("output", 1), "binding_o": ("output", 3)}


def test_a_parameter_set_is_described_and_passed_to_icarus_with_the_tops_own_parameters_only() -> None:
    assert precheck._describe(TOP, ParamSet(8, 8)) == "INT_BITS=8, FRAC_BITS=8"
    assert precheck._describe("roofline_hierarchy_pipe", ParamSet(16, 12, 4, 48, mul_stages=2)) == \
        "INT_BITS=16, FRAC_BITS=12, LEVELS=4, MUL_STAGES=2"
    assert precheck._icarus_parameters("roofline_counts", ParamSet(8, 8, 1, 16)) == (
        "-Proofline_counts.INT_BITS=8 -Proofline_counts.FRAC_BITS=8 -Proofline_counts.LEVELS=1 "
        "-Proofline_counts.COUNT_BITS=16")
    assert precheck._icarus_parameters(TOP, DEFAULT) == "-Proofline_attainable.INT_BITS=24 -Proofline_attainable.FRAC_BITS=16"


# ---------------------------------------------------------------- a quoted line of the student's

@pytest.mark.parametrize(("number", "quoted"), [
    (1, "\n      | module roofline_attainable ("),
    (4, QUOTE_4),  # stripped
    (5, "\n      | // " + "x" * 97),  # cut at 100 characters
    (6, "\n      | wire \ufffd bad;"),  # a byte that is not UTF-8 is replaced, not an error
    (25, "\n      | endmodule"),  # the last line
    (26, ""),  # past the end
    (3, ""),  # a blank line is not quoted
])
def test_a_source_line_is_quoted_stripped_and_cut(student: Submission, number: int, quoted: str) -> None:
    assert precheck._source_line(student.root / FILE, number) == quoted


def test_a_file_that_cannot_be_read_quotes_nothing(student: Submission) -> None:
    assert precheck._source_line(student.root / "missing.sv", 1) == ""
    assert precheck._source_line(student.root / "inc", 1) == ""  # a folder


# ---------------------------------------------------------------- a compiler's errors as a student reads them

def test_an_error_in_the_students_file_names_its_line_and_quotes_it(student: Submission) -> None:
    assert precheck.summarize_compile_errors(f"/submission/{FILE}:4: syntax error\n", student) == [
        f"{FILE}:4: syntax error{QUOTE_4}"]
    # a relative name, with the whitespace around the line
    assert precheck.summarize_compile_errors(f"   {FILE}:2: error: Unknown module type: foo   \n", student) == [
        f"{FILE}:2: error: Unknown module type: foo{QUOTE_2}"]
    assert precheck.summarize_compile_errors(f"{FILE}:21: sorry: constant selects are not supported", student) == [
        f"{FILE}:21: sorry: constant selects are not supported{QUOTE_21}"]


def test_a_line_is_quoted_once_however_many_errors_name_it(student: Submission) -> None:
    output = (f"/submission/{FILE}:21: error: first\n/submission/{FILE}:2: syntax error\n"
              f"/submission/{FILE}:21: sorry: second\n/submission/{FILE}:2: error: third\n")
    assert precheck.summarize_compile_errors(output, student) == [
        f"{FILE}:21: error: first{QUOTE_21}", f"{FILE}:2: syntax error{QUOTE_2}",  # line 2 is quoted though 21 was
        f"{FILE}:21: sorry: second", f"{FILE}:2: error: third"]


def test_an_error_in_a_file_that_is_not_the_students_is_not_quoted(student: Submission) -> None:
    output = ("/usr/share/ivl/x.sv:3: error: boom\n/submission/link.sv:1: syntax error\n"
              "/etc/passwd:1: syntax error\n/etc/passwd:1: syntax error\n")
    assert precheck.summarize_compile_errors(output, student) == [
        "x.sv (not one of your files):3: error: boom", "link.sv (not one of your files):1: syntax error",
        "passwd (not one of your files):1: syntax error"]  # the same line twice is shown once


@pytest.mark.parametrize(("number", "quoted"), [(26, ""), (3, "")])
def test_an_error_at_a_line_past_the_end_or_blank_quotes_nothing(student: Submission, number: int, quoted: str) -> None:
    assert precheck.summarize_compile_errors(f"/submission/{FILE}:{number}: syntax error", student) == [
        f"{FILE}:{number}: syntax error{quoted}"]


@pytest.mark.parametrize(("count", "tail"), [(4, []), (5, []), (6, ["... and 1 more"]), (8, ["... and 3 more"])])
def test_at_most_five_errors_are_shown_and_the_rest_counted(student: Submission, count: int, tail: list[str]) -> None:
    output = "\n".join(f"/elsewhere/f.sv:{n}: error: bad" for n in range(1, count + 1))
    shown = [f"f.sv (not one of your files):{n}: error: bad" for n in range(1, min(count, 5) + 1)]
    assert precheck.summarize_compile_errors(output, student) == shown + tail


def test_without_an_error_line_the_raw_lines_are_shown_without_the_sandboxs_folder(student: Submission) -> None:
    output = f"\n  warning: /submission/{FILE} is odd  \n\n/submission/inc/defs.svh: oops\n{FILE}:3: warning: implicit\n"
    assert precheck.summarize_compile_errors(output, student) == [
        f"warning: {FILE} is odd", "inc/defs.svh: oops", f"{FILE}:3: warning: implicit"]
    many = "\n".join(f"line {n}" for n in range(1, 8))
    assert precheck.summarize_compile_errors(many, student) == ["line 1", "line 2", "line 3", "line 4", "line 5",
                                                                "... and 2 more"]
    # repeated lines count once, before the cut: five different lines are shown, not three
    repeated = "a\na\na\nb\nc\nd\ne\nf\n"
    assert precheck.summarize_compile_errors(repeated, student) == ["a", "b", "c", "d", "e", "... and 1 more"]


def test_the_same_error_twice_is_shown_once_quoted(student: Submission) -> None:
    output = f"/submission/{FILE}:2: syntax error\n/submission/{FILE}:2: syntax error\n/submission/{FILE}:2: error: other\n"
    assert precheck.summarize_compile_errors(output, student) == [f"{FILE}:2: syntax error{QUOTE_2}",
                                                                  f"{FILE}:2: error: other"]


def test_an_error_at_line_0_quotes_nothing(student: Submission) -> None:
    assert precheck.summarize_compile_errors(f"/submission/{FILE}:0: error: at the start", student) == [
        f"{FILE}:0: error: at the start"]


@pytest.mark.parametrize("output", ["", "  \n\n \t\n"])
def test_an_empty_output_is_shown_as_no_message(student: Submission, output: str) -> None:
    assert precheck.summarize_compile_errors(output, student) == ["(no message)"]


def test_a_tools_errors_on_the_canonical_design_name_the_students_lines(student: Submission, tmp_path: Path) -> None:
    built = built_with(student, tmp_path)
    output = "/run/build/canonical.sv:2: syntax error\n/submission/canonical.sv:3:7: error: bad\ncanonical.sv:99: error: far\n"
    assert built.errors(output) == [f"{FILE}:4: syntax error{QUOTE_4}", f"{FILE}:21: error: bad{QUOTE_21}",
                                    "canonical.sv (not one of your files):99: error: far"]


# ---------------------------------------------------------------- a step at its limits

@pytest.mark.parametrize(("made", "problem"), [
    (outcome(None, timed_out=True), "Yosys did not finish within 13 s (a runaway generate loop or a huge memory?)"),
    (outcome(0, stderr="Out of memory", timed_out=True), "Yosys did not finish within 13 s (a runaway generate loop or "
                                                         "a huge memory?)"),
    (outcome(129), "Yosys ran out of its limits (512 MiB of memory, 3 MiB of output): a very large memory, a huge "
                   "generate loop, or a flood of messages?"),
    (outcome(-9), "Yosys ran out of its limits (512 MiB of memory, 3 MiB of output): a very large memory, a huge "
                  "generate loop, or a flood of messages?"),
])
def test_a_step_that_timed_out_or_was_killed_names_its_limit(made: sandbox.Outcome, problem: str) -> None:
    assert precheck._limit_problem(made, "Yosys", sandbox.Limits(memory_mib=512, output_mib=3, step_s=12.6)) == problem


@pytest.mark.parametrize("made", [
    outcome(129), outcome(137), outcome(-9), outcome(-1), outcome(0, truncated=("stdout",)),
    outcome(1, truncated=("stderr",)), outcome(1, stderr="x: Cannot allocate memory\n"),
    outcome(1, stderr="x: CANNOT ALLOCATE MEMORY\n"),
    outcome(1, stderr="fatal: Out Of Memory"), outcome(0, stderr="OUT OF MEMORY"), outcome(1, stderr="ERROR: out of memory"),
])
def test_a_signal_a_flood_of_output_or_no_memory_is_running_out_of_the_limits(made: sandbox.Outcome) -> None:
    assert precheck._limit_problem(made, "Icarus", sandbox.Limits()) == f"Icarus {RAN_OUT}"


@pytest.mark.parametrize("made", [outcome(0), outcome(1, stderr="syntax error"), outcome(128), outcome(127), outcome(None),
                                  outcome(2, stdout="Out of memory")])
def test_an_exit_status_up_to_128_is_no_limit(made: sandbox.Outcome) -> None:
    assert precheck._limit_problem(made, "Icarus", sandbox.Limits()) is None


# ---------------------------------------------------------------- the design check's replies

def test_the_design_check_is_sent_the_staged_files_folders_and_tools(student: Submission) -> None:
    reply = json.dumps({"problems": [], "notes": [], "canonical": DESIGN.to_json()})
    for tools, verilator in ((["icarus", "yosys"], False), (["verilator", "yosys"], True)):
        run = FakeRun(student.root, outcome(0, reply))
        precheck.design_check(student, run, tools)  # type: ignore[arg-type]
        [(argv, options)] = run.calls
        assert argv == [sys.executable, "-m", "roofline_course.intake.design_check"]
        assert options["use_verilator"] is verilator
        assert json.loads(options["stdin"]) == {  # type: ignore[arg-type]
            "files": [f"sandbox:{FILE}"], "includes": ["sandbox:.", "sandbox:inc", "sandbox:inc/deep"], "tools": tools,
            "root": "sandbox:."}


def test_a_design_check_at_its_limits_is_a_resource_problem(student: Submission) -> None:
    run = FakeRun(student.root, outcome(None, timed_out=True))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "resources", ["the design check did not finish within 60 s (a runaway generate loop or a huge memory?)"], [], None)
    run = FakeRun(student.root, outcome(0, "{}", truncated=("stderr",)))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "resources", [f"the design check {RAN_OUT}"], [], None)


def test_a_design_that_does_not_parse_is_a_compile_error_on_the_students_lines(student: Submission) -> None:
    run = FakeRun(student.root, outcome(0, json.dumps({"compile": f"/submission/{FILE}:4: syntax error\n"})))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "compile", [f"{FILE}:4: syntax error{QUOTE_4}"], [], None)


def test_a_construct_outside_the_allow_list_is_forbidden_with_its_notes_and_no_design(student: Submission) -> None:
    reply = {"problems": [f"{FILE}:2: $system: a design may not call it", 7], "notes": ["a note", 8]}  # no canonical
    run = FakeRun(student.root, outcome(0, json.dumps(reply)))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "forbidden", [f"{FILE}:2: $system: a design may not call it", "7"], ["a note", "8"], None)


def test_a_design_within_the_allow_list_comes_back_as_its_canonical_design(student: Submission) -> None:
    reply = {"problems": [], "notes": ["timescale kept"], "canonical": DESIGN.to_json()}
    run = FakeRun(student.root, outcome(0, json.dumps(reply)))
    assert precheck.design_check(student, run, ["icarus"]) == ("ok", [], ["timescale kept"], DESIGN)  # type: ignore[arg-type]


@pytest.mark.parametrize("stdout", [
    "Traceback (most recent call last):",  # not JSON: ValueError
    json.dumps({"problems": []}),  # no notes: KeyError
    json.dumps({"problems": [], "notes": []}),  # no canonical design
    "[]", "null",  # not an object: TypeError
    json.dumps({"problems": [], "notes": [], "canonical": {"text": "", "files": [], "lines": [[0, 1]]}}),  # IndexError
    json.dumps({"problems": [], "notes": [], "canonical": {"text": "", "files": ["a"], "lines": [["x", 1]]}}),  # ValueError
])
def test_a_reply_that_cannot_be_read_names_the_last_line_of_stderr(student: Submission, stdout: str) -> None:
    stderr = "first\n  second\n/submission/roofline_attainable.sv:3: pyslang died  \n"
    run = FakeRun(student.root, outcome(1, stdout, stderr))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "forbidden", ["the design could not be read: roofline_attainable.sv:3: pyslang died"], [], None)


@pytest.mark.parametrize(("stderr", "shown"), [
    ("", "no output"), ("  \n \n", "no output"), ("/submission/" + "a" * 400, "a" * 300), ("b" * 299, "b" * 299),
])
def test_an_unreadable_reply_without_stderr_or_with_a_long_line_is_cut(student: Submission, stderr: str, shown: str) -> None:
    run = FakeRun(student.root, outcome(1, "", stderr))
    assert precheck.design_check(student, run, ["icarus"]) == (  # type: ignore[arg-type]
        "forbidden", [f"the design could not be read: {shown}"], [], None)


# ---------------------------------------------------------------- the compile

def test_icarus_compiles_the_canonical_design_once_per_parameter_set(student: Submission, tmp_path: Path) -> None:
    built = built_with(student, tmp_path, outcome(0, VVP))
    assert precheck.compile_check(TOP, built, [DEFAULT, OTHER]) == ("ok", [])
    assert built.run.calls == [(["sh", "-c",  # type: ignore[attr-defined]
        'iverilog -g2012 -o /run/compiled.vvp -s roofline_attainable -Proofline_attainable.INT_BITS=24 '
        '-Proofline_attainable.FRAC_BITS=16 "/submission/canonical.sv" >&2 && cat /run/compiled.vvp || exit 1; '
        'iverilog -g2012 -o /run/compiled.vvp -s roofline_attainable -Proofline_attainable.INT_BITS=16 '
        '-Proofline_attainable.FRAC_BITS=12 "/submission/canonical.sv" >&2 && cat /run/compiled.vvp || exit 1'], {})]


@pytest.mark.parametrize(("made", "problem"), [
    (outcome(None, timed_out=True), "Icarus did not finish within 9 s (a runaway generate loop or a huge memory?)"),
    (outcome(134, stderr="/submission/canonical.sv:2: syntax error"),
     "Icarus ran out of its limits (100 MiB of memory, 1 MiB of output): a very large memory, a huge generate loop, or a "
     "flood of messages?"),
])
def test_a_compile_at_its_limits_is_a_resource_problem(student: Submission, tmp_path: Path, made: sandbox.Outcome,
                                                       problem: str) -> None:
    built = built_with(student, tmp_path, made, limits=sandbox.Limits(memory_mib=100, output_mib=1, step_s=9.0))
    assert precheck.compile_check(TOP, built, [DEFAULT]) == ("resources", [problem])


@pytest.mark.parametrize(("stdout", "stderr", "errors"), [
    ("/submission/canonical.sv:3: error: from stdout\n", "/submission/canonical.sv:2: syntax error\n",
     [f"{FILE}:4: syntax error{QUOTE_4}"]),  # stderr holds the errors: stdout is not read
    ("/submission/canonical.sv:3: error: from stdout\n", " \n", [f"{FILE}:21: error: from stdout{QUOTE_21}"]),
    ("", "", ["(no message)"]),
])
def test_a_compile_error_names_the_students_lines_from_stderr_else_stdout(student: Submission, tmp_path: Path, stdout: str,
                                                                          stderr: str, errors: list[str]) -> None:
    built = built_with(student, tmp_path, outcome(1, stdout, stderr))
    assert precheck.compile_check(TOP, built, [DEFAULT]) == ("compile", errors)


def test_a_forbidden_call_in_icarus_program_refuses_the_design(student: Submission, tmp_path: Path) -> None:
    built = built_with(student, tmp_path, outcome(0, VVP + '    %vpi_call/w 3 2 "$system", v0x1_0 {0 0 0};\n'))
    assert precheck.compile_check(TOP, built, [DEFAULT]) == (
        "forbidden", [f"{FILE}:4: Icarus compiled a call to $system: a design may not call it", NOT_BUILT])


def test_at_most_five_forbidden_calls_are_named(student: Submission, tmp_path: Path) -> None:
    names = ["$system", "$fopen", "$fwrite", "$readmemh", "$dumpfile", "$dumpvars"]
    vvp = VVP + "".join(f'    %vpi_call/w 3 3 "{name}", v0x1_0 {{0 0 0}};\n' for name in names)
    built = built_with(student, tmp_path, outcome(0, vvp))
    assert precheck.compile_check(TOP, built, [DEFAULT]) == ("forbidden", [
        f"{FILE}:21: Icarus compiled a call to $system: a design may not call it",
        f"{FILE}:21: Icarus compiled a call to $fopen: a design may not call it",
        f"{FILE}:21: Icarus compiled a call to $fwrite: a design may not call it",
        f"{FILE}:21: Icarus compiled a call to $readmemh: a design may not call it",
        f"{FILE}:21: Icarus compiled a call to $dumpfile: a design may not call it", NOT_BUILT])


# ---------------------------------------------------------------- the ports

def module(ports: dict[str, tuple[str, int]], parameters: tuple[str, ...] = ("INT_BITS", "FRAC_BITS")) -> dict:
    """A module of Yosys's write_json, as much of it as the port check reads."""
    return {"parameter_default_values": dict.fromkeys(parameters, "00000000000000000000000000011000"),
            "ports": {name: {"direction": direction, "bits": list(range(2, width + 2))}
                      for name, (direction, width) in ports.items()}}


PORTS_40 = {"peak_i": ("input", 40), "bw_i": ("input", 40), "ai_i": ("input", 40), "cap_o": ("output", 40),
            "mem_bound_o": ("output", 1)}
PORTS_28 = {"peak_i": ("input", 28), "bw_i": ("input", 28), "ai_i": ("input", 28), "cap_o": ("output", 28),
            "mem_bound_o": ("output", 1)}


class FakeYosys:
    """Stands in for precheck._yosys_module: answers each read with the next (module, error), and records it."""

    def __init__(self, *answers: tuple[dict | None, str]) -> None:
        self.answers, self.reads = list(answers), []

    def __call__(self, top: str, built: precheck.Built, chparams: dict[str, int]) -> tuple[dict | None, str]:
        self.reads.append((top, chparams))
        return self.answers.pop(0)


def port_check(monkeypatch: pytest.MonkeyPatch, *answers: tuple[dict | None, str], sets: tuple[ParamSet, ...] = (DEFAULT, OTHER),
               yosys: bool = True) -> tuple[tuple[str, list[str], list[str]], list]:
    fake = FakeYosys(*answers)
    monkeypatch.setattr(precheck, "yosys_available", lambda: yosys)
    monkeypatch.setattr(precheck, "_yosys_module", fake)
    return precheck.port_check(TOP, object(), list(sets)), fake.reads  # type: ignore[arg-type]


def test_without_yosys_the_port_check_is_skipped_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    assert port_check(monkeypatch, yosys=False) == (("ok", [], [
        "port check skipped: no Yosys (pip install -e '.[eda]', or apt-get install yosys); the tests still check the widths"]),
        [])


def test_good_ports_at_every_set_pass_and_each_set_is_read_with_its_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    assert port_check(monkeypatch, (module(PORTS_40), ""), (module(PORTS_40), ""), (module(PORTS_28), "")) == (
        ("ok", [], []), [(TOP, {}), (TOP, {"INT_BITS": 24, "FRAC_BITS": 16}), (TOP, {"INT_BITS": 16, "FRAC_BITS": 12})])


@pytest.mark.parametrize(("error", "result"), [
    ("LIMIT Yosys did not finish within 60 s (a runaway generate loop or a huge memory?)",
     ("resources", ["Yosys did not finish within 60 s (a runaway generate loop or a huge memory?)"], [])),
    ("FORBIDDEN Yosys built a $anyconst cell in roofline_attainable: not part of a lab circuit",
     ("forbidden", ["Yosys built a $anyconst cell in roofline_attainable: not part of a lab circuit", NOT_BUILT], [])),
])
def test_a_limit_or_a_forbidden_cell_at_the_first_read_stops_the_check(monkeypatch: pytest.MonkeyPatch, error: str,
                                                                       result: tuple) -> None:
    assert port_check(monkeypatch, (None, error)) == (result, [(TOP, {})])


@pytest.mark.parametrize(("error", "result"), [
    ("LIMIT Yosys ran out", ("resources", ["Yosys ran out"], [])),
    ("FORBIDDEN Yosys left a process", ("forbidden", ["Yosys left a process", NOT_BUILT], [])),
])
def test_a_limit_or_a_forbidden_cell_at_a_parameter_set_stops_the_check(monkeypatch: pytest.MonkeyPatch, error: str,
                                                                        result: tuple) -> None:
    (checked, reads) = port_check(monkeypatch, (module(PORTS_40), ""), (module(PORTS_40), ""), (None, error))
    assert checked == result and len(reads) == 3


def test_a_design_yosys_cannot_read_is_a_warning_naming_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    assert port_check(monkeypatch, (None, f"{FILE}:4: ERROR: syntax error, unexpected TOK_ID")) == (("ok", [], [
        f"Yosys could not read your design, so the ports were not checked before the tests: {FILE}:4: ERROR: syntax error, "
        "unexpected TOK_ID. The contract asks for RTL that Yosys accepts."]), [(TOP, {})])


def test_a_missing_parameter_is_named_with_every_parameter_the_top_must_declare(monkeypatch: pytest.MonkeyPatch) -> None:
    assert port_check(monkeypatch, (module(PORTS_40, ("INT_BITS", "WIDTH")), ""), sets=(DEFAULT,)) == (("ports", [
        "parameter FRAC_BITS is missing: roofline_attainable must declare INT_BITS, FRAC_BITS (see the handout)"], []),
        [(TOP, {})])
    bare = module(PORTS_40)
    del bare["parameter_default_values"]
    assert port_check(monkeypatch, (bare, ""), sets=(DEFAULT,))[0] == ("ports", [
        "parameter INT_BITS is missing: roofline_attainable must declare INT_BITS, FRAC_BITS (see the handout)",
        "parameter FRAC_BITS is missing: roofline_attainable must declare INT_BITS, FRAC_BITS (see the handout)"], [])


def test_a_set_that_does_not_elaborate_names_the_set_and_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    (checked, reads) = port_check(monkeypatch, (module(PORTS_40), ""), (module(PORTS_40), ""),
                                  (None, "ERROR: parameter check failed"))
    assert checked == ("ports", ["the design does not elaborate at INT_BITS=16, FRAC_BITS=12: ERROR: parameter check failed"],
                       [])
    assert len(reads) == 3


def test_a_port_missing_at_the_second_set_only_is_found_there(monkeypatch: pytest.MonkeyPatch) -> None:
    short = {name: port for name, port in PORTS_28.items() if name != "mem_bound_o"}
    (checked, reads) = port_check(monkeypatch, (module(PORTS_40), ""), (module(PORTS_40), ""), (module(short), ""))
    assert checked == ("ports", ["port mem_bound_o is missing: declare it as an output of 1 bit at INT_BITS=16, FRAC_BITS=12 "
                                 "(see the handout's port list)"], [])
    assert len(reads) == 3


def test_a_port_missing_at_a_later_set_is_found_after_wrong_widths_at_an_earlier_one(monkeypatch: pytest.MonkeyPatch) -> None:
    short = {name: port for name, port in PORTS_28.items() if name != "mem_bound_o"}
    (checked, reads) = port_check(monkeypatch, (module(PORTS_28), ""), (module(PORTS_28), ""), (module(short), ""))
    assert checked == ("ports", ["port mem_bound_o is missing: declare it as an output of 1 bit at INT_BITS=16, FRAC_BITS=12 "
                                 "(see the handout's port list)"], [])
    assert len(reads) == 3


def test_wrong_widths_are_warnings_and_the_tests_run_anyway(monkeypatch: pytest.MonkeyPatch) -> None:
    (checked, _) = port_check(monkeypatch, (module(PORTS_40), ""), (module(PORTS_40), ""), (module(PORTS_40), ""))
    fix = "derive its width from the parameters (the handout gives each port's width)"
    assert checked == ("ok", [], [
        f"port peak_i is 40 bits wide at INT_BITS=16, FRAC_BITS=12; the contract says 28: {fix}",
        f"port bw_i is 40 bits wide at INT_BITS=16, FRAC_BITS=12; the contract says 28: {fix}",
        f"port ai_i is 40 bits wide at INT_BITS=16, FRAC_BITS=12; the contract says 28: {fix}",
        f"port cap_o is 40 bits wide at INT_BITS=16, FRAC_BITS=12; the contract says 28: {fix}",
        "the tests run anyway: the ports group, and the tests a wrong width breaks, lose their marks"])


def ports(**overrides: tuple[str, int] | None) -> dict:
    """The ports at ParamSet(8, 8) (W = 16) as Yosys writes them, some changed (None: left out)."""
    wanted = {"peak_i": ("input", 16), "bw_i": ("input", 16), "ai_i": ("input", 16), "cap_o": ("output", 16),
              "mem_bound_o": ("output", 1), **overrides}
    return {name: {"direction": port[0], "bits": [7] * port[1]} for name, port in wanted.items() if port is not None}


def test_the_contracts_ports_pass_the_comparison() -> None:
    assert precheck._compare_ports(TOP, ParamSet(8, 8), ports()) == ([], [])


def test_a_missing_port_is_named_with_its_direction_and_width_in_bits() -> None:
    assert precheck._compare_ports(TOP, ParamSet(8, 8), ports(cap_o=None, mem_bound_o=None)) == ([
        "port cap_o is missing: declare it as an output of 16 bits at INT_BITS=8, FRAC_BITS=8 (see the handout's port list)",
        "port mem_bound_o is missing: declare it as an output of 1 bit at INT_BITS=8, FRAC_BITS=8 (see the handout's port "
        "list)"], [])


def test_missing_wrong_direction_and_extra_ports_stop_grading_a_wrong_width_does_not() -> None:
    problems, widths = precheck._compare_ports(TOP, ParamSet(8, 8), ports(
        peak_i=None, bw_i=("output", 16), ai_i=("input", 15), cap_o=("input", 3), debug_o=("output", 2)))
    assert problems == [
        "port peak_i is missing: declare it as an input of 16 bits at INT_BITS=8, FRAC_BITS=8 (see the handout's port list)",
        "port bw_i is an output; the contract makes it an input: change its direction",
        "port cap_o is an input; the contract makes it an output: change its direction",  # its width is not reported too
        "port debug_o is not in the contract: remove it or make it an internal signal"]
    assert widths == ["port ai_i is 15 bits wide at INT_BITS=8, FRAC_BITS=8; the contract says 16: derive its width from "
                      "the parameters (the handout gives each port's width)"]


def test_a_one_bit_port_made_wider_is_a_width_warning() -> None:
    assert precheck._compare_ports(TOP, ParamSet(8, 8), ports(mem_bound_o=("output", 2))) == ([], [
        "port mem_bound_o is 2 bits wide at INT_BITS=8, FRAC_BITS=8; the contract says 1: derive its width from the "
        "parameters (the handout gives each port's width)"])
