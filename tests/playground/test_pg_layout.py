"""The playground's layout rules, checked on its source: each package's docstring is a true map
of its modules, and no flat package grows past a handful of modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "playground"
# A map entry: a list item naming a module (``name``) or a sub-package (``name/``), then a colon.
ENTRY = re.compile(r"^- ``(?P<name>\w+/?)``", re.MULTILINE)
MAX_MODULES = 15


def packages(root: Path = ROOT) -> list[Path]:
    """Every package of the app (migrations excepted: Django names those modules)."""
    return sorted(
        p.parent for p in root.rglob("__init__.py") if "migrations" not in p.relative_to(root).parts
    )


def members(package: Path) -> set[str]:
    """The modules (``name``) and sub-packages (``name/``) a package's map must list."""
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    subpackages = {f"{p.parent.name}/" for p in package.glob("*/__init__.py")}
    return modules | subpackages


def mapped(package: Path) -> list[str]:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    return ENTRY.findall(docstring)


@pytest.mark.parametrize("package", packages(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_each_package_docstring_maps_exactly_its_modules(package):
    listed = mapped(package)
    assert len(listed) == len(set(listed)), f"{package}: a module is listed twice"
    actual = members(package)
    assert sorted(actual - set(listed)) == [], f"{package}: modules missing from the map"
    assert sorted(set(listed) - actual) == [], f"{package}: the map names modules that are gone"


@pytest.mark.parametrize("package", packages(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_package_is_flat_past_a_handful_of_modules(package):
    modules = [m for m in members(package) if not m.endswith("/")]
    assert len(modules) <= MAX_MODULES, f"{package}: {len(modules)} modules; group them"


def test_the_map_check_sees_a_missing_and_a_stale_entry(tmp_path):
    """The checks above fail on a package whose map and modules disagree (both ways)."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text(
        '"""Map.\n\n- ``kept``: here;\n- ``gone``: removed.\n"""\n'
    )
    (package / "kept.py").write_text('"""Kept."""\n')
    (package / "new.py").write_text('"""New."""\n')
    (package / "sub" / "__init__.py").write_text('"""Sub."""\n')
    assert packages(tmp_path) == [package, package / "sub"]
    assert members(package) - set(mapped(package)) == {"new", "sub/"}
    assert set(mapped(package)) - members(package) == {"gone"}


# -- imports between features run one way ------------------------------------------------------

# From the bottom up: a unit may import from its own layer and the layers below, never above.
# Root modules are placed one by one: those below every feature (the shared models, inputs,
# throttles, the engine adapter) and those above (pages, routes, the Celery and admin hooks).
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"inputs", "owned", "responses", "throttle", "plugins"}),
    frozenset({"models", "engine", "selectors", "forms"}),
    frozenset({"custom_plugins", "clusters"}),
    frozenset({"dra", "profiles"}),
    frozenset({"runs"}),
    frozenset({"lessons"}),
    frozenset({"classes"}),
    frozenset({"demo", "management", "views", "urls", "routing", "admin", "tasks", "apps"}),
)


def unit_of(parts: tuple[str, ...]) -> str:
    """The layer unit a module belongs to: its feature package, or a root module by name."""
    return parts[0]


def layer_of(unit: str) -> int:
    found = [i for i, layer in enumerate(LAYERS) if unit in layer]
    assert found, f"{unit}: not placed in a layer of tests/playground/test_pg_layout.py"
    return found[0]


def imported_units(path: Path, root: Path = ROOT) -> set[tuple[str, int]]:
    """The playground units a module imports (deferred imports included), with their lines."""
    package = list(path.relative_to(root.parent).with_suffix("").parts)[:-1]
    out: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = [*base, *(node.module.split(".") if node.module else [])]
            else:
                module = (node.module or "").split(".")
            targets = [[*module, alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name.split(".") for alias in node.names]
        else:
            continue
        for target in targets:
            if target[0] == root.name and len(target) > 1:
                out.add((target[1], node.lineno))
    return out


def upward_imports(root: Path = ROOT) -> list[str]:
    """Every import of a unit from a higher layer: ``file:line unit -> unit``. The root
    ``models`` is exempt: it re-exports every feature's models for Django."""
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "migrations" in parts or parts == ("__init__",):
            continue
        here = unit_of(parts)
        for unit, line in sorted(imported_units(path, root)):
            if unit == here or parts == ("models",):
                continue
            if layer_of(unit) > layer_of(here):
                found.append(f"{path.relative_to(root)}:{line} {here} -> {unit}")
    return found


def test_imports_between_features_run_one_way():
    assert upward_imports() == []


def test_the_direction_check_sees_an_upward_import(tmp_path):
    app = tmp_path / "playground"
    (app / "runs").mkdir(parents=True)
    (app / "lessons").mkdir()
    (app / "runs" / "__init__.py").write_text("")
    (app / "lessons" / "__init__.py").write_text("")
    (app / "runs" / "attempt.py").write_text("def go():\n    from ..lessons import loader\n")
    (app / "lessons" / "loader.py").write_text("from ..runs import attempt\n")
    assert upward_imports(app) == ["runs/attempt.py:2 runs -> lessons"]


def test_the_tests_mirror_the_feature_packages():
    """tests/playground/<feature>/ holds a feature's tests; the folder names a real package."""
    tests = Path(__file__).resolve().parent
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    features = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert folders and folders <= features, sorted(folders - features)
