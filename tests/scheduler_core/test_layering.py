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
