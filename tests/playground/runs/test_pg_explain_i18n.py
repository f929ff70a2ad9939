"""The explanation view in the reader's language: the engine's sentences through Django's
gettext (the catalog scheduler_core/locale), upstream's reasons in English with a note beside."""

from __future__ import annotations

import pytest
from builders import make_node, make_pod, record_run
from django.urls import reverse
from django.utils import translation

from playground.clusters import services
from playground.profiles import services as profile_services
from playground.runs.explain.views import run_explanations

pytestmark = pytest.mark.django_db

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


@pytest.fixture
def run(user):
    cluster = services.cluster_create(owner=user, name="tainted")
    services.node_save(cluster=cluster, user=user, manifest=make_node("n1", taints=[TAINT]))
    services.node_save(cluster=cluster, user=user, manifest=make_node("n2"))
    services.pod_save(cluster=cluster, user=user, manifest=make_pod("p"))
    profile = profile_services.profile_create(
        owner=user, name="default", config={"profiles": [{"schedulerName": "default-scheduler"}]}
    )
    recorded, _, _ = record_run(cluster, profile, user=user)
    return recorded


def _taint_step(client, run, language):
    url = reverse("playground:run_explain", args=[run.pk, 1])
    body = client.get(url, {"node": "n1"}, HTTP_ACCEPT_LANGUAGE=language).json()
    return next(e for e in body["explanations"] if e["plugin"] == "TaintToleration")


def test_in_chinese_the_sentence_is_translated_and_the_reason_stays_with_a_note(alice_client, run):
    step = _taint_step(alice_client, run, "zh-CN,zh;q=0.9")
    assert step["text"] == (
        "TaintToleration 在 n1 上：UnschedulableAndUnresolvable —— node(s) had untolerated "
        "taint(s)。该 Pod 没有任何容忍度能容忍污点 dedicated=gpu:NoSchedule。"
    )
    assert step["value"]["reasons"] == ["node(s) had untolerated taint(s)"]  # as kubectl says
    assert step["reasonNote"] == (
        "该节点有一个 NoSchedule 或 NoExecute 污点，Pod 的任何容忍度都不能容忍它。"
    )


def test_in_english_the_explanation_is_unchanged_and_has_no_note(alice_client, run):
    step = _taint_step(alice_client, run, "en")
    assert step["text"] == (
        "TaintToleration on n1: UnschedulableAndUnresolvable — node(s) had untolerated "
        "taint(s). The taint dedicated=gpu:NoSchedule is not tolerated by any toleration of "
        "the pod."
    )
    assert "reasonNote" not in step


def test_the_active_language_translates_the_selection_and_the_formula(run):
    with translation.override("zh-hans"):
        (chosen,) = run_explanations(run=run, cycle=1, node=None, plugin=None)
        steps = run_explanations(run=run, cycle=1, node="n1", plugin="NodeResourcesFit")
    fit = next(e for e in steps if e["point"] == "Filter")
    assert chosen["text"] == "只有 n2 通过了 Filter，所以不打分直接选中它。"
    assert chosen["formula"] == "只有一个可行节点"
    assert chosen["value"] == {"top": ["n2"], "selected": "n2"}  # the values stay as they are
    assert fit["text"] == (
        "NodeResourcesFit 在 n1 上：通过。（Filter 已在更靠前的插件处停止，所以不需要这个结果。）"
        "请求的每种资源都能放进节点的空闲量。"
    )
    assert "cpu: 100m ≤ 空闲 4000m − 0m = 4000m" in fit["formula"]
    with translation.override("en"):
        (chosen,) = run_explanations(run=run, cycle=1, node=None, plugin=None)
    assert chosen["text"] == "Only n2 passed Filter, so it is chosen without scoring."


def test_preemption_that_would_not_help_has_a_note_for_its_nodes(user):
    cluster = services.cluster_create(owner=user, name="full")
    services.node_save(cluster=cluster, user=user, manifest=make_node("n1", cpu="1"))
    services.pod_save(
        cluster=cluster, user=user, manifest=make_pod("big", cpu="1", node_name="n1", priority=9)
    )
    services.pod_save(cluster=cluster, user=user, manifest=make_pod("p", cpu="1"))
    profile = profile_services.profile_create(
        owner=user, name="default", config={"profiles": [{"schedulerName": "default-scheduler"}]}
    )
    run, _, _ = record_run(cluster, profile, user=user)
    with translation.override("zh-hans"):
        (post,) = run_explanations(run=run, cycle=1, node=None, plugin=None)
    assert post["inputs"]["notCandidates"] == {"n1": "No preemption victims found for incoming pod"}
    assert post["text"] == (
        "抢占对调度没有帮助：在任何节点上驱逐较低优先级的 Pod 都无法让该 Pod 放得下"
        "（No preemption victims found for incoming pod）。"
    )
    assert post["reasonNote"] == "该节点上没有优先级低于该 Pod 的 Pod：没有可以驱逐的对象。"


def test_the_engines_lists_use_the_chinese_enumeration_comma():
    from scheduler_core.words import listed

    with translation.override("zh-hans"):
        assert listed(["n1", "n2"]) == "n1、n2"
    with translation.override("en"):
        assert listed(["n1", "n2"]) == "n1, n2"
