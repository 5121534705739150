"""The `roofline` command: the documents' numbers, every kind of bad input, plots, and the RTL path."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from roofline_cli import main as cli
from roofline_cli.document import schema
from roofline_cli.place import place
from roofline_cli.platform import load
from roofline_core.paths import REPO_ROOT
from roofline_golden import cases

EXAMPLES = REPO_ROOT / "examples"
DOCUMENT = EXAMPLES / "document.toml"


def test_every_document_case_is_placed_with_the_documents_cap() -> None:
    platform = load(DOCUMENT)
    kernels = {kernel.name: kernel for kernel in platform.kernels}
    documented = [case for case in cases.load_cases() if case.group == "document"]
    assert documented
    for case in documented:
        placement = place(platform, kernels[case.title])
        assert placement.cap == Fraction(case.expect["expect_cap"]), case.title
        binds = case.expect.get("expect_binds")
        if binds == "compute":
            assert placement.binding == "compute", case.title
        elif binds == "memory":
            assert placement.binding == "DRAM", case.title
        elif binds:
            assert placement.binding == binds, case.title


def test_place_prints_intensity_cap_ridge_and_the_binding_roof(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["place", str(DOCUMENT)]) == 0
    out = capsys.readouterr().out
    assert "Dot product, FP32, N = 1,000,000" in out
    assert "end to end: 5 GFLOP/s, bound by DRAM (memory)" in out
    assert "end to end: 100 GFLOP/s, bound by the compute roof" in out
    assert "end to end: 10 GFLOP/s, bound by DRAM (memory)" in out


def test_a_measured_point_gets_its_fraction_and_headroom_and_one_above_its_roof_a_diagnostic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    platform_file = tmp_path / "p.toml"
    platform_file.write_text("""
