"""NodeResourcesBalancedAllocation: PreScore Skip for best-effort pods and the std-dev score."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from scheduler_core.config.types import NodeResourcesBalancedAllocationArgs, ResourceSpec
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, SUCCESS
from scheduler_core.framework.types import NodeInfo
from scheduler_core.loop.cluster import apply_api_defaults
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins.node_resources import balanced_allocation as ba


def container(**requests: str) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "c", "image": "pause"}
    if requests:
        c["resources"] = {"requests": requests}
    return c


def pod(c: dict[str, Any], *, name: str = "p", node: str = "") -> Pod:
    raw: dict[str, Any] = {"metadata": {"name": name}, "spec": {"containers": [c]}}
    if node:
        raw["spec"]["nodeName"] = node
    return Pod(apply_api_defaults(raw))


def node_info(allocatable: dict[str, str], *pods: Pod, name: str = "n1") -> NodeInfo:
    ni = NodeInfo(Node({"metadata": {"name": name}, "status": {"allocatable": allocatable}}))
    for p in pods:
        ni.add_pod(p)
    return ni


NODE = {"cpu": "4", "memory": "10000", "pods": "32"}
GPU_NODE = {**NODE, "nvidia.com/gpu": "4"}


def args(*names: str) -> NodeResourcesBalancedAllocationArgs:
    if not names:
        return NodeResourcesBalancedAllocationArgs()
    return NodeResourcesBalancedAllocationArgs(tuple(ResourceSpec(n, 1) for n in names))


def run(a: NodeResourcesBalancedAllocationArgs, p: Pod, nodes: list[NodeInfo]) -> list[int] | None:
    plugin = ba.BalancedAllocation(a)
    state = CycleState()
    status = plugin.pre_score(state, p, nodes)  # type: ignore[arg-type]
    if status == SKIP:
        return None
    assert status == SUCCESS
    columns, status = plugin.score_columns(state, p, nodes)  # type: ignore[arg-type]
    got = columns.tolist()
    assert status == SUCCESS
    assert [plugin.score(state, p, ni)[0] for ni in nodes] == got  # type: ignore[arg-type]
    return got


@pytest.mark.parametrize(
    ("a", "p", "nodes", "expected"),
    [
        pytest.param(args(), pod(container()), [node_info(NODE)], None, id="best-effort-skipped"),
        pytest.param(
            args(),
            pod(container(cpu="1", memory="5000")),
            [node_info(NODE)],
            [int((1 - abs(0.25 - 0.5) / 2) * 100)],
            id="two-resources-half-difference",
        ),
        pytest.param(
            args(),
            pod(container(cpu="2", memory="5000")),
            [node_info(NODE)],
            [100],
            id="balanced-node-scores-max",
        ),
        pytest.param(
            args(),
            pod(container(cpu="8", memory="5000")),
            [node_info(NODE), node_info({**NODE, "memory": "2500"}, name="n2")],
            [int((1 - (1 - 0.5) / 2) * 100), 100],
            id="fractions-capped-at-one",
        ),
        pytest.param(
            args(),
            pod(container(cpu="1", memory="5000")),
            [node_info({"cpu": "4", "pods": "32"})],
            [100],
            id="single-fraction-has-no-deviation",
        ),
        pytest.param(
            args(),
            pod(container(cpu="1", memory="5000")),
            [node_info(NODE, pod(container(cpu="1"), name="e", node="n1"))],
            [int((1 - abs(0.5 - 0.5) / 2) * 100)],
            id="existing-requests-count-plainly",
        ),
        pytest.param(
            args("cpu", "memory", "nvidia.com/gpu"),
            pod(container(cpu="1", memory="5000", **{"nvidia.com/gpu": "1"})),
            [node_info(GPU_NODE), node_info(NODE, name="n2")],
            [
                int(
                    (
                        1
                        - math.sqrt(
                            ((0.25 - 1 / 3) ** 2 + (0.5 - 1 / 3) ** 2 + (0.25 - 1 / 3) ** 2) / 3
                        )
                    )
                    * 100
                ),
                int((1 - 0.125) * 100),
            ],
            id="three-resources-standard-deviation",
        ),
        pytest.param(
            args("cpu", "memory", "nvidia.com/gpu"),
            pod(container(cpu="1", memory="5000")),
            [node_info(GPU_NODE)],
            [int((1 - 0.125) * 100)],
            id="unrequested-scalar-ignored",
        ),
        pytest.param(
            args("nvidia.com/gpu"),
            pod(container(cpu="1", memory="5000")),
            [node_info(GPU_NODE)],
            None,
            id="best-effort-for-configured-resources",
        ),
    ],
)
def test_score(
    a: NodeResourcesBalancedAllocationArgs,
    p: Pod,
    nodes: list[NodeInfo],
    expected: list[int] | None,
) -> None:
    assert run(a, p, nodes) == expected


def test_score_without_pre_score_gives_best_effort_zero() -> None:
    plugin = ba.new(None, None)  # type: ignore[arg-type]
    assert plugin.score(CycleState(), pod(container()), node_info(NODE)) == (0, SUCCESS)


def balanced_reference(reqs: list[int], caps: list[int]) -> int:
    """balancedResourceScorer as upstream writes it, one node at a time."""
    fractions = [min(float(r) / float(c), 1.0) for r, c in zip(reqs, caps, strict=True) if c]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / len(fractions))
    return int((1 - std) * 100)


def test_scores_over_many_nodes_equal_upstreams_formula_node_by_node() -> None:
    """Two and three resources, some absent on a node (capacity 0), some exceeded."""
    amounts = (0, 1, 7, 999, 1000, 1001, 3000)
    rows = list(itertools.product(amounts, repeat=6))[::7]
    got = ba.balanced_scores(
        [np.array([r[i] for r in rows]) for i in range(3)],
        [np.array([r[3 + i] for r in rows]) for i in range(3)],
    ).tolist()
    assert got == [balanced_reference(list(r[:3]), list(r[3:])) for r in rows]
    two = ba.balanced_scores(
        [np.array([r[0] for r in rows]), np.array([r[1] for r in rows])],
        [np.array([r[3] for r in rows]), np.array([r[4] for r in rows])],
    ).tolist()
    assert two == [balanced_reference([r[0], r[1]], [r[3], r[4]]) for r in rows]
