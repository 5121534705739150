"""The package structure: layers that import only downwards, and no import cycle anywhere.

Every import counts, at module level, inside a function, or under TYPE_CHECKING: a cycle that
only the type checker sees still ties two modules together.
"""

from __future__ import annotations

import ast
import re
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
    "roofline_cocotb": ("tb/roofline_cocotb", 3),  # the cocotb harness: the benches on a design's real ports
    "roofline_flows": ("flows/roofline_flows", 3),  # EDA flows
    "roofline_course": ("course/roofline_course", 4),  # grading
    "roofline_cli": ("cli/roofline_cli", 4),  # the roofline command
}


def module_name(path: Path, package: str) -> str:
    """A file's dotted name within its package (subpackages included): course/roofline_course/intake/submission.py
    is roofline_course.intake.submission, a package's __init__.py the package itself."""
    parts = path.relative_to(REPO_ROOT / LAYERS[package][0]).with_suffix("").parts
    return ".".join([package, *parts[:-1]] if parts[-1] == "__init__" else [package, *parts])


def imports(path: Path, package: str, known: set[str] | frozenset[str] = frozenset()) -> Iterator[str]:
    """The absolute module names a file imports (relative imports resolved within its package).
    `from pkg import name` names the module pkg.name when that is a module (one of `known`), else pkg."""
    module = module_name(path, package) if path.is_relative_to(REPO_ROOT / LAYERS[package][0]) else f"{package}.{path.stem}"
    is_package = path.stem == "__init__"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                base = parts[: len(parts) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            elif node.module:
                target = node.module
            else:
                continue
            named = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
            # `from . import reports` names a module; `from .x import name` names module x
            if node.level and node.module is None:
                yield from (f"{target}.{alias.name}" for alias in node.names)
            else:
                yield from named or [target]


def modules() -> dict[str, tuple[str, Path]]:
    """Every module of every package, subpackages included: name -> (package, file)."""
    found = {}
    for package, (folder, _) in LAYERS.items():
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            found[module_name(path, package)] = (package, path)
    return found


def test_every_package_folder_is_in_the_table() -> None:
    packages = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    python = {name: folder for name, folder in packages.items() if "." not in name}  # not the data packages
    assert python == {name: folder for name, (folder, _) in LAYERS.items()}, "a package was added or moved: give it a layer"


def import_graph(known: dict[str, tuple[str, Path]]) -> dict[str, list[str]]:
    names = set(known)
    return {name: sorted({t for t in imports(path, package, names) if t in known and t != name})
            for name, (package, path) in known.items()}


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
    graph = import_graph(known)
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


def test_the_walk_reads_every_subpackage_and_names_the_modules_imported_from_a_package() -> None:
    """Subpackages are read (a walk of top-level files alone would go silent on them), and `from pkg import
    module` is an edge to that module, not to the package."""
    known = modules()
    assert {"roofline_course.sandbox.run", "roofline_course.intake.submission", "roofline_course.cohort.grade_all"} <= set(known)
    graph = import_graph(known)
    assert "roofline_course.design_lab.grade" in graph["roofline_course.grade"]
    assert "roofline_course.sandbox.run" in graph["roofline_course.sandbox"]


def test_the_course_kit_stands_on_at_most_six_floors_and_its_rooms_import_only_downwards() -> None:
    """The course kit reads top-down. Its rooms are its subpackages (intake, sandbox, design_lab ...) and its
    top-level modules; no room imports a room that imports it back, and no chain of rooms is taller than six."""
    rooms: dict[str, set[str]] = {}
    for name, targets in import_graph(modules()).items():
        if name.startswith("roofline_course."):
            room = ".".join(name.split(".")[:2])
            rooms.setdefault(room, set()).update(".".join(t.split(".")[:2]) for t in targets
                                                 if t.startswith("roofline_course.") and not t.startswith(room + "."))
            rooms[room].discard(room)
    found: dict[str, int] = {}

    def floor(room: str, path: tuple[str, ...] = ()) -> int:
        assert room not in path, "rooms that import each other: " + " -> ".join([*path, room])
        if room not in found:
            found[room] = 1 + max((floor(t, (*path, room)) for t in rooms.get(room, ())), default=0)
        return found[room]

    tallest = max(floor(room) for room in rooms)
    assert tallest <= 6, f"{tallest} floors: " + ", ".join(sorted(r for r, f in found.items() if f == tallest))


def test_the_check_sees_a_cycle_and_an_upward_edge(tmp_path: Path) -> None:
    """The walk above finds what it looks for: a planted relative cycle and an upward import."""
    (tmp_path / "a.py").write_text("from .b import x\nfrom roofline_cli import main\n")
    (tmp_path / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    assert list(imports(tmp_path / "a.py", "roofline_core")) == ["roofline_core.b", "roofline_cli"]
    assert list(imports(tmp_path / "b.py", "roofline_core")) == ["typing", "roofline_core.a"]


def test_every_package_map_names_its_own_modules_and_no_other() -> None:
    """A package's docstring maps its modules, one bullet each (`- \\`name\\`: ...`): a map that lists a
    module the package no longer holds, or leaves one out, is stale."""
    stale = []
    for folder, _ in LAYERS.values():
        for init in sorted((REPO_ROOT / folder).rglob("__init__.py")):
            doc = ast.get_docstring(ast.parse(init.read_text())) or ""
            bullets = [line for line in doc.splitlines() if line.startswith("- `")]
            if not bullets:
                continue
            named = {name for line in bullets for name in re.findall(r"`(\w+)`", line.split(":", 1)[0])}
            held = {path.stem for path in init.parent.glob("*.py") if path.stem != "__init__"}
            held |= {path.name for path in init.parent.iterdir() if (path / "__init__.py").is_file()}
            if named != held:
                stale.append(f"{init.relative_to(REPO_ROOT)}: names {sorted(named - held)} it does not hold, "
                             f"leaves out {sorted(held - named)}")
    assert not stale, "\n".join(stale)
