"""Lab 6 sees behaviour only: the port channel and the design bank, without a sandbox (the everyday tier).

The testbench's only view of a design is the channel's answers. These tests serve every design a
lab-6 grading holds on the same lines and check that whatever is not a vector of known inputs
(X, Z, or a line the shell never writes) gets the same answer, the same transcript and the same
work whichever design is served, and never exposes a bug. The gradings of testbenches that attack
this are in test_lab6.py (the full tier).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from port_channel_shell import FMT, example_bank, model, serve, vector

from roofline_core.contract import ParamSet
from roofline_course.labs.definitions import load_lab
from roofline_course.labs.designs import EXAMPLES, Design, resolve
from roofline_course.testbench_lab import port_channel
from roofline_course.testbench_lab.design_bank import DesignBank, build_bank
from roofline_course.testbench_lab.port_channel import Malformed, read_query, x_answer
from roofline_course.testbench_lab.port_shell import SHELL
from roofline_golden import QFormat, fixed

DEFAULT = ParamSet()


# ---------------------------------------------------------------- reading a query


def test_the_shell_sends_each_input_as_percent_h_prints_it_and_the_time_in_picoseconds() -> None:
    plumbing = SHELL.split("module roofline_port_channel", 1)[1]
    assert '"%h %h %h %0d", roofline_attainable.peak_i, roofline_attainable.bw_i, roofline_attainable.ai_i, $time' in plumbing
    assert "`timescale 1ps/1ps\nmodule roofline_port_channel" in SHELL


def test_a_vector_of_known_inputs_is_exactly_the_ports_width_in_lower_case_hex() -> None:
    query = read_query(b"0000640000 0000140000 0000008000 5000", FMT)
    assert query.values == (100 << 16, 20 << 16, 1 << 15) and query.time_ps == 5000
    assert query.vector == ("0000640000", "0000140000", "0000008000")
    narrow = QFormat(16, 12)  # 28 bits: 7 digits
    assert read_query(b"fffffff 0000000 0000001 0", narrow).values == ((1 << 28) - 1, 0, 1)


# Each of these has an X or Z in some nibble, as Icarus prints one (x, z: the whole nibble; X, Z: part of it).
X_OR_Z = ["xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx", "zzzzzzzzzz zzzzzzzzzz zzzzzzzzzz", "0000640000 zzzzzzzzzz zzzzzzzzzz",
          "0x00640000 0000140000 0000008000",  # int(_, 16) took this for 0x00640000: a known vector exposing X bugs
          "0X00640000 0000140000 0000008000", "000064000x 0000140000 0000008000", "0000640000 000014000Z 0000008000",
          "0000640000 0000140000 z000008000", "0000640000 0000140000 00000080X0"]


@pytest.mark.parametrize("fields", X_OR_Z)
def test_a_vector_with_an_x_or_z_in_any_nibble_has_no_values(fields: str) -> None:
    query = read_query(f"{fields} 7".encode(), FMT)
    assert query.values is None and query.vector == tuple(fields.split())


# Lines the shell never writes; several of them int(_, 16) reads as a number.
MALFORMED = {
    "a 0x prefix": "0x640000 0000140000 0000008000 0",
    "a sign": "+000640000 0000140000 0000008000 0",
    "a minus": "-000640000 0000140000 0000008000 0",
    "an underscore": "00006_0000 0000140000 0000008000 0",
    "a space inside": "0000 40000 0000140000 0000008000 0",
    "upper-case digits": "000064000A 0000140000 0000008000 0",
    "too few digits": "000640000 0000140000 0000008000 0",
    "too many digits": "00000640000 0000140000 0000008000 0",
    "two spaces": "0000640000  0000140000 0000008000 0",
    "a tab": "0000640000\t0000140000 0000008000 0",
    "a carriage return": "0000640000 0000140000 0000008000 0\r",
    "a leading space": " 0000640000 0000140000 0000008000 0",
    "no time": "0000640000 0000140000 0000008000",
    "a negative time": "0000640000 0000140000 0000008000 -1",
    "a time in hex": "0000640000 0000140000 0000008000 0x10",
    "four inputs": "0000640000 0000140000 0000008000 0000008000 0",
    "unicode digits": "\u0660\u0660\u0660\u0660640000 0000140000 0000008000 0",
    "not a digit": "000064000g 0000140000 0000008000 0",
    "empty": "",
}


@pytest.mark.parametrize("what", MALFORMED)
def test_a_line_the_shell_never_writes_is_malformed(what: str) -> None:
    with pytest.raises(Malformed) as raised:
        read_query(MALFORMED[what].encode(), FMT)
    assert not re.search(r"[0-9a-f]{4}", str(raised.value))  # the line is never echoed


def test_a_value_wider_than_the_port_and_a_time_running_backwards_are_malformed() -> None:
    odd = QFormat(24, 15)  # 39 bits: 10 digits, the top one at most 7
    assert read_query(b"7fffffffff 0000000000 0000000000 0", odd).values == ((1 << 39) - 1, 0, 0)
    for wide in (b"8000000000 0000000000 0000000000 0", b"8xxxxxxxxx 0000000000 0000000000 0"):
        with pytest.raises(Malformed, match="wider than the port's 39 bits"):
            read_query(wide, odd)
    assert read_query(b"0000000001 0000000000 0000000000 20", FMT, after_ps=20).time_ps == 20
    with pytest.raises(Malformed, match="earlier than the query before it"):
        read_query(b"0000000001 0000000000 0000000000 19", FMT, after_ps=20)


# ---------------------------------------------------------------- every design, the same answers


def lab6_banks(tmp_path: Path) -> dict[ParamSet, DesignBank]:
    """The banks of a whole lab-6 grading (every group, hidden ones too): each format's designs side by side."""
    lab = load_lab(6)
    formats: dict[ParamSet, list[Design]] = {}
    for group in lab.groups:
        for text in group.designs:
            design = resolve(text, group.param_set, lab.folder, lab.top)
            formats.setdefault(design.param_set, []).append(design)
    return {param_set: build_bank(designs, param_set, tmp_path / f"bank{index}")
            for index, (param_set, designs) in enumerate(formats.items())}


