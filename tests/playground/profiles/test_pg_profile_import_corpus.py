"""The "Import an older configuration" page converts the public corpus as the CLI does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from playground.profiles.importing import profile_import_preview
from scheduler_core.config.migrate import migrate

pytestmark = pytest.mark.django_db

CORPUS = Path(__file__).parents[2] / "scheduler_core/config/migrate_corpus"
FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".yaml", ".json"))


# What the playground refuses on top of kube-scheduler: extenders on loopback addresses or with
# long timeouts, custom plugins at PostFilter.
PLAYGROUND_LIMITS = {
    "policy-gpushare-extender.json": "extenders[0].urlPrefix: Forbidden: host 127.0.0.1",
    "policy-kubernetes-examples-extender-tabs.json": "extenders[0].urlPrefix: Forbidden",
    "policy-stork-extender.json": "extenders[0].httpTimeout: Invalid value: 300s",
    "v1beta2-scheduler-plugins-capacityscheduling.yaml": "does not extend PostFilterPlugin",
}


@pytest.mark.parametrize("name", FILES)
def test_import_preview_gives_the_cli_conversion(name: str, user: Any) -> None:
    text = (CORPUS / name).read_text()
    preview = profile_import_preview(owner=user, text=text)
    if name in PLAYGROUND_LIMITS:
        (problem,) = preview.problems
        assert PLAYGROUND_LIMITS[name] in problem
    else:
        assert preview.problems == []
    assert preview.config == migrate(text).config
    assert preview.placeholders == list(migrate(text).custom_plugins)


BETA1 = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "Policy", "predicates": ' + "[" * 800 + "]" * 800 + "}",
        '{"kind": "Policy", "predicates": ' + "[" * 10_000 + "]" * 10_000 + "}",
        BETA1 + "profiles: " + "[" * 900 + "]" * 900,
        BETA1 + "profiles: " + "[" * 10_000 + "]" * 10_000,
        '{"kind": "Policy", "apiVersion": "v1", "predicates": 5}',
    ],
    ids=["policy-800", "policy-10000", "config-900", "config-10000", "predicates-5"],
)
def test_malformed_input_is_a_problem_naming_what_is_wrong(text: str, user: Any) -> None:
    preview = profile_import_preview(owner=user, text=text)
    (problem,) = preview.problems
    assert "nested deeper than" in problem or problem == "predicates: must be a list, got number"
    assert preview.config is None


def test_a_later_configuration_is_skipped_as_kube_scheduler_skips_it(user: Any) -> None:
    text = (CORPUS / "v1beta2-website-my-scheduler-multidoc.yaml").read_text()
    preview = profile_import_preview(owner=user, text=text)
    assert preview.ok
    assert preview.changes[-1] == (
        "document 2 (ConfigMap) skipped: kube-scheduler reads the first configuration of a file"
    )
