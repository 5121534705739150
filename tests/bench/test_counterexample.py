"""Reading a proof's counterexample for the replay bench (roofline_bench.counterexample), no simulator:
the Yosys witness format, signal by signal and step by step, the unit's inputs and the output ports
it starts at a chosen value, and one-line errors for what cannot be replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_bench import counterexample
from roofline_bench.counterexample import WitnessError


def witness(tmp_path: Path, signals: list[dict], steps: list[str]) -> Path:
    """A witness file as yosys-smtbmc writes one: each step's bits, the first signal lowest."""
    path = tmp_path / "trace.yw"
    path.write_text(json.dumps({"format": "Yosys Witness Trace", "generator": "smtbmc", "clocks": [],
                                "signals": signals, "steps": [{"bits": bits} for bits in steps]}))
    (tmp_path / "trace.vcd").write_text("$enddefinitions $end\n")
    return path


def signal(path: list[str], width: int, init_only: bool = False) -> dict:
    return {"path": [f"\\{part}" for part in path], "width": width, "offset": 0, "init_only": init_only}


def test_a_combinational_trace_gives_the_inputs_from_the_vcd_or_the_witness(tmp_path: Path) -> None:
    # ai = 0x0000400002, bw = 0x0200000000, peak = 0x0400000001: the first signal in the lowest bits
    bits = f"{0x0400000001:040b}{0x0200000000:040b}{0x0000400002:040b}"
    path = witness(tmp_path, [signal(["ai_i"], 40), signal(["bw_i"], 40), signal(["peak_i"], 40)], [bits])
    for given in (path, tmp_path / "trace.vcd"):
        found = counterexample.load(str(given), "roofline_attainable")
        assert found.steps == ({"ai_i": 0x0000400002, "bw_i": 0x0200000000, "peak_i": 0x0400000001},)
        assert found.widths == {"ai_i": 40, "bw_i": 40, "peak_i": 40} and found.init == {}


def test_a_sequential_trace_gives_each_step_and_the_outputs_it_starts_at(tmp_path: Path) -> None:
    signals = [signal(["bytes_i"], 4), signal(["clk_i"], 1), signal(["ops_i"], 4), signal(["rst_ni"], 1),
               signal(["start_i"], 1), signal(["_witness_", "anyinit_procdff_7"], 3, True),
               signal(["dut", "done_o"], 1, True), signal(["past_reset"], 1, True)]
    first = "0" + "1" + "101" + "0" + "0" + "0011" + "0" + "1000"  # past_reset 0, done_o 1, ..., bytes 8
    later = "1" + "1" + "0001" + "1" + "0010"  # start 1, rst 1, ops 1, clk 1, bytes 2
    found = counterexample.load(str(witness(tmp_path, signals, [first, later])), "roofline_intensity")
    assert found.steps == ({"bytes_i": 8, "ops_i": 3, "rst_ni": 0, "start_i": 0},
                           {"bytes_i": 2, "ops_i": 1, "rst_ni": 1, "start_i": 1})
    assert found.init == {"done_o": 1}  # a register of the unit's ports the trace starts at 1


def test_what_cannot_be_replayed_says_why_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(WitnessError, match="no witness file"):
        counterexample.load(str(tmp_path / "missing.vcd"), "roofline_attainable")
    (tmp_path / "bad.yw").write_text("not json")
    with pytest.raises(WitnessError, match="not a Yosys witness file"):
        counterexample.load(str(tmp_path / "bad.yw"), "roofline_attainable")
    short = witness(tmp_path, [signal(["ai_i"], 8)], ["1010"])
    with pytest.raises(WitnessError, match="holds 4 bits, its signals 8"):
        counterexample.load(str(short), "roofline_attainable")
    other = witness(tmp_path, [signal(["ops_i"], 4)], ["0001"])
    with pytest.raises(WitnessError, match="no input of roofline_attainable"):
        counterexample.load(str(other), "roofline_attainable")


def test_make_sim_replays_one_unit_and_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from roofline_cocotb import sim

    trace = witness(tmp_path, [signal(["ai_i"], 40)], ["0" * 40])
    with pytest.raises(SystemExit):
        sim.parse_args(["--replay", str(trace)])  # every bench at once
    assert "give its TOP=" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        sim.parse_args(["--top", "roofline_attainable", "--replay", str(tmp_path / "none.vcd")])
    assert "no such file" in capsys.readouterr().err
    assert sim.parse_args(["--top", "roofline_attainable", "--replay", str(trace)]).replay == str(trace)
