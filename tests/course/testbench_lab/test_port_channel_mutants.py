"""The relay's edges (make mutation's tests for testbench_lab/port_channel.py, beside test_port_channel.py).

The channel's rules (port_channel.py's docstring): a query is three inputs of exactly the port's width and
a time of at most 20 decimal digits, so no line longer than 3 x (digits + 1) + 20 bytes is one; the
transcript's `toggled` means a known vector other than the first was applied, `exposed_at` is the first
query whose answer differed, `differs` every output that ever did; the first violation is the one kept;
answers the testbench never reads are a violation of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from port_channel_shell import FMT, Shell, example_bank, serve, vector

from roofline_course.testbench_lab import port_channel
from roofline_course.testbench_lab.port_channel import Channel, ChannelServer, read_query
from roofline_course.testbench_lab.port_shell import GraderSideError
from roofline_golden import QFormat

LONGEST = 3 * (10 + 1) + 20  # UQ24.16: ten hex digits an input, a space after each, a 20-digit time


def with_shell(tmp_path: Path, served: str = "model:reference") -> tuple[Channel, ChannelServer, Shell]:
    shell_file = tmp_path / "shell.vvp"
    shell_file.write_text("not run here")
    channel = Channel(shell_file)
    server = ChannelServer(channel, example_bank(tmp_path), served, "model:reference")
    server.start()
    return channel, server, Shell(channel)


def close(channel: Channel, server: ChannelServer, shell: Shell) -> str:
    shell.close()
    transcript = server.stop()
    channel.close()
    assert not server.error, server.error
    return transcript.violation


def test_the_longest_query_is_served_even_when_it_comes_in_pieces(tmp_path: Path) -> None:
    one = FMT.one
    longest = vector(100 * one, 20 * one, one, 0)[:-1] + "0" * 20  # a 20-digit time
    assert len(longest) == LONGEST and read_query(longest.encode(), FMT).time_ps == 0
    channel, server, shell = with_shell(tmp_path)
    try:
        os.write(shell.query, longest.encode())  # all of it but the newline: not yet a line
        time.sleep(0.5)
        assert shell.ask("").endswith(" 1")  # the newline: a query, answered (memory-bound: 1 x 20 < 100)
    finally:
        violation = close(channel, server, shell)
    assert violation == ""


def test_a_line_one_byte_longer_than_any_query_is_a_violation_before_its_end(tmp_path: Path) -> None:
    channel, server, shell = with_shell(tmp_path)
    try:
        os.write(shell.query, b"0" * (LONGEST + 1))
        time.sleep(0.5)
        assert shell.ask(vector(FMT.one, FMT.one, FMT.one, 1)).endswith(" 0")  # the channel still serves the run
    finally:
        violation = close(channel, server, shell)
    assert violation == ("the grader's port channel received something that is not a vector of the design's inputs "
                         "(a line longer than a query)")


def test_only_a_known_vector_other_than_the_first_is_a_toggle(tmp_path: Path) -> None:
    one = FMT.one
    same = vector(100 * one, 20 * one, one)
    lines = ["xxxxxxxxxx 0000000001 0000000001 0", same, same, same]
    _, steady = serve("model:reference", lines, tmp_path, example_bank(tmp_path))
    assert (steady.queries, steady.known, steady.toggled, steady.first) == (4, 3, False, tuple(same.split()[:3]))


def test_exposed_at_is_the_first_differing_query_and_differs_gathers_every_output(tmp_path: Path) -> None:
    one = FMT.one
    lines = [vector(100 * one, 20 * one, 20 * one),  # compute-bound: no_memory_roof answers alike
             vector(100 * one, 20 * one, one // 2),  # memory-bound: the cap differs
             vector(100 * one, 20 * one, one)]
    _, transcript = serve("example:no_memory_roof", lines, tmp_path, example_bank(tmp_path))
    assert transcript.exposed_at == 1 and "cap_o" in transcript.differs and transcript.exposed
    _, inverted = serve("example:verdict_inverted", lines, tmp_path, example_bank(tmp_path))
    assert inverted.exposed_at == 0 and inverted.differs == {"mem_bound_o"}


def test_the_first_violation_is_the_one_kept(tmp_path: Path) -> None:
    _, transcript = serve("model:reference", ["!1 2", "!0x1 0x2 0x3 0", vector(1, 1, 1)], tmp_path, example_bank(tmp_path))
    assert transcript.violation.endswith("(a line that is not 3 inputs and a time)")


def test_answers_never_read_are_a_violation_of_the_run(tmp_path: Path) -> None:
    channel, server, shell = with_shell(tmp_path)
    try:
        line = (vector(FMT.one, FMT.one, FMT.one, 5) + "\n").encode()
        for _ in range(8000):  # 8000 answers of 13 bytes: more than a FIFO holds
            os.write(shell.query, line)
        deadline = time.monotonic() + 30
        while not server.transcript.violation and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        violation = close(channel, server, shell)
    assert violation == "the grader's port channel received answers that were never read"


def test_a_narrow_format_reads_its_own_width() -> None:
    fmt = QFormat(4, 4)  # 8 bits: two hex digits an input
    query = read_query(b"ff 0a 1x 12", fmt)
    assert (query.vector, query.values, query.time_ps) == (("ff", "0a", "1x"), None, 12)
    assert read_query(b"ff 0a 10 12", fmt).values == (255, 10, 16)


def test_a_later_step_repeated_keeps_every_earlier_steps_vector(tmp_path: Path) -> None:
    steps = [vector(1, 2, 3, 0), vector(1, 2, 4, 1000), vector(1, 2, 5, 2000), vector(1, 2, 6, 2000)]
    _, transcript = serve("model:reference", steps, tmp_path, example_bank(tmp_path))
    assert transcript.vector_before(1) == (0, tuple(steps[0].split()[:3]))
    assert transcript.vector_before(1001) == (1000, tuple(steps[1].split()[:3]))
    assert transcript.vector_before(2001) == (2000, tuple(steps[3].split()[:3]))  # the step's last vector


class BrokenBank:
    """A bank whose answers fail as the grader's designs can: the run is the grader's error, never a hang."""

    def __init__(self, fmt: QFormat, problem: Exception) -> None:
        self.fmt, self.problem, self.closed = fmt, problem, False

    def start(self) -> BrokenBank:
        return self

    def answers(self, query: object) -> dict:
        raise self.problem

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(("problem", "error"), [
    (GraderSideError("the reference design stopped answering"), "the reference design stopped answering"),
    (ValueError("bad column"), "the server stopped: ValueError: bad column"),
])
def test_a_bank_that_fails_is_the_graders_error_and_the_server_stops(tmp_path: Path, problem: Exception, error: str) -> None:
    shell_file = tmp_path / "shell.vvp"
    shell_file.write_text("not run here")
    channel = Channel(shell_file)
    bank = BrokenBank(FMT, problem)
    server = ChannelServer(channel, bank, "model:reference", "model:reference")  # type: ignore[arg-type]
    server.start()
    shell = Shell(channel)
    try:
        shell.send(vector(FMT.one, FMT.one, FMT.one, 1))
        server.join(timeout=10)
        assert not server.is_alive()  # stopped serving: never a run that waits out its time limit
    finally:
        shell.close()
        server.stop()
        channel.close()
    assert server.error == error and bank.closed


def test_a_read_that_would_block_after_select_is_waited_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_read, calls = os.read, []

    def read(fd: int, size: int) -> bytes:
        calls.append(fd)
        if len(calls) == 1:
            raise BlockingIOError  # another reader took the bytes select saw
        return real_read(fd, size)

    channel, server, shell = with_shell(tmp_path)
    try:
        monkeypatch.setattr(port_channel.os, "read", read)
        answer = shell.ask(vector(FMT.one, FMT.one, FMT.one, 1))
    finally:
        monkeypatch.undo()
        violation = close(channel, server, shell)
    assert answer.endswith(" 0") and violation == "" and len(calls) >= 2


def test_the_digest_tells_apart_runs_whose_answers_differ_in_the_cap_alone(tmp_path: Path) -> None:
    one = FMT.one
    lines = [vector(100 * one, 20 * one, one // 2)]  # memory-bound: no_memory_roof answers the peak, the verdict alike
    bank = example_bank(tmp_path)
    _, correct = serve("model:reference", lines, tmp_path, bank)
    _, faulty = serve("example:no_memory_roof", lines, tmp_path, bank)
    assert faulty.differs == {"cap_o"} and faulty.digest != correct.digest


def test_the_channel_folder_is_passable_not_listable_and_its_files_are_the_ones_a_run_needs(tmp_path: Path) -> None:
    """Under the uid isolation there is no mount: the sandbox user reaches the channel by its path, so the
    folder must let it pass (x) without letting it list (r) or add (w) files; the FIFOs are read and written
    by the run, the shell only read; the empty folder bound over what a run must not see is listable and empty."""
    shell_file = tmp_path / "shell.vvp"
    shell_file.write_text("not run here")
    channel = Channel(shell_file)
    try:
        mode = lambda path: path.stat().st_mode & 0o777  # noqa: E731
        assert mode(channel.folder) == 0o711
        assert sorted(p.name for p in channel.folder.iterdir()) == ["answer", "query", "shell.vvp"]
        assert (mode(channel.folder / "query"), mode(channel.folder / "answer")) == (0o666, 0o666)
        assert mode(channel.folder / "shell.vvp") == 0o644
        assert mode(channel.empty) == 0o755 and not list(channel.empty.iterdir())
    finally:
        channel.close()
    assert not channel.folder.exists() and not channel.empty.exists()


def test_the_relays_thread_never_keeps_the_grader_alive(tmp_path: Path) -> None:
    """A grader that ends (or dies) while a run's relay still waits on its FIFO exits at once: the
    server is a daemon thread, never one the interpreter waits for."""
    script = tmp_path / "grader.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\nfrom port_channel_shell import example_bank\n"
        "from roofline_course.testbench_lab.port_channel import Channel, ChannelServer\n"
        "folder = Path(sys.argv[1])\nshell = folder / 'shell.vvp'\nshell.write_text('not run here')\n"
        "server = ChannelServer(Channel(shell), example_bank(folder), 'model:reference', 'model:reference')\n"
        "server.start()\nprint('started', flush=True)\n")  # and ends, never stopping the server
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=20,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0 and run.stdout == "started\n", run.stderr[-2000:]