def not_known(fmt: QFormat) -> list[str]:
    """Vectors with an X or Z: every input X or Z, one nibble of one input, and the "0x" form, at this format."""
    width = -(-fmt.width // 4)
    known = [f"{value:0{width}x}" for value in (100 << fmt.frac_bits, 20 << fmt.frac_bits, 1 << (fmt.frac_bits - 1))]
    found = [" ".join([char * width] * 3) for char in "xzXZ"]
    for port in range(3):
        for nibble in range(width):
            for char in "xzXZ":
                fields = list(known)
                fields[port] = fields[port][:nibble] + char + fields[port][nibble + 1:]
                found.append(" ".join(fields))
    return found


@pytest.mark.sim
def test_every_design_of_a_grading_gives_the_same_answers_to_x_z_and_malformed_lines(tmp_path: Path) -> None:
    """X, Z and malformed lines get the same answers and transcripts on every design: the grader's all-X for a
    vector with an X or Z, nothing for a malformed line; none of them exposes a bug. The designs' own answers to
    the same X vectors differ (the control): forwarding them would tell the designs apart."""
    for param_set, bank in lab6_banks(tmp_path).items():
        fmt = param_set.params.fmt
        lines = [f"{fields} {10 * n}" for n, fields in enumerate(not_known(fmt))]
        width = -(-fmt.width // 4)
        lines += [f"!{line}" for line in MALFORMED.values()] + [" ".join(["z" * width] * 3) + " 9999999"]
        x_cap, x_mem_bound = x_answer(fmt)
        seen = {}
        for design in bank.columns:
            against = "model:reference" if design.family == "model" else "rtl:reference"
            answers, transcript = serve(design.column, lines, tmp_path, bank, against)
            assert not transcript.exposed and transcript.known == 0 and not transcript.toggled, design.id
            assert "not a vector of the design's inputs" in transcript.violation
            seen[design.id] = (answers, transcript.queries, transcript.digest, transcript.violation, transcript.coverage)
        answers = next(iter(seen.values()))[0]
        x = f"{x_cap} {x_mem_bound}"
        assert answers == [x] * len(not_known(fmt)) + [None] * (len(lines) - len(not_known(fmt)) - 1) + [x]
        assert all(record == next(iter(seen.values())) for record in seen.values()), param_set
        assert len(seen) == len(bank.columns) >= 3

        own = bank_answers(bank, not_known(fmt))  # the control: what the RTL designs themselves say to X
        assert len({tuple(column) for column in own.values()}) > 1, "the designs' own X answers no longer differ"


def bank_answers(bank: DesignBank, vectors: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each RTL design's own answers to these vectors, asked of the bank's Icarus process directly."""
    run = bank.start()
    try:
        assert run.process is not None and run.process.stdin is not None and run.process.stdout is not None
        found: dict[str, list[tuple[str, str]]] = {name: [] for name in bank.rtl_columns}
        for fields in vectors:
            run.process.stdin.write(fields + "\n")
            line = run.process.stdout.readline().split()
            for index, name in enumerate(bank.rtl_columns):
                found[name].append((line[2 * index], line[2 * index + 1]))
        return found
    finally:
        run.close()


def test_the_relay_answers_known_vectors_with_the_served_design_and_records_where_it_first_differs(tmp_path: Path) -> None:
    one = FMT.one
    vectors = [(100 * one, 20 * one, 5 * one), (100 * one, 20 * one, one // 2), (100 * one, 20 * one, 20 * one)]
    lines = ["zzzzzzzzzz zzzzzzzzzz zzzzzzzzzz 0", *(vector(*v, 1000 * (n + 1)) for n, v in enumerate(vectors))]
    bank = example_bank(tmp_path)
    answers, transcript = serve("example:verdict_inverted", lines, tmp_path, bank)
    assert answers[0] == "xxxxxxxxxx x"  # inputs not driven yet: the grader's all-X
    for (peak, bw, ai), answer in zip(vectors, answers[1:], strict=True):
        golden = fixed.attainable(FMT, peak, bw, ai)
        assert answer == f"{golden.cap:010x} {int(not golden.mem_bound)}"  # the verdict inverted, the cap right
    assert transcript.queries == 4 and transcript.known == 3 and transcript.toggled
    assert transcript.exposed_at == 1 and transcript.differs == {"mem_bound_o"}  # the z vector exposes nothing
    _, correct = serve("model:reference", lines, tmp_path, bank)
    _, again = serve("model:reference", lines, tmp_path, bank)
    assert not correct.exposed and correct.digest == again.digest  # the same exchange, the same digest
    assert correct.digest != transcript.digest  # the same vectors, other answers: another exchange
    assert correct.coverage == transcript.coverage  # sampled on every run alike
    assert correct.coverage["memory-bound"] == 1 and correct.coverage["ridge (ai*bw == peak)"] == 1


def test_a_malformed_line_is_a_violation_and_gets_no_answer(tmp_path: Path) -> None:
    one = FMT.one
    answers, transcript = serve("model:reference", ["!0x640000 0000140000 0000008000 0", vector(100 * one, 20 * one, one)],
                                tmp_path, example_bank(tmp_path))
    assert "not a vector of the design's inputs (an input that is not 10 hex digits" in transcript.violation
    assert answers[0] is None and answers[1].endswith(" 1") and transcript.queries == 1  # the vector its own answer


def test_every_answer_costs_the_same_work_whichever_design_is_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bank evaluates every design on every known vector, and coverage is sampled on every run: the time an
    answer takes does not say which design is served."""
    calls: list[str] = []
    columns = [model("model:reference"), *(model(f"example:{n}") for n in EXAMPLES)]

    class Counting(Design):
        @property
        def model(self) -> Callable[..., tuple[int, bool]]:  # type: ignore[override]
            inner = super().model
            calls.append(self.column)
            return inner

    sampled = port_channel.Coverage.sample_rates

    def counted(self: object, *args: object, **kwargs: object) -> None:
        calls.append("coverage")
        sampled(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(port_channel.Coverage, "sample_rates", counted)
    bank = DesignBank(FMT, [Counting(**{f: getattr(d, f) for f in d.__dataclass_fields__}) for d in columns])
    lines = [vector(random.getrandbits(40), random.getrandbits(40), random.getrandbits(40)) for _ in range(20)]
    lines += ["xxxxxxxxxx 0000000001 0000000001 0"] * 5
    work = {}
    for served in ("model:reference", "example:no_memory_roof"):
        calls.clear()
        serve(served, lines, tmp_path, bank)
        work[served] = sorted(calls)
    expected = sorted([d.column for d in columns] * 20 + ["coverage"] * 20)  # X vectors: no design asked, nothing sampled
    assert work["model:reference"] == work["example:no_memory_roof"] == expected


def test_the_transcript_keeps_the_last_vector_of_each_time_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps = [vector(1, 2, 3, 0), vector(1, 2, 4, 1000), vector(1, 5, 4, 1000), vector(6, 5, 4, 2000)]
    _, transcript = serve("model:reference", steps, tmp_path, example_bank(tmp_path))
    assert transcript.vector_before(0) is None
    assert transcript.vector_before(1000) == (0, tuple(steps[0].split()[:3]))
    assert transcript.vector_before(1001) == (1000, tuple(steps[2].split()[:3]))  # the step's last vector
    assert transcript.vector_before(10**9) == (2000, tuple(steps[3].split()[:3]))
    monkeypatch.setattr(port_channel, "RECORDED_STEPS", 2)
    _, capped = serve("model:reference", steps, tmp_path, example_bank(tmp_path))
    assert capped.vector_before(1001) == (1000, tuple(steps[2].split()[:3])) and capped.dropped_from == 2000
    assert capped.vector_before(2000) == (1000, tuple(steps[2].split()[:3]))
    assert capped.vector_before(2001) is None  # after a step not recorded: not known, never a wrong vector
