"""A batch of one reads as lanes (numpy scalars): the same label ids, numbers and verdicts as
the batch over every node, with and without the snapshot's columns."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.columns import (
    LabelColumn,
    NodeMasks,
    label_ids,
    label_lanes,
    lanes,
    true_rows,
)
from scheduler_core.framework.types import NodeInfo, Snapshot
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
)
from scheduler_core.objects.labels import label_selector

ZONE = "topology.kubernetes.io/zone"


def infos() -> list[NodeInfo]:
    zones = ["a", "b", None, "a", "c"]
    out = []
    for i, zone in enumerate(zones):
        labels = {"kubernetes.io/hostname": f"n{i}"}
        if zone is not None:
            labels[ZONE] = zone
        out.append(NodeInfo(Node({"metadata": {"name": f"n{i}", "labels": labels}})))
    return out


def test_a_lone_node_reads_what_the_batch_reads_without_columns() -> None:
    nodes = infos()
    counts = {"a": 3, "c": 1, "z": 9}
    column, ids = label_ids(nodes, ZONE)
    batch = column.read(counts, ids).tolist()
    assert batch == [3, 0, 0, 3, 1]
    assert column.table(counts, 0, 0, np.int64)[ids + 1].tolist() == batch
    for i, ni in enumerate(nodes):
        one, lone = label_lanes([ni], ZONE)
        assert lone.ndim == 0 and bool(lone >= 0) == (ids[i] >= 0)
        assert one.read(counts, lone) == batch[i]
        # A column over one node walks itself rather than the counts; the same numbers.
        alone = LabelColumn(ZONE, [ni])
        assert alone.table(counts, 0, 0, np.int64)[alone.ids + 1].tolist() == [batch[i]]


def test_a_lone_node_reads_the_snapshots_column() -> None:
    nodes = infos()
    Snapshot(nodes, ClusterObjects())
    assert nodes[0].columns is not None
    column, ids = label_ids(nodes, ZONE)
    for i, ni in enumerate(nodes):
        one, lone = label_lanes([ni], ZONE)
        assert one is column and lone == ids[i]
        assert one.read({"b": 2}, lone) == (2 if i == 1 else 0)


def test_lanes_combine_as_arrays_and_give_their_true_rows() -> None:
    assert true_rows(lanes(1, True)) == [0]
    assert true_rows(lanes(1, False)) == []
    assert true_rows(~lanes(1, False) & lanes(1, True)) == [0]
    assert true_rows(lanes(3, True)) == [0, 1, 2]
    mask = lanes(4, False)
    mask[2] = True
    assert true_rows(~mask) == [0, 1, 3]
    nodes = infos()
    selector = label_selector({"matchLabels": {ZONE: "a"}})
    whole = true_rows(NodeMasks(nodes).selector(selector))
    assert whole == [0, 3]
    assert [i for i, ni in enumerate(nodes) if true_rows(NodeMasks([ni]).selector(selector))] == [
        0,
        3,
    ]
