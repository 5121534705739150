"""The shell's side of lab 6's port channel, played by a test, and a run of the channel server over lines
(for tests/course/testbench_lab/test_port_channel.py and test_port_channel_mutants.py)."""

from __future__ import annotations

import os
import select
from pathlib import Path

from roofline_core.contract import ParamSet
from roofline_core.paths import LABS_DIR
from roofline_course.labs.designs import EXAMPLES, Design, resolve
from roofline_course.testbench_lab.design_bank import DesignBank, build_bank
from roofline_course.testbench_lab.port_channel import Channel, ChannelServer, Transcript
from roofline_golden import QFormat

FMT = QFormat()
ANSWER_S = 10


def model(name: str, param_set: ParamSet | None = None) -> Design:
    return resolve(name, param_set or ParamSet(), LABS_DIR / "lab6", "roofline_attainable")


class Shell:
    """The shell's side of the channel: a line out, a line back (or none)."""

    def __init__(self, channel: Channel) -> None:
        self.query = os.open(channel.folder / "query", os.O_WRONLY)
        self.answer = os.open(channel.folder / "answer", os.O_RDONLY | os.O_NONBLOCK)

    def ask(self, line: str) -> str:
        """The answer to one line, within ANSWER_S."""
        self.send(line)
        received = b""
        while not received.endswith(b"\n"):
            ready, _, _ = select.select([self.answer], [], [], ANSWER_S)
            assert ready, f"no answer to {line!r} within {ANSWER_S} s"
            received += os.read(self.answer, 1)
        return received.decode().strip()

    def send(self, line: str) -> None:
        os.write(self.query, (line + "\n").encode())

    def leftover(self) -> bytes:
        try:
            return os.read(self.answer, 1 << 16)
        except BlockingIOError:
            return b""

    def close(self) -> None:
        os.close(self.query)
        os.close(self.answer)


def example_bank(tmp_path: Path) -> DesignBank:
    return build_bank([model("model:reference"), *(model(f"example:{n}") for n in EXAMPLES)], ParamSet(), tmp_path)


def serve(served: str, lines: list[str], tmp_path: Path, bank: DesignBank, against: str = "model:reference",
          ) -> tuple[list[str | None], Transcript]:
    """The lines sent as the shell would, and each one's answer; a line starting with ! is sent unanswered."""
    shell_file = tmp_path / "shell.vvp"
    shell_file.write_text("not run here")
    channel = Channel(shell_file)
    server = ChannelServer(channel, bank, served, against)
    server.start()
    shell = Shell(channel)
    try:
        answers = [shell.send(line[1:]) if line.startswith("!") else shell.ask(line) for line in lines]
        assert shell.leftover() == b"", "a line not awaited was answered"
    finally:
        shell.close()
        transcript = server.stop()
        channel.close()
    assert not server.error, server.error
    return answers, transcript


def vector(peak: int, bw: int, ai: int, time_ps: int = 0, fmt: QFormat = FMT) -> str:
    width = -(-fmt.width // 4)
    return f"{peak:0{width}x} {bw:0{width}x} {ai:0{width}x} {time_ps}"
