"""The package structure: layers that import only downwards, and no import cycle anywhere.

Every import counts, at module level, inside a function, or under TYPE_CHECKING: a cycle that
only the type checker sees still ties two modules together.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

from roofline_core.paths import REPO_ROOT

# Each package's folder and its layer: a package imports only packages of lower layers.
LAYERS = {
    "roofline_golden": ("model/roofline_golden", 0),  # the golden model: numbers only
    "roofline_core": ("core/roofline_core", 1),  # the floor: contract, paths, tools, runner, judge
    "roofline_bench": ("tb/roofline_bench", 2),  # the benches, simulator-independent: drive, judge, replay
    "roofline_bulk": ("tb/roofline_bulk", 2),  # the bulk sweeps
    "roofline_tb": ("tb/roofline_tb", 3),  # the cocotb harness: the benches on a design's real ports
    "roofline_flows": ("flows/roofline_flows", 3),  # EDA flows
    "roofline_course": ("course/roofline_course", 4),  # grading
    "roofline_cli": ("cli/roofline_cli", 4),  # the roofline command
}


def imports(path: Path, package: str) -> Iterator[str]:
    """The absolute module names a file imports (relative imports resolved within its package)."""
    module = f"{package}.{path.stem}" if path.stem != "__init__" else package
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level] if path.stem != "__init__" else module.split(".")[: 1 - node.level]
                target = ".".join([*base, node.module] if node.module else base)
                # `from . import reports` names a module; `from .x import name` names module x
                yield from ([f"{target}.{alias.name}" for alias in node.names] if node.module is None else [target])
            elif node.module:
                yield node.module


def modules() -> dict[str, tuple[str, Path]]:
    """Every module of every package: name -> (package, file)."""
    found = {}
    for package, (folder, _) in LAYERS.items():
        for path in sorted((REPO_ROOT / folder).glob("*.py")):
            found[f"{package}.{path.stem}" if path.stem != "__init__" else package] = (package, path)
    return found


def test_every_package_folder_is_in_the_table() -> None:
    packages = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    python = {name: folder for name, folder in packages.items() if "." not in name}  # not the data packages
    assert python == {name: folder for name, (folder, _) in LAYERS.items()}, "a package was added or moved: give it a layer"


def test_packages_import_only_lower_layers() -> None:
    upward = []
    for name, (package, path) in modules().items():
        for target in imports(path, package):
            other = target.split(".")[0]
            if other in LAYERS and other != package and LAYERS[other][1] >= LAYERS[package][1]:
                upward.append(f"{name} imports {target} (layer {LAYERS[package][1]} -> {LAYERS[other][1]})")
    assert not upward, "imports that do not go down a layer:\n" + "\n".join(upward)


def test_no_module_import_cycle() -> None:
    known = modules()
    graph = {name: sorted({t for t in imports(path, package) if t in known and t != name})
             for name, (package, path) in known.items()}
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: finished

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in graph[node]:
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target):], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_check_sees_a_cycle_and_an_upward_edge(tmp_path: Path) -> None:
    """The walk above finds what it looks for: a planted relative cycle and an upward import."""
    (tmp_path / "a.py").write_text("from .b import x\nfrom roofline_cli import main\n")
    (tmp_path / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    assert list(imports(tmp_path / "a.py", "roofline_core")) == ["roofline_core.b", "roofline_cli"]
    assert list(imports(tmp_path / "b.py", "roofline_core")) == ["typing", "roofline_core.a"]
