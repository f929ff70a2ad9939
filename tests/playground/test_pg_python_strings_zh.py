"""The web app's Python strings in Simplified Chinese: form errors, run sentences, chart titles.

English stays the source text, unchanged; the engine's own messages stay in upstream's English
in both languages, with a short Chinese note before them in Chinese.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from playground import engine
from playground.clusters.node_forms import NodeForm
from playground.runs.execution.limits import anonymous_refusal
from playground.runs.panels import compare, verdicts
from playground.runs.panels.sampling import sampling_sentence

SAMPLING = {
    "rule": "percentage",
    "evaluated": 231,
    "candidates": 500,
    "cluster_nodes": 500,
    "to_find": 230,
    "percentage": 46,
    "adaptive": True,
    "source": "global",
    "start_index": 0,
    "next_start_index": 230,
}
NODES = [f"node-{i:03d}" for i in range(500)]


def _node_errors(language: str) -> tuple[str, dict[str, list[str]]]:
    with translation.override(language):
        form = NodeForm({"name": "node-1", "mode": "form", "taints": "gpu=true:Nope"})
        assert not form.is_valid()
        return str(form["taints"].label), {k: list(v) for k, v in form.errors.items()}


def test_a_form_error_names_its_line_and_field_in_chinese_and_keeps_english():
    label, errors = _node_errors("zh-hans")
    assert label == "污点"
    assert errors["taints"] == [
        # the ordinal unbroken (no line break inside 第 1 行), the effects listed with 、
        "第\u00a01\u00a0行：效果 'Nope' 不是 NoSchedule、PreferNoSchedule、NoExecute 之一"
    ]
    label, errors = _node_errors("en")
    assert label == "Taints"
    assert errors["taints"] == [
        "line 1: effect 'Nope' is not one of NoSchedule, PreferNoSchedule, NoExecute"
    ]


def test_the_sampling_sentence_reads_in_chinese_with_its_numbers():
    with translation.override("zh-hans"):
        text = sampling_sentence(SAMPLING, NODES)
    assert text == (
        "Filter 评估了 500 个节点中的 231 个，目标是找到 230 个可行节点："
        "percentageOfNodesToScore 为 0（未设置：自适应默认值），因此 50 − 500/125 = 46 %，"
        "且 500 × 46 % = 230。遍历从位置 0（node-000）开始，即上一个周期停下的地方（位置从 0 "
        "计数）；下一个周期从位置 230（node-230）开始。上游用 16 个并行工作者遍历节点，"
        "找够数量后就让它们停下，所以它保留哪些节点、检查了多少个节点，"
        "都可能与本 playground 按顺序的遍历不同。"
    )
    assert sampling_sentence(SAMPLING, NODES).startswith(
        "Filter evaluated 231 of 500 nodes, looking for 230 feasible:"
    )


def test_the_winner_sentence_and_the_chart_titles_follow_the_language():
    table = {
        "selected": "b",
        "scored": True,
        "plugins": ["NodeAffinity"],
        "nodes": ["a", "b"],
        "top": ["b"],
        "totals": [100, 300],
        "weights": [2],
        "values": {"weighted": [[100], [300]]},
    }
    with translation.override("zh-hans"):
        assert verdicts.winner_explanation(table)["text"] == (
            "b 以 200 分之差胜过 a（300 比 100）：NodeAffinity +200。"
        )
        chart = compare.pods_per_node_figure({"rows": []}, "A", "B")
        assert chart["layout"]["title"]["text"] == "每次运行后各节点上的 Pod 数"
    assert verdicts.winner_explanation(table)["text"] == (
        "b won by 200 over a (300 to 100): NodeAffinity +200."
    )


@pytest.mark.django_db
def test_a_refusal_to_start_a_run_reads_in_chinese():
    session = {"anonymous_run_starts": [1000.0 + i for i in range(10)]}
    with translation.override("zh-hans"):
        text = anonymous_refusal(session, now=1600.0)
    assert text.startswith("无法开始运行：此浏览器在过去一小时内已开始 10 次运行")
    assert "50 分钟后重试" in text
    assert anonymous_refusal(session, now=1600.0).startswith(
        "cannot start a run: this browser started 10 runs in the last hour"
    )


def test_an_engine_message_stays_english_with_a_chinese_note_before_it():
    message = 'profiles[0].plugins.score.enabled[0]: Invalid value: "X": plugin "X" does not exist'
    with translation.override("zh-hans"):
        assert engine.explained_problem(message) == f"配置无效（kube-scheduler 原文）：{message}"
    assert engine.explained_problem(message) == message


@pytest.mark.django_db
def test_the_home_page_names_the_demo_clusters_and_profiles_in_the_visitors_language(client):
    from playground.demo import demo_load

    demo_load()
    chinese = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "三个可用区" in chinese and "被污点保护的 GPU 池" in chinese
    assert "装箱（Bin-packing）" in chinese
    assert "Three zones" not in chinese
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Three zones" in english and "三个可用区" not in english
    # the course's own clusters and configurations by their lesson's Chinese title
    assert "第\u00a01\u00a0课：调度周期一览" in chinese
    assert "第\u00a08\u00a0课的调度方案：" in chinese and "The profile of lesson 8" not in chinese
    assert "Lesson 01: The scheduling cycle at a glance" in english


@pytest.mark.django_db
def test_a_demo_clusters_page_names_it_and_the_profiles_in_the_visitors_language(
    client, django_user_model
):
    from playground.demo import demo_load
    from playground.models import Cluster

    demo_load()
    client.force_login(django_user_model.objects.create_user("reader", password="unused-pw-1"))
    cluster = Cluster.objects.get(name="Three zones", is_demo=True)
    chinese = client.get(f"/clusters/{cluster.pk}/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert '<h1 id="cluster-name">三个可用区 ' in chinese
    assert ">默认</option>" in chinese and ">装箱（Bin-packing）</option>" in chinese
    english = client.get(f"/clusters/{cluster.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<h1 id="cluster-name">Three zones ' in english and ">Default</option>" in english


def test_a_cycles_fit_error_stays_english_behind_a_chinese_note():
    from playground.runs.panels import charts

    end = {"type": "CycleEnd", "seq": 9, "result": "Unschedulable"}
    end["message"] = "0/3 nodes are available: 3 Insufficient cpu."
    with translation.override("zh-hans"):
        why = charts.steps([{"type": "CycleStart", "seq": 1, "nodes": []}, end])[-1]["why"]
    assert why == "没有节点能容纳此 Pod（kube-scheduler 原文）：" + end["message"]
    assert charts.steps([end])[-1]["why"] == "0/3 nodes are available: 3 Insufficient cpu."


def test_the_approval_gate_profile_names_the_annotation_its_pods_carry():
    from playground import demo

    description = next(d for name, d, _ in demo.PROFILES if name == "Approval gate")
    assert f'{demo.APPROVAL_ANNOTATION}: "true"' in description


def test_a_cluster_change_reads_as_the_script_list_says_it_in_each_language():
    """The run page's "what happened" list and the script list above it say a change alike."""
    from playground.runs.execution.script import parse_script
    from playground.runs.panels.changes import describe

    step = parse_script([{"after_cycle": 1, "delete_pod": "web"}])[0]
    with translation.override("zh-hans"):
        assert describe({"pod": "default/web", "action": "delete"}) == step.describe()
        assert describe({"node": "n4", "action": "add"}) == "添加了节点 n4"
        assert describe({"node": "n4", "action": "update"}) == "更新了节点 n4"
    with translation.override("en"):
        assert describe({"node": "n4", "action": "remove"}) == "node n4 removed"
        assert describe({"pod": "default/web", "action": "update"}) == "pod default/web updated"
        assert describe({"node": "n4", "action": "evict"}) == "node n4 evict"


