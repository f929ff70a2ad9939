"""Import and YAML-pane errors of clusters, nodes and pods in Chinese (issue 35, item 5): where a
problem is Kubernetes' own (names, label keys, quantities, required or unsupported values) or the
YAML reader's (broken YAML), a short Chinese gloss comes first and upstream's English follows,
labelled as such, as the node and pod forms and the profile form already do; the playground's own
words (no objects, an unknown kind, where the problem is) are Chinese. The English page is as
it was: the message alone, "document 1, line 4: ...".
"""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from playground.clusters import services as cluster_services

pytestmark = pytest.mark.django_db

BAD_NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: Node_1
  labels: {'bad key!': v}
status: {allocatable: {cpu: lots}}
"""
BROKEN = "apiVersion: v1\nkind: Node\nmetadata: {name: a\n"
NO_KIND = "apiVersion: v1\nmetadata: {name: a}\n"
UNKNOWN_KIND = "apiVersion: v1\nkind: Foo\nmetadata: {name: a}\n"


def _errors(client, user, text: str, language: str) -> str:
    cluster = cluster_services.cluster_create(owner=user, name="mine")
    response = client.post(
        reverse("playground:cluster_import", args=[cluster.pk]),
        {"manifests": text},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    return _text(response)


def _text(response) -> str:
    """The page's text, its no-break spaces ("第 1 行" kept on one line) read as spaces."""
    return html.unescape(response.content.decode()).replace("\xa0", " ")


def test_kubernetes_messages_of_an_import_are_glossed_and_labelled_in_chinese(alice_client, user):
    page = _errors(alice_client, user, BAD_NODE, "zh-hans")
    # where: the playground's own words
    assert "第 1 个文档第 4 行：metadata.name：名称只能包含小写字母" in page
    # the gloss, then upstream's English labelled as Kubernetes' words
    assert "（Kubernetes 原文：Invalid value: 'Node_1': a lowercase RFC 1123 subdomain" in page
    assert "标签键的名称部分" in page
    assert "（Kubernetes 原文：Invalid value: 'bad key!': name part must consist" in page
    assert "status.allocatable.cpu：数量应写成数字加可选的单位" in page
    assert "（Kubernetes 原文：invalid quantity 'lots'" in page
    assert "document 1" not in page


def test_the_english_import_page_shows_upstreams_message_alone(alice_client, user):
    page = _errors(alice_client, user, BAD_NODE, "en")
    assert (
        "document 1, line 4: metadata.name: Invalid value: 'Node_1': a lowercase RFC 1123 "
        "subdomain must consist"
    ) in page
    assert "status.allocatable.cpu: invalid quantity 'lots'" in page
    assert "Kubernetes:" not in page and "原文" not in page


@pytest.mark.parametrize(
    ("text", "zh", "en"),
    [
        (
            BROKEN,
            "第 3 行：YAML 写法有误（YAML 解析器原文：expected ',' or '}'",
            "line 3: invalid YAML: expected ',' or '}'",
        ),
        (
            NO_KIND,
            "kind：缺少必填字段（Kubernetes 原文：Required value: every object needs a kind）",
            "kind: Required value: every object needs a kind",
        ),
        ("# nothing\n", "没有找到 Kubernetes 对象", "no Kubernetes objects found"),
        ("a:\n\tb: 1\n", "第 2 行：YAML 的缩进不能用制表符", "line 2: tab characters"),
    ],
)
def test_broken_yaml_and_a_missing_kind_read_in_chinese(alice_client, user, text, zh, en):
    assert zh in _errors(alice_client, user, text, "zh-hans")
    assert en in _errors(alice_client, user, text, "en")


def test_an_unknown_kind_is_skipped_with_a_chinese_note(alice_client, user):
    cluster = cluster_services.cluster_create(owner=user, name="mine")
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]),
        {"manifests": UNKNOWN_KIND},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
        follow=True,
    )
    page = _text(response)
    assert "第 1 个文档第 2 行：kind：playground 不模拟类型 'Foo'；已跳过" in page


def test_the_node_forms_yaml_pane_glosses_the_same_way(alice_client, user):
    cluster = cluster_services.cluster_create(owner=user, name="mine")
    response = alice_client.post(
        reverse("playground:node_new", args=[cluster.pk]),
        {"mode": "yaml", "manifest_yaml": BAD_NODE, "count": "1"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    page = _text(response)
    assert "metadata.name：名称只能包含小写字母" in page
    assert "（Kubernetes 原文：Invalid value: 'Node_1'" in page
    response = alice_client.post(
        reverse("playground:pod_new", args=[cluster.pk]),
        {"mode": "yaml", "manifest_yaml": BROKEN.replace("Node", "Pod")},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert "YAML 写法有误（YAML 解析器原文：" in _text(response)


def test_a_device_pools_memory_is_glossed_like_a_nodes(alice_client, user):
    cluster = cluster_services.cluster_create(owner=user, name="mine")
    data = {"driver": "gpu.example.com", "model": "a100", "memory": "lots", "count": "1"}
    zh = _text(
        alice_client.post(
            reverse("playground:device_pool_new", args=[cluster.pk]),
            data,
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )
    )
    assert "4Gi（Kubernetes 原文：invalid quantity" in zh and zh.count("数量应写成数字加") == 1
    en = _text(
        alice_client.post(
            reverse("playground:device_pool_new", args=[cluster.pk]),
            data,
            HTTP_ACCEPT_LANGUAGE="en",
        )
    )
    assert "invalid quantity 'lots'" in en and "Kubernetes" not in en
