"""Building a Framework: what NewFramework refuses, with upstream's messages."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config import load_config
from scheduler_core.framework.runtime import Framework, FrameworkError
from scheduler_core.plugins import in_tree_registry


def _framework(plugins: dict[str, Any]) -> Framework:
    config = load_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
        }
    )
    return Framework(config.profiles[0], in_tree_registry())


def test_a_plugin_at_a_point_it_does_not_implement_is_refused() -> None:
    with pytest.raises(FrameworkError) as refused:
        _framework({"filter": {"enabled": [{"name": "PrioritySort"}]}})
    assert str(refused.value) == "plugin 'PrioritySort' does not extend FilterPlugin plugin"


def test_the_default_profile_sorts_every_plugin_into_its_points() -> None:
    fw = _framework({})
    assert [p.name for p in fw.queue_sort_plugins] == ["PrioritySort"]
    assert [p.name for p in fw.bind_plugins] == ["DefaultBinder"]
    assert "NodeResourcesFit" in [p.name for p in fw.filter_plugins]
    assert fw.score_weights["TaintToleration"] == 3