def test_one_english_word_with_two_meanings_gets_each_its_chinese():
    """ "Pods" heads the home page's list of pods (Pod) and labels a node's allocatable pod count
    (Pod 数): the form's label has its own context, so neither catalog overrides the other."""
    with translation.override("zh-hans"):
        assert translation.gettext("Pods") == "Pod"
        form = NodeForm()
        assert form.fields["pods"].label == "Pod 数"
        assert form.fields["unschedulable"].help_text == "已封锁（cordoned）"
        assert translation.gettext("cordoned") == "已封锁（cordoned）"
    with translation.override("en"):
        assert NodeForm().fields["pods"].label == "Pods"


@pytest.mark.parametrize(("language", "comma"), [("zh-hans", "、"), ("en", ", ")])
def test_lists_a_sentence_builds_use_the_languages_enumeration_comma(language, comma):
    from playground.runs.panels import step_text

    post_filter = {
        "type": "PostFilter",
        "nominated_node": "n1",
        "victims": ["low-1", "low-2"],
        "candidates": ["n1", "n2"],
    }
    with translation.override(language):
        assert f"low-1{comma}low-2" in step_text.why(post_filter, ["n1", "n2"])
        assert verdicts._tied(["n1", "n2", "n3"]) == f"n1{comma}n2{comma}n3"


