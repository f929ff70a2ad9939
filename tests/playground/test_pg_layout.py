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
