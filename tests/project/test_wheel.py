"""`pip install .` (a wheel, not editable) into a fresh venv outside the checkout gives a working
`roofline place`, `plot` and `place --rtl icarus`, run from an unrelated folder: the RTL and the
cocotb job travel as package data, and builds go to the user's cache folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from roofline_core.paths import EXAMPLES_DIR, REPO_ROOT, RTL_DIR

pytestmark = [pytest.mark.full, pytest.mark.sim]  # builds and installs the wheel: make test-all



@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(folder / "dist"),
                    str(REPO_ROOT)], check=True, capture_output=True, cwd=folder)
    wheel = next((folder / "dist").glob("roofline_hw-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        shipped = {Path(name).name: archive.read(name) for name in archive.namelist() if name.startswith("roofline_core/rtl/")}
    assert shipped == {path.name: path.read_bytes() for path in RTL_DIR.glob("*.sv")}, "the wheel's RTL is not rtl/"
    venv = folder / "venv"
    # No pip of its own, and no bytecode compiled ahead of time (together, over half the set-up):
    # this pip installs into it, and each module compiles when first imported.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # Without PYTHONPATH: an entry that reaches the checkout (an empty one is the working folder)
    # shows pip the editable install's metadata, and pip would skip the wheel as installed.
    clean = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
                              "--no-compile", "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True, timeout=900, env=clean)
    assert install.returncode == 0, install.stderr[-3000:]
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "HOME": str(folder / "home"),
           "XDG_CACHE_HOME": str(folder / "cache"), "LANG": "C.UTF-8"}
    return venv, env


def roofline(installed: tuple[Path, dict[str, str]], where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    venv, env = installed
    where.mkdir(exist_ok=True)
    return subprocess.run([str(venv / "bin" / "roofline"), *args], cwd=where, env=env, capture_output=True, text=True,
                          timeout=600)


def test_place_plot_and_rtl_run_from_the_wheel(installed: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(EXAMPLES_DIR / "a100.toml", elsewhere)

    place = roofline(installed, elsewhere, "place", "a100.toml")
    here = subprocess.run([str(Path(sys.executable).parent / "roofline"), "place", str(EXAMPLES_DIR / "a100.toml")],
                          capture_output=True, text=True)
    assert place.returncode == 0, place.stderr
    assert place.stdout.splitlines()[1:] == here.stdout.splitlines()[1:]  # line 0 names the file

    plot = roofline(installed, elsewhere, "plot", "a100.toml", "-o", "a100.png")
    assert plot.returncode == 0, plot.stderr
    assert (elsewhere / "a100.png").read_bytes().startswith(b"\x89PNG")

    rtl = roofline(installed, elsewhere, "place", "a100.toml", "--rtl", "icarus", "--json")
    assert rtl.returncode == 0, rtl.stderr
    document = json.loads(rtl.stdout)
    compared = [value for kernel in document["kernels"] for value in kernel["rtl"]["values"]]
    assert compared and all(value["agrees"] and value["rtl_raw"] == value["model_raw"] for value in compared)
    venv, env = installed
    assert list(Path(env["XDG_CACHE_HOME"], "roofline-hw", "build").glob("icarus/cli-*")), "the build went elsewhere"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["a100.png", "a100.toml"]