[platform]
peak = { FP64 = "100 GFLOP/s" }
levels = [{ name = "DRAM", bandwidth = "20 GB/s" }]
[[kernel]]
name = "honest"
intensity = { DRAM = "0.5 FLOP/B" }
measured = "8 GFLOP/s"
[[kernel]]
name = "too good"
intensity = { DRAM = "0.5 FLOP/B" }
measured = "12 GFLOP/s"
""")
    assert cli.main(["place", str(platform_file)]) == 0
    out = capsys.readouterr().out
    assert "measured 8 GFLOP/s = 80.0% of the cap, headroom 2 GFLOP/s" in out
    assert "DIAGNOSTIC: the measured 12 GFLOP/s is above its roof of 10 GFLOP/s" in out


BASE = """
[platform]
peak = { FP64 = "100 GFLOP/s" }
levels = [{ name = "DRAM", bandwidth = "20 GB/s" }]
[[kernel]]
name = "k"
"""
BAD_INPUTS = {
    "missing peak": (
        '[platform]\nlevels = [{ name = "DRAM", bandwidth = "20 GB/s" }]\n[[kernel]]\nname = "k"\n'
        'intensity = { DRAM = "1 FLOP/B" }\n',
        "platform.peak",
    ),
    "negative intensity": (BASE + 'intensity = { DRAM = "-1 FLOP/B" }\n', "negative"),
    "zero bandwidth": (BASE.replace('"20 GB/s"', '"0 GB/s"') + 'intensity = { DRAM = "1 FLOP/B" }\n', "zero bandwidth"),
    "zero bytes": (BASE + 'ops = "10 FLOP"\nbytes = { DRAM = "0 B" }\n', "zero bytes"),
    "unknown unit": (BASE + 'intensity = { DRAM = "1 FLOP/furlong" }\n', "unknown unit"),
    "no unit": (BASE.replace('"100 GFLOP/s"', "100") + 'intensity = { DRAM = "1 FLOP/B" }\n', "has no unit"),
    "unknown level": (BASE + 'intensity = { HBM = "1 FLOP/B" }\n', "unknown level 'HBM'"),
    "unknown precision": (BASE + 'precision = "FP8"\nintensity = { DRAM = "1 FLOP/B" }\n', "unknown precision"),
    "both kinds": (BASE + 'intensity = { DRAM = "1 FLOP/B" }\nops = "1 FLOP"\nbytes = { DRAM = "1 B" }\n', "either"),
    "not toml": ("[platform\n", "not valid TOML"),
    "nan in toml": (BASE + "ops = nan\nbytes = { DRAM = 8 }\n", "not a finite number"),
    "inf in toml": (BASE + "ops = inf\nbytes = { DRAM = 8 }\n", "not a finite number"),
    "1e400 in toml": (BASE + "ops = 1e400\nbytes = { DRAM = 8 }\n", "not a finite number"),
    "precision as a list": (BASE + 'precision = ["FP64"]\nintensity = { DRAM = "1 FLOP/B" }\n', "unknown precision"),
    "a 5000-digit exponent": (BASE + 'intensity = { DRAM = "1e5000 FLOP/B" }\n', "outside the numbers"),
    "a 10^8-digit exponent": (BASE + 'intensity = { DRAM = "1e100000000 FLOP/B" }\n', "outside the numbers"),
    "zero peak": (BASE.replace('"100 GFLOP/s"', '"0 GFLOP/s"') + 'intensity = { DRAM = "1 FLOP/B" }\n', "zero peak"),
    "two kernels, one name": (
        BASE + 'intensity = { DRAM = "1 FLOP/B" }\n[[kernel]]\nname = "k"\nintensity = { DRAM = "2 FLOP/B" }\n',
        "named twice",
    ),
}
JSON_BAD = {
    "NaN": '{"platform": {"peak": {"FP64": "100 GFLOP/s"}, "levels": [{"name": "D", "bandwidth": "1 GB/s"}]}, '
    '"kernel": [{"name": "k", "ops": NaN, "bytes": {"D": 8}}]}',
    "-Infinity": '{"platform": {"peak": {"FP64": "100 GFLOP/s"}, "levels": [{"name": "D", "bandwidth": "1 GB/s"}]}, '
    '"kernel": [{"name": "k", "ops": -Infinity, "bytes": {"D": 8}}]}',
    "1e400": '{"platform": {"peak": {"FP64": "100 GFLOP/s"}, "levels": [{"name": "D", "bandwidth": "1 GB/s"}]}, '
    '"kernel": [{"name": "k", "ops": 1e400, "bytes": {"D": 8}}]}',
    "deep nesting": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_gets_one_message_naming_the_file_and_field(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = BAD_INPUTS[name]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert cli.main(["place", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and expected in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", JSON_BAD)
def test_bad_json_gets_one_line_and_exit_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(JSON_BAD[name])
    assert cli.main(["place", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_binary_files_folders_and_bad_outputs_are_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "platform.toml"
    binary.write_bytes(b"\xff\xfe\x00platform")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    good = REPO_ROOT / "examples" / "document.toml"
    (tmp_path / "file").write_text("x")
    cases = [
        (["place", str(binary)], "not a text file"),
        (["place", str(folder)], "a folder"),
        (["plot", str(good), "-o", str(tmp_path / "file" / "x.png")], "is not a folder"),
        (["plot", str(good), "-o", str(folder)], "write a .png, a .svg or an .html"),
        (["plot", str(good), "-o", str(tmp_path / "dir.svg")], "a folder"),
    ]
    (tmp_path / "dir.svg").mkdir()
    for argv, expected in cases:
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1, (argv, err)
    assert cli.main(["plot", str(good), "-o", str(tmp_path / "upper.PNG")]) == 0
    assert (tmp_path / "upper.PNG").stat().st_size > 1000


def test_a_missing_file_is_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["place", "no/such/file.toml"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_value_the_rtl_format_cannot_hold_names_the_format_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["place", str(DOCUMENT), "--rtl", "icarus", "--format", "UQ4.4"]) == 2
    err = capsys.readouterr().err
    assert "does not fit the RTL's UQ4.4 (0 .. 15.9375)" in err and "platform.peak.assumed" in err


def test_json_files_are_read_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.json"
    path.write_text(
        '{"platform": {"peak": {"FP32": "1 TFLOP/s"}, "levels": [{"name": "HBM", "bandwidth": "1 TB/s"}]},'
        ' "kernel": [{"name": "k", "ops": 4000, "bytes": {"HBM": "1 kB"}}]}'
    )
    assert cli.main(["place", str(path)]) == 0
    assert "end to end: 1000 GFLOP/s, bound by the compute roof" in capsys.readouterr().out


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_writes_the_picture(suffix: str, tmp_path: Path) -> None:
    out = tmp_path / f"roofline{suffix}"
    assert cli.main(["plot", str(EXAMPLES / "a100.toml"), "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    if suffix == ".svg":
        text = out.read_text()
        assert "arithmetic intensity (FLOP/B)" in text and "attainable performance (GFLOP/s)" in text


@pytest.mark.sim
@pytest.mark.parametrize(("example", "sim"), [
    pytest.param(example, sim, marks=() if (example, sim) == ("document.toml", "icarus") else pytest.mark.full)
    for example in ("document.toml", "a100.toml") for sim in ("icarus", "verilator")])
def test_the_rtl_agrees_with_the_model_on_the_examples(
    sim: str, example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if sim == "verilator" and shutil.which("g++") is None:
        pytest.skip("g++ is needed for Verilator")
    assert cli.main(["place", str(EXAMPLES / example), "--rtl", sim]) == 0
    out = capsys.readouterr().out
    assert f"RTL (roofline_hierarchy, {sim})" in out and f"RTL (roofline_counts, {sim})" in out
    assert "DISAGREES" not in out and "NOT THE GOLDEN MODEL" not in out


@pytest.mark.sim
@pytest.mark.full
def test_make_report_writes_one_page_with_the_rtl_roofline() -> None:
    from roofline_flows import regression_page
    assert regression_page.main([]) == 0
    page = (regression_page.REPORT_DIR / "index.html").read_text()
    assert "roofline-hw regression report" in page and "<svg" in page and "caps computed by the RTL on icarus" in page


def place_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert cli.main(["place", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_place_json_follows_its_shipped_schema_and_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    doc = place_json([str(REPO_ROOT / "examples" / "a100.toml")], capsys)
    jsonschema.validate(doc, schema())
    assert doc["schema_version"] == 1 and doc["rtl"] is None
    stream = next(k for k in doc["kernels"] if k["name"].startswith("STREAM"))
    assert stream["binding"] == "HBM" and stream["measured_gflops"] is not None
    assert stream["fraction_of_cap"] == pytest.approx(stream["measured_gflops"] / stream["cap_gflops"])
    document_cases = place_json([str(REPO_ROOT / "examples" / "document.toml")], capsys)
    ridge = next(k for k in document_cases["kernels"] if "ridge" in k["name"])
    assert ridge["cap_exact"] == "100" and ridge["binding"] == "compute"  # the documents' calculator check 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "schema_version": 2}, schema())


@pytest.mark.sim
def test_place_json_with_the_rtl_carries_raw_values_and_lsb_differences(capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    doc = place_json([str(REPO_ROOT / "examples" / "document.toml"), "--rtl", "icarus"], capsys)
    jsonschema.validate(doc, schema())
    assert doc["rtl"] == {"simulator": "icarus", "format": "UQ24.16"}
    for kernel in doc["kernels"]:
        assert kernel["rtl"]["values"] and all(
            v["agrees"] and abs(v["diff_lsb"]) <= v["bound_lsb"] for v in kernel["rtl"]["values"]
        )
