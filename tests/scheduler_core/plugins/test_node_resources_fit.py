"""NodeResourcesFit: Filter reasons and codes, PreFilter requests, the scoring strategies."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from scheduler_core.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SUCCESS, Code, Status, unresolvable, unschedulable
from scheduler_core.framework.types import NodeInfo
from scheduler_core.loop.cluster import apply_api_defaults
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins.node_resources import fit
from scheduler_core.plugins.node_resources.least_allocated import least_allocated_scorer
from scheduler_core.plugins.node_resources.most_allocated import most_allocated_scorer
from scheduler_core.plugins.node_resources.resource_allocation import (
    NON_ZERO_DEFAULTS,
    pod_requests,
)
from scheduler_core.plugins.shared.helpers import go_round
from scheduler_core.plugins.shared.shape import FunctionShapePoint, build_broken_linear_function

# -- builders --------------------------------------------------------------------------------


def container(name: str = "c", **requests: str) -> dict[str, Any]:
    c: dict[str, Any] = {"name": name, "image": "pause"}
    if requests:
        c["resources"] = {"requests": {k.replace("_", "-"): v for k, v in requests.items()}}
    return c


def pod(
    *containers: dict[str, Any],
    init: tuple[dict[str, Any], ...] = (),
    node: str = "",
    name: str = "p",
    **spec: Any,
) -> Pod:
    raw: dict[str, Any] = {
        "metadata": {"name": name},
        "spec": {"containers": list(containers) or [container()], **spec},
    }
    if init:
        raw["spec"]["initContainers"] = list(init)
    if node:
        raw["spec"]["nodeName"] = node
    return Pod(apply_api_defaults(raw))


def sidecar(name: str = "s", **requests: str) -> dict[str, Any]:
    return {**container(name, **requests), "restartPolicy": "Always"}


def node_info(allocatable: dict[str, str], *pods: Pod, name: str = "n1") -> NodeInfo:
    ni = NodeInfo(Node({"metadata": {"name": name}, "status": {"allocatable": allocatable}}))
    for p in pods:
        ni.add_pod(p)
    return ni


NODE = {
    "cpu": "10m",
    "memory": "20",
    "pods": "32",
    "ephemeral-storage": "20",
    "example.com/aaa": "5",
    "hugepages-2Mi": "5",
}


def run_filter(plugin: fit.Fit, p: Pod, ni: NodeInfo) -> Status:
    state = CycleState()
    _, status = plugin.pre_filter(state, p, [ni])
    assert status == SUCCESS
    return plugin.filter(state, p, ni)


# -- Filter ----------------------------------------------------------------------------------

USED = pod(container(cpu="5m", memory="10"), name="used")

FILTER_CASES = [
    pytest.param(pod(container()), node_info(NODE), SUCCESS, id="no-requests-fit"),
    pytest.param(
        pod(container(cpu="5m", memory="10")), node_info(NODE, USED), SUCCESS, id="exact-fit"
    ),
    pytest.param(
        pod(container(cpu="6m", memory="10")),
        node_info(NODE, USED),
        unschedulable("Insufficient cpu"),
        id="cpu-short-but-node-big-enough-is-unschedulable",
    ),
    pytest.param(
        pod(container(cpu="11m", memory="30")),
        node_info(NODE),
        unresolvable("Insufficient cpu", "Insufficient memory"),
        id="request-above-allocatable-is-unresolvable",
    ),
    pytest.param(
        pod(container(cpu="6m", memory="30")),
        node_info(NODE, USED),
        unresolvable("Insufficient cpu", "Insufficient memory"),
        id="one-unresolvable-resource-makes-status-unresolvable",
    ),
    pytest.param(
        pod(container(ephemeral_storage="25")),
        node_info(NODE),
        unresolvable("Insufficient ephemeral-storage"),
        id="ephemeral-storage",
    ),
    pytest.param(
        pod(container(**{"example.com/aaa": "6", "hugepages-2Mi": "6"})),
        node_info(NODE),
        unresolvable("Insufficient example.com/aaa", "Insufficient hugepages-2Mi"),
        id="scalar-resources-in-request-order",
    ),
    pytest.param(
        pod(container(**{"example.com/unknown": "1"})),
        node_info(NODE),
        unresolvable("Insufficient example.com/unknown"),
        id="scalar-unknown-to-node",
    ),
    pytest.param(
        pod(container(**{"example.com/unknown": "0"})),
        node_info(NODE),
        SUCCESS,
        id="zero-scalar-request-skipped",
    ),
    pytest.param(
        pod(container(cpu="1m", **{"example.com/aaa": "6"})),
        node_info({**NODE, "pods": "1"}, USED),
        unresolvable("Too many pods", "Insufficient example.com/aaa"),
        id="too-many-pods-first",
    ),
    pytest.param(
        pod(container()),
        node_info({**NODE, "pods": "1"}, USED),
        unschedulable("Too many pods"),
        id="too-many-pods-without-requests",
    ),
    pytest.param(
        pod(container(cpu="1m"), init=(container("i", cpu="6m"),)),
        node_info(NODE, USED),
        unschedulable("Insufficient cpu"),
        id="init-container-max",
    ),
    pytest.param(
        pod(container(cpu="3m"), init=(sidecar(cpu="3m"), container("i", cpu="1m"))),
        node_info(NODE, USED),
        unschedulable("Insufficient cpu"),
        id="sidecar-adds-to-containers",
    ),
    pytest.param(
        pod(container(cpu="1m", memory="1"), overhead={"cpu": "5m"}),
        node_info(NODE, USED),
        unschedulable("Insufficient cpu"),
        id="overhead-counts",
    ),
    pytest.param(
        pod(container(cpu="1m"), resources={"requests": {"cpu": "6m"}}),
        node_info(NODE, USED),
        unschedulable("Insufficient cpu"),
        id="pod-level-requests-replace-containers",
    ),
]


@pytest.mark.parametrize(("p", "ni", "expected"), FILTER_CASES)
def test_filter(p: Pod, ni: NodeInfo, expected: Status) -> None:
    assert run_filter(fit.new(None, None), p, ni) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            NodeResourcesFitArgs(), unresolvable("Insufficient example.com/aaa"), id="not-ignored"
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resources=("example.com/aaa",)),
            SUCCESS,
            id="ignored-resource",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resource_groups=("example.com",)),
            SUCCESS,
            id="ignored-group",
        ),
    ],
)
def test_filter_ignored_extended_resources(args: NodeResourcesFitArgs, expected: Status) -> None:
    p = pod(container(**{"example.com/aaa": "6"}))
    assert run_filter(fit.Fit(args), p, node_info(NODE)) == expected


def test_filter_never_ignores_native_scalars() -> None:
    p = pod(container(**{"hugepages-2Mi": "6"}))
    args = NodeResourcesFitArgs(ignored_resource_groups=("hugepages-2Mi",))
    assert run_filter(fit.Fit(args), p, node_info(NODE)) == unresolvable(
        "Insufficient hugepages-2Mi"
    )


def test_filter_without_pre_filter_is_an_error() -> None:
    status = fit.new(None, None).filter(CycleState(), pod(), node_info(NODE))  # type: ignore[arg-type]
    assert status.code == Code.ERROR
    assert status.reasons == (
        'error reading "PreFilterNodeResourcesFit" from cycleState: not found',
    )


def test_fits_reports_amounts() -> None:
    got = fit.fits(pod(container(cpu="6m")), node_info(NODE, USED))
    assert got == [fit.InsufficientResource("cpu", "Insufficient cpu", 6, 5, 10, False)]


# -- pod requests ----------------------------------------------------------------------------

MI = 1024 * 1024


@pytest.mark.parametrize(
    ("p", "kwargs", "expected"),
    [
        pytest.param(
            pod(container(cpu="1", memory="1Gi")),
            {},
            {"cpu": 1000, "memory": 1024 * MI},
            id="plain",
        ),
        pytest.param(
            pod(container(cpu="1")),
            {"non_missing": NON_ZERO_DEFAULTS},
            {"cpu": 1000, "memory": 200 * MI},
            id="missing-memory-defaulted",
        ),
        pytest.param(
            pod(container(cpu="0", memory="0")),
            {"non_missing": NON_ZERO_DEFAULTS},
            {"cpu": 0, "memory": 0},
            id="explicit-zero-kept",
        ),
        pytest.param(
            pod(container(), init=(container("i"),)),
            {"non_missing": NON_ZERO_DEFAULTS},
            {"cpu": 100, "memory": 200 * MI},
            id="init-defaults-max-not-sum",
        ),
        pytest.param(
            pod(container(cpu="1"), resources={"requests": {"cpu": "2"}}),
            {},
            {"cpu": 2000, "memory": 0},
            id="pod-level",
        ),
        pytest.param(
            pod(container(cpu="1"), resources={"requests": {"cpu": "2"}}),
            {"skip_pod_level": True},
            {"cpu": 1000, "memory": 0},
            id="pod-level-skipped",
        ),
        pytest.param(
            pod(container(cpu="1", memory="1Gi"), resources={"requests": {"cpu": "2"}}),
            {"skip_pod_level": True, "non_missing": NON_ZERO_DEFAULTS},
            {"cpu": 1000, "memory": 1024 * MI},
            id="nothing-missing-pod-level-skipped",
        ),
        pytest.param(
            pod(container(cpu="1", memory="1Gi"), init=(container("i", cpu="3", memory="1"),)),
            {"non_missing": NON_ZERO_DEFAULTS},
            {"cpu": 3000, "memory": 1024 * MI},
            id="nothing-missing-init-max",
        ),
    ],
)
def test_pod_requests(p: Pod, kwargs: dict[str, Any], expected: dict[str, int]) -> None:
    reqs = pod_requests(p, **kwargs)
    got = {"cpu": -((-reqs.get("cpu", 0)) // 10**6), "memory": -((-reqs.get("memory", 0)) // 10**9)}
    assert got == expected


def test_pod_requests_use_status_resources() -> None:
    raw = {
        "metadata": {"name": "p"},
        "spec": {"containers": [container(cpu="1")]},
        "status": {
            "containerStatuses": [
                {"name": "c", "resources": {"requests": {"cpu": "2"}}, "allocatedResources": {}}
            ]
        },
    }
    p = Pod(apply_api_defaults(raw))
    assert pod_requests(p)["cpu"] == 10**9
    assert pod_requests(p, use_status=True)["cpu"] == 2 * 10**9


# -- Score -----------------------------------------------------------------------------------


def fit_args(
    kind: str, *resources: tuple[str, int], shape: tuple[tuple[int, int], ...] = ()
) -> NodeResourcesFitArgs:
    rtcr = (
        RequestedToCapacityRatioParam(tuple(UtilizationShapePoint(u, s) for u, s in shape))
        if shape
        else None
    )
    specs = tuple(ResourceSpec(n, w) for n, w in resources) or (
        ResourceSpec("cpu", 1),
        ResourceSpec("memory", 1),
    )
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(kind, specs, rtcr))


def scores(args: NodeResourcesFitArgs, p: Pod, nodes: list[NodeInfo]) -> list[int]:
    plugin = fit.Fit(args)
    state = CycleState()
    assert plugin.pre_score(state, p, nodes) == SUCCESS
    columns, status = plugin.score_columns(state, p, nodes)
    batch = columns.tolist()
    assert status == SUCCESS
    single = [plugin.score(state, p, ni)[0] for ni in nodes]
    assert single == batch
    return batch


BIG = {"cpu": "4", "memory": "10000", "pods": "32"}
SMALL = {"cpu": "2", "memory": "5000", "pods": "32"}
EXTENDED = {"cpu": "4", "memory": "10000", "pods": "32", "example.com/gpu": "4"}

SCORE_CASES = [
    pytest.param(
        fit_args(LEAST_ALLOCATED),
        pod(container(cpu="1", memory="2000")),
        [node_info(BIG), node_info(SMALL, name="n2")],
        [(75 + 80) // 2, (50 + 60) // 2],
        id="least-allocated",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED),
        pod(container()),
        [node_info(BIG)],
        [((4000 - 100) * 100 // 4000 + (10000 - 200 * MI) * 0) // 2],
        id="least-nonzero-defaults-exceeding-capacity",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED, ("cpu", 3), ("memory", 1)),
        pod(container(cpu="1", memory="2000")),
        [node_info(BIG)],
        [(75 * 3 + 80) // 4],
        id="least-weighted",
    ),
    pytest.param(
        fit_args(MOST_ALLOCATED),
        pod(container(cpu="1", memory="2000")),
        [node_info(BIG), node_info(SMALL, name="n2")],
        [(25 + 20) // 2, (50 + 40) // 2],
        id="most-allocated",
    ),
    pytest.param(
        fit_args(MOST_ALLOCATED),
        pod(container()),
        [node_info(BIG)],
        [(100 * 100 // 4000 + 100) // 2],
        id="most-caps-requests-at-capacity",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED, ("cpu", 1), ("memory", 1), ("example.com/gpu", 2)),
        pod(container(cpu="1", memory="2000")),
        [node_info(EXTENDED), node_info(BIG, name="n2")],
        [(75 + 80) // 2, (75 + 80) // 2],
        id="least-extended-not-requested-bypassed",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED, ("cpu", 1), ("memory", 1), ("example.com/gpu", 2)),
        pod(container(cpu="1", memory="2000", **{"example.com/gpu": "1"})),
        [node_info(EXTENDED), node_info(BIG, name="n2")],
        [(75 + 80 + 75 * 2) // 4, (75 + 80) // 2],
        id="least-extended-requested-counts-where-present",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED, ("cpu", 1), ("memory", 1), ("ephemeral-storage", 1)),
        pod(container(cpu="1", memory="2000", ephemeral_storage="10")),
        [node_info({**BIG, "ephemeral-storage": "100"})],
        [(75 + 80 + 90) // 3],
        id="least-ephemeral-storage",
    ),
    pytest.param(
        fit_args(LEAST_ALLOCATED),
        pod(container(cpu="1", memory="2000")),
        [node_info({"pods": "32"})],
        [0],
        id="node-without-resources-scores-zero",
    ),
    pytest.param(
        fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=((0, 10), (100, 0))),
        pod(container(cpu="1", memory="2000")),
        [node_info(BIG), node_info(SMALL, name="n2")],
        [go_round((75 + 80) / 2), go_round((50 + 60) / 2)],
        id="rtcr-decreasing",
    ),
    pytest.param(
        fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=((0, 0), (100, 10))),
        pod(container(cpu="1", memory="2000")),
        [node_info(BIG)],
        [go_round((25 + 20) / 2)],
        id="rtcr-increasing",
    ),
    pytest.param(
        fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=((0, 0), (100, 10))),
        pod(container(cpu="0", memory="0")),
        [node_info(BIG)],
        [0],
        id="rtcr-zero-scores-do-not-count",
    ),
    pytest.param(
        fit_args(REQUESTED_TO_CAPACITY_RATIO, ("cpu", 1), ("memory", 2), shape=((0, 0), (100, 10))),
        pod(container(cpu="1", memory="1000")),
        [node_info(BIG)],
        [go_round((25 + 10 * 2) / 3)],
        id="rtcr-weighted-mean-rounded",
    ),
]


@pytest.mark.parametrize(("args", "p", "nodes", "expected"), SCORE_CASES)
def test_score(
    args: NodeResourcesFitArgs, p: Pod, nodes: list[NodeInfo], expected: list[int]
) -> None:
    assert scores(args, p, nodes) == expected


def test_score_counts_existing_pods_non_zero() -> None:
    existing = pod(container(), node="n1", name="e")
    ni = node_info(BIG, existing)
    # The existing pod without requests counts 100m / 200Mi; the node's memory is far below.
    assert scores(fit_args(LEAST_ALLOCATED), pod(container(cpu="1", memory="0")), [ni]) == [
        ((4000 - 1100) * 100 // 4000 + 0) // 2
    ]


def test_score_without_pre_score_computes_requests() -> None:
    plugin = fit.Fit(fit_args(LEAST_ALLOCATED))
    got = plugin.score(CycleState(), pod(container(cpu="1", memory="2000")), node_info(BIG))
    assert got == ((75 + 80) // 2, SUCCESS)


def test_unsupported_strategy_refused() -> None:
    with pytest.raises(fit.FitPluginError, match="scoring strategy Bogus is not supported"):
        fit.Fit(fit_args("Bogus"))


@pytest.mark.parametrize(
    ("shape", "p", "expected"),
    [
        pytest.param(((10, 20), (50, 80)), 0, 20, id="below-first-point"),
        pytest.param(((10, 20), (50, 80)), 30, 50, id="interpolated"),
        pytest.param(((10, 20), (50, 80)), 90, 80, id="above-last-point"),
        pytest.param(((0, 100), (30, 0)), 10, 67, id="decreasing-truncates-toward-zero"),
    ],
)
def test_broken_linear_function(shape: tuple[tuple[int, int], ...], p: int, expected: int) -> None:
    fn = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in shape])
    assert fn(p) == expected


@pytest.mark.parametrize(
    ("x", "expected"),
    [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (-0.5, -1), (0.49999999999999994, 0)],
)
def test_go_round_halves_away_from_zero(x: float, expected: int) -> None:
    assert go_round(x) == expected


def go_quo(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def least_reference(reqs: list[int], caps: list[int], weights: list[int]) -> int:
    """leastResourceScorer as upstream writes it, one node at a time."""
    total = weight_sum = 0
    for r, c, w in zip(reqs, caps, weights, strict=True):
        if c == 0:
            continue
        total += (0 if r > c else go_quo((c - r) * 100, c)) * w
        weight_sum += w
    return go_quo(total, weight_sum) if weight_sum else 0


def most_reference(reqs: list[int], caps: list[int], weights: list[int]) -> int:
    """mostResourceScorer as upstream writes it, one node at a time."""
    total = weight_sum = 0
    for r, c, w in zip(reqs, caps, weights, strict=True):
        if c == 0:
            continue
        total += go_quo(min(r, c) * 100, c) * w
        weight_sum += w
    return go_quo(total, weight_sum) if weight_sum else 0


@pytest.mark.parametrize(
    ("scorer", "reference"),
    [
        pytest.param(least_allocated_scorer, least_reference, id="least"),
        pytest.param(most_allocated_scorer, most_reference, id="most"),
    ],
)
def test_strategy_over_many_nodes_scores_each_as_upstream(scorer: Any, reference: Any) -> None:
    """Zero, exceeded and negative capacities, zero weights: every node as upstream's formula."""
    amounts = (-5, 0, 1, 999, 1000, 1001, 3000)
    rows = list(itertools.product(amounts, amounts, amounts, amounts))
    for weights in ([1, 1], [3, 5], [0, 2]):
        requested = [np.array([r[0] for r in rows]), np.array([r[1] for r in rows])]
        capacity = [np.array([r[2] for r in rows]), np.array([r[3] for r in rows])]
        got = scorer(requested, capacity, weights).tolist()
        want = [reference([r[0], r[1]], [r[2], r[3]], weights) for r in rows]
        assert got == want