def test_kubernetes_validation_messages_are_glossed_in_chinese_and_left_alone_in_english():
    data = {"name": "Node_1", "mode": "form", "labels": "bad key!=v", "cpu": "lots"}
    with translation.override("zh-hans"):
        form = NodeForm(data)
        assert not form.is_valid()
        zh = {k: list(v) for k, v in form.errors.items()}
    with translation.override("en"):
        form = NodeForm(data)
        assert not form.is_valid()
        en = {k: list(v) for k, v in form.errors.items()}
    # the gloss first, then upstream's words, labelled as Kubernetes' own
    assert zh["name"][0].startswith("名称只能包含小写字母")
    assert zh["name"][0].endswith(f"（Kubernetes 原文：{en['name'][0]}）")
    assert "标签键的名称部分" in zh["labels"][0] and "name part must consist" in zh["labels"][0]
    assert zh["cpu"][0].startswith("数量应写成数字加可选的单位")
    assert en["cpu"] == ["invalid quantity 'lots': quantities must match the regular expression"]
    assert en["name"][0].startswith("a lowercase RFC 1123 subdomain must consist")


def test_the_run_page_knows_the_approval_gates_own_words():
    """run_words.js translates the playground's own Permit words by their text: the same text."""
    from pathlib import Path

    from playground.plugins import WAIT_REASON
    from playground.runs.execution.tape import REJECTED_BY_USER

    script = (Path(__file__).resolve().parents[2] / "static/playground/run_words.js").read_text()
    for said in (WAIT_REASON, REJECTED_BY_USER):
        assert f'gettext("{said}")' in script, said


@pytest.mark.django_db
def test_run_headers_name_a_demo_cluster_and_profile_in_the_readers_language(django_user_model):
    """What the run page and the compare page head with: shown_name and profile_label."""
    from types import SimpleNamespace

    from playground.demo import demo_load
    from playground.models import Cluster, Profile
    from playground.runs.selectors import profile_label

    demo_load()
    cluster = Cluster.objects.get(name="Three zones", is_demo=True)
    profile = Profile.objects.get(name="Default", is_demo=True)
    mine = Cluster(name="Default", is_demo=False)  # a user's name stays as typed
    run = SimpleNamespace(profile=profile)
    with translation.override("zh-hans"):
        assert (cluster.shown_name, mine.shown_name) == ("三个可用区", "Default")
        assert profile_label(user=None, run=run) == ("默认", True)
    assert cluster.shown_name == "Three zones" and profile_label(user=None, run=run)[0] == "Default"


@pytest.mark.parametrize(
    ("score", "zh", "en"),
    [
        (
            [{"name": "TaintToleration", "weight": -2}, {"name": "NodeAffinity", "weight": 5}],
            "TaintToleration 的权重 -2：kube-scheduler v1.35 在这里拒绝它",
            "weight -2 of TaintToleration: kube-scheduler v1.35 refuses it here",
        ),
    ],
)
def test_the_playgrounds_own_score_overflow_words_are_not_labelled_as_kube_schedulers(
    score, zh, en
):
    """The weight checks' explanations are the playground's sentences: in Chinese they read in
    Chinese, upstream's own message inside them labelled; never as 配置无效（kube-scheduler
    原文）： before English."""
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {"schedulerName": "default-scheduler", "plugins": {"score": {"enabled": score}}}
        ],
    }
    said = {}
    for language in ("zh-hans", "en"):
        with translation.override(language):
            said[language] = [p.said() for p in engine.evaluate_config(config).problems]
    assert len(said["zh-hans"]) == 1, said
    assert zh in said["zh-hans"][0] and "配置无效" not in said["zh-hans"][0]
    assert (
        "（kube-scheduler 原文：total score of Score plugins could overflow）" in said["zh-hans"][0]
    )
    assert en in said["en"][0]
