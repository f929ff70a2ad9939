"""The engine's layers: plugins see the framework, not the queue or the loop; packages map their
modules.

Read from the source with ``ast`` (every import statement, module level or inside a function), so
a forbidden import fails here even when it is deferred.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "scheduler_core"

# What a plugin or the framework may not import: the queue, the scheduling loop (preemption/
# was part of it), and the tools that drive the engine.
LOOP_MODULES = (
    "scheduler_core.queue",
    "scheduler_core.preemption",
    "scheduler_core.loop",
    "scheduler_core.tools",
)


def imported_modules(path: Path) -> Iterator[tuple[int, str]]:
    """Each (line, module) an import statement of ``path`` names, at any depth."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def loop_imports(paths: list[Path]) -> list[str]:
    """One line per import statement of ``paths`` that reaches the queue or the loop."""
    bad: dict[str, str] = {}
    for path in paths:
        for line, module in sorted(imported_modules(path)):
            if any(module == m or module.startswith(f"{m}.") for m in LOOP_MODULES):
                bad.setdefault(f"{path}:{line}", f"{path}:{line} imports {module}")
    return list(bad.values())


@pytest.mark.parametrize("layer", ["plugins", "framework"])
def test_plugins_and_framework_do_not_import_the_queue_or_the_loop(layer: str) -> None:
    paths = sorted((ROOT / layer).rglob("*.py"))
    assert paths
    assert loop_imports(paths) == []


def test_the_layering_check_sees_a_deferred_import(tmp_path: Path) -> None:
    plugin = tmp_path / "p.py"
    plugin.write_text(
        "def f():\n    from scheduler_core.queue.heap import Heap\n"
        "from scheduler_core import preemption\n"
    )
    bad = loop_imports([plugin])
    assert len(bad) == 2
    assert bad[0].endswith(":2 imports scheduler_core.queue.heap")
    assert bad[1].endswith(":3 imports scheduler_core.preemption")


def _packages() -> list[Path]:
    return sorted(p.parent for p in ROOT.rglob("__init__.py") if "__pycache__" not in p.parts)


def missing_from_docstring(package: Path) -> list[str]:
    """The modules and sub-packages of ``package`` its ``__init__`` docstring does not name."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    members = [p.stem for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    members += [p.parent.name for p in package.glob("*/__init__.py")]
    return sorted(m for m in members if not re.search(rf"\b{m}\b", doc))


@pytest.mark.parametrize("package", _packages(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_each_package_docstring_names_its_modules(package: Path) -> None:
    assert missing_from_docstring(package) == []


def test_the_docstring_check_sees_a_missing_module(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text('"""Holds alpha and beta_two."""\n')
    (tmp_path / "alpha.py").write_text("")
    (tmp_path / "beta.py").write_text("")
    assert missing_from_docstring(tmp_path) == ["beta"]  # beta_two does not name beta


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports at module level (TYPE_CHECKING blocks and
    function bodies left out: they do not run when the module is imported)."""
    modules = {_module_name(p): p for p in root.rglob("*.py") if "__pycache__" not in p.parts}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str | None] = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                found.update(resolve(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.update(resolve(f"{node.module}.{a.name}") for a in node.names)
        graph[name] = {m for m in found if m is not None and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: each strongly connected group of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_engine_has_no_module_level_import_cycle() -> None:
    # The package's __init__ imports its public API eagerly: a cycle would make what works
    # depend on which module happens to be imported first.
    graph = import_graph(ROOT)
    assert "scheduler_core.loop.scheduler" in graph["scheduler_core"]
    assert cycles(graph) == []


def test_the_cycle_check_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
