"""The in-tree registry: one factory per module in IN_TREE_MODULES, and no silent gaps."""

from __future__ import annotations

import pytest

from scheduler_core import plugins
from scheduler_core.plugins import in_tree_registry, names


def test_every_in_tree_module_registers_its_plugin() -> None:
    reg = in_tree_registry()
    assert list(reg) == list(plugins.IN_TREE_MODULES)
    assert names.INTER_POD_AFFINITY in reg
    assert reg[names.VOLUME_BINDING].__module__ == "scheduler_core.plugins.volume_binding.plugin"


def test_a_plugin_module_that_fails_to_import_fails_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(plugins.IN_TREE_MODULES, "Missing", "not_written_yet")
    with pytest.raises(ModuleNotFoundError, match="scheduler_core.plugins.not_written_yet"):
        in_tree_registry()
