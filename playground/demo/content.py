"""Built-in demo clusters and profiles, loaded by ``manage.py load_demo``."""

from __future__ import annotations

from typing import Any, Final

from django.utils.translation import gettext_noop

from ..dra import demo as demo_dra
from ..models import Cluster, Node, Pod


def _nodes(
    prefix: str,
    count: int,
    *,
    zones: tuple[str, ...] = (),
    cpu: str = "4",
    memory: str = "16Gi",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    extra: dict[str, str] | None = None,
    region: str = "",
) -> str:
    docs = []
    for i in range(1, count + 1):
        name = f"{prefix}-{i}"
        node_labels = {"kubernetes.io/hostname": name, **(labels or {})}
        if zones:
            node_labels["topology.kubernetes.io/zone"] = zones[(i - 1) % len(zones)]
        if region:
            node_labels["topology.kubernetes.io/region"] = region
        resources = {"cpu": cpu, "memory": memory, "pods": "110", **(extra or {})}
        lines = [
            "apiVersion: v1",
            "kind: Node",
            "metadata:",
            f"  name: {name}",
            "  labels:",
            *[f'    {k}: "{v}"' for k, v in node_labels.items()],
        ]
        if taints:
            lines += ["spec:", "  taints:"]
            for taint in taints:
                lines += [
                    f"  - key: {taint['key']}",
                    f'    value: "{taint["value"]}"',
                    f"    effect: {taint['effect']}",
                ]
        lines += [
            "status:",
            "  capacity:",
            *[f'    {k}: "{v}"' for k, v in resources.items()],
            "  allocatable:",
            *[f'    {k}: "{v}"' for k, v in resources.items()],
        ]
        docs.append("\n".join(lines))
    return "\n---\n".join(docs)


THREE_ZONES: Final = (
    _nodes("node", 6, zones=("zone-a", "zone-b", "zone-c"), region="eu-1")
    + """
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 6
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests:
            cpu: 500m
            memory: 512Mi
"""
)

GPU_POOL: Final = (
    _nodes("cpu", 3, zones=("zone-a", "zone-b"))
    + "\n---\n"
    + _nodes(
        "gpu",
        2,
        zones=("zone-a", "zone-b"),
        cpu="32",
        memory="128Gi",
        labels={"accelerator": "nvidia-a100"},
        taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
        extra={"nvidia.com/gpu": "4"},
    )
    + """
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
  labels:
    app: trainer
spec:
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  containers:
  - name: train
    image: pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime
    resources:
      requests:
        cpu: "8"
        memory: 32Gi
        nvidia.com/gpu: "2"
      limits:
        nvidia.com/gpu: "2"
---
apiVersion: v1
kind: Pod
metadata:
  name: web-frontend
  namespace: default
  labels:
    app: frontend
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests:
        cpu: "1"
        memory: 1Gi
"""
)


def _running(name: str, node: str, cpu: str) -> str:
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels:
    tier: batch
spec:
  priorityClassName: low
  priority: 100
  nodeName: {node}
  containers:
  - name: work
    image: busybox:1.37
    resources:
      requests:
        cpu: {cpu}
        memory: 1Gi
status:
  phase: Running
"""


PREEMPTION: Final = (
    """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: low
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 100000
---
"""
    + _nodes("small", 2, cpu="2", memory="8Gi")
    + _running("batch-1", "small-1", "1500m")
    + _running("batch-2", "small-2", "1")
    + _running("batch-3", "small-2", "500m")
    + """
---
apiVersion: v1
kind: Pod
metadata:
  name: urgent
  namespace: default
spec:
  priorityClassName: high
  priority: 100000
  containers:
  - name: urgent
    image: busybox:1.37
    resources:
      requests:
        cpu: 1500m
        memory: 1Gi
status:
  phase: Pending
"""
)


def _workload(name: str, min_count: int) -> str:
    return f"""apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: {name}
  namespace: default
spec:
  controllerRef:
    apiGroup: batch
    kind: Job
    name: {name}
  podGroups:
  - name: workers
    policy:
      gang:
        minCount: {min_count}
---
"""


def _member(name: str, workload: str, cpu: str) -> str:
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels:
    job: {workload}
spec:
  workloadRef:
    name: {workload}
    podGroup: workers
  containers:
  - name: work
    image: busybox:1.37
    resources:
      requests:
        cpu: {cpu}
        memory: 1Gi
status:
  phase: Pending
"""


# Two gangs of minCount 3 on three 4-CPU nodes, one of them nearly full: "train" (1 CPU each)
# waits at Permit until all three are assumed, then binds together; "sweep" has two members
# only, so PreEnqueue keeps both out of the queue. (A gang whose third member does not fit waits
# at Permit, times out after 5m and tries again until the run's end: hundreds of cycles.)
GANG: Final = (
    _workload("train", 3)
    + _workload("sweep", 3)
    + _nodes("worker", 3, cpu="4", memory="16Gi")
    + _running("db-0", "worker-3", "3500m")
    + "".join(_member(f"train-{i}", "train", "1") for i in range(3))
    + "".join(_member(f"sweep-{i}", "sweep", "1") for i in range(2))
)

CLUSTERS: Final[list[tuple[str, str, str]]] = [
    (
        gettext_noop("Three zones"),
        gettext_noop(
            "Six nodes in three zones of one region and a 6-replica Deployment behind "
            "a Service: default spreading at work."
        ),
        THREE_ZONES,
    ),
    (
        gettext_noop("GPU pool behind taints"),
        gettext_noop(
            "CPU nodes plus a tainted GPU pool; only the trainer tolerates "
            "the taint and requests nvidia.com/gpu."
        ),
        GPU_POOL,
    ),
    (
        gettext_noop("Preemption scenario"),
        gettext_noop(
            "Two small nodes full of low-priority batch pods and one pending "
            "high-priority pod that only fits after preemption."
        ),
        PREEMPTION,
    ),
    (
        gettext_noop("Gang scheduling"),
        gettext_noop(
            "Two Workloads whose pod groups need 3 members each (turn on the GenericWorkload and "
            "GangScheduling gates): train's members wait at Permit, then bind together; sweep "
            "has only two of its three members, so both stay gated."
        ),
        GANG,
    ),
]

_API: Final = "kubescheduler.config.k8s.io/v1"


def _config(*profiles: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "apiVersion": _API,
        "kind": "KubeSchedulerConfiguration",
        **top,
        "profiles": list(profiles),
    }


PROFILES: Final[list[tuple[str, str, dict[str, Any]]]] = [
    (
        gettext_noop("Default"),
        gettext_noop("What a fresh kube-scheduler runs: one profile, default plugins and weights."),
        _config({"schedulerName": "default-scheduler"}),
    ),
    (
        gettext_noop("Bin-packing"),
        gettext_noop(
            "NodeResourcesFit MostAllocated with a high weight: fill nodes before "
            "using new ones (cluster autoscaler friendly)."
        ),
        _config(
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "score": {
                        "enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                        "disabled": [{"name": "NodeResourcesBalancedAllocation"}],
                    }
                },
                "pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "apiVersion": _API,
                            "kind": "NodeResourcesFitArgs",
                            "scoringStrategy": {
                                "type": "MostAllocated",
                                "resources": [
                                    {"name": "cpu", "weight": 1},
                                    {"name": "memory", "weight": 1},
                                ],
                            },
                        },
                    }
                ],
            }
        ),
    ),
    (
        gettext_noop("Spread everything"),
        gettext_noop("PodTopologySpread list defaults over hosts and zones, weighted up."),
        _config(
            {
                "schedulerName": "default-scheduler",
                "plugins": {"score": {"enabled": [{"name": "PodTopologySpread", "weight": 10}]}},
                "pluginConfig": [
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "apiVersion": _API,
                            "kind": "PodTopologySpreadArgs",
                            "defaultingType": "List",
                            "defaultConstraints": [
                                {
                                    "maxSkew": 1,
                                    "topologyKey": "topology.kubernetes.io/zone",
                                    "whenUnsatisfiable": "ScheduleAnyway",
                                },
                                {
                                    "maxSkew": 1,
                                    "topologyKey": "kubernetes.io/hostname",
                                    "whenUnsatisfiable": "ScheduleAnyway",
                                },
                            ],
                        },
                    }
                ],
            }
        ),
    ),
    (
        gettext_noop("Eager preemption"),
        gettext_noop(
            "DefaultPreemption looks at every node for candidates; a second profile never preempts."
        ),
        _config(
            {
                "schedulerName": "default-scheduler",
                "pluginConfig": [
                    {
                        "name": "DefaultPreemption",
                        "args": {
                            "apiVersion": _API,
                            "kind": "DefaultPreemptionArgs",
                            "minCandidateNodesPercentage": 100,
                            "minCandidateNodesAbsolute": 1000,
                        },
                    }
                ],
            },
            {
                "schedulerName": "no-preemption",
                "plugins": {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}},
            },
        ),
    ),
]


# -- runs (backend): the interactive Permit demo and a large cluster --------------------------

APPROVAL_ANNOTATION: Final = "playground.k8s.io/require-approval"
APPROVAL_TIMEOUT_ANNOTATION: Final = "playground.k8s.io/approval-timeout-seconds"


def _approval_pod(name: str, *, cpu: str, timeout: int | None = None, gated: bool = True) -> str:
    annotations = []
    if gated:
        annotations.append(f'    {APPROVAL_ANNOTATION}: "true"')
    if timeout is not None:
        annotations.append(f'    {APPROVAL_TIMEOUT_ANNOTATION}: "{timeout}"')
    meta_annotations = ["  annotations:", *annotations] if annotations else []
    return "\n".join(
        [
            "---",
            "apiVersion: v1",
            "kind: Pod",
            "metadata:",
            f"  name: {name}",
            "  namespace: default",
            *meta_annotations,
            "  labels:",
            "    app: trainer" if gated else "    app: web",
            "spec:",
            "  containers:",
            "  - name: main",
            "    image: busybox:1.37",
            "    resources:",
            "      requests:",
            f"        cpu: {cpu}",
            "        memory: 1Gi",
        ]
    )


APPROVAL_GATE: Final = "\n".join(
    [
        _nodes("worker", 3, zones=("zone-a", "zone-b", "zone-c")),
        _approval_pod("gang-0", cpu="1"),
        _approval_pod("gang-1", cpu="1"),
        _approval_pod("gang-2", cpu="1", timeout=30),
        _approval_pod("web-0", cpu="500m", gated=False),
    ]
)

CLUSTERS.append(
    (
        gettext_noop("Approval gate"),
        gettext_noop(
            "Three gang pods ask for approval at Permit (ApprovalGate): run it with the "
            "'Approval gate' profile and allow or reject each from the run page; gang-2 "
            "gives up after 30 s."
        ),
        APPROVAL_GATE,
    )
)

PROFILES.append(
    (
        gettext_noop("Approval gate"),
        gettext_noop(  # names APPROVAL_ANNOTATION (a literal, for the translation catalog)
            "The default plugins plus ApprovalGate at Permit: pods annotated "
            'playground.k8s.io/require-approval: "true" wait there until a user answers (120 s '
            "by default)."
        ),
        _config(
            {
                "schedulerName": "default-scheduler",
                "plugins": {"permit": {"enabled": [{"name": "ApprovalGate"}]}},
            }
        ),
    )
)

CLUSTERS.append((demo_dra.NAME, demo_dra.DESCRIPTION, demo_dra.MANIFESTS))

LARGE_NAME: Final = gettext_noop("Large cluster (500 nodes)")
LARGE_DESCRIPTION: Final = gettext_noop(
    "500 nodes in three zones and 300 pending pods of four sizes: progress, utilisation "
    "and per-pod decisions at scale. Generated on first use."
)
_LARGE_SIZES: Final = (("250m", "256Mi"), ("500m", "512Mi"), ("1", "2Gi"), ("2", "4Gi"))


def large_cluster_manifests(
    nodes: int = 500, pods: int = 300, zones: tuple[str, ...] = ("zone-a", "zone-b", "zone-c")
) -> list[dict[str, Any]]:
    """A large cluster as manifests, the same on every call: nodes first, then pending pods."""
    out: list[dict[str, Any]] = []
    for i in range(nodes):
        name = f"node-{i + 1:03d}"
        big = i % 5 == 0
        resources = {
            "cpu": "16" if big else "8",
            "memory": "64Gi" if big else "32Gi",
            "pods": "110",
        }
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "labels": {
                        "kubernetes.io/hostname": name,
                        "topology.kubernetes.io/zone": zones[i % len(zones)],
                        "node.kubernetes.io/instance-type": "m.xlarge" if big else "m.large",
                    },
                },
                "status": {"capacity": dict(resources), "allocatable": dict(resources)},
            }
        )
    for j in range(pods):
        cpu, memory = _LARGE_SIZES[(j * 7) % len(_LARGE_SIZES)]
        app = f"app-{j % 10}"
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{app}-{j:03d}",
                    "namespace": "default",
                    "labels": {"app": app},
                },
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "busybox:1.37",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}},
                        }
                    ]
                },
                "status": {"phase": "Pending"},
            }
        )
    return out


def ensure_large_cluster() -> Any:
    """The large demo cluster, created on first use (bulk inserts, well under a second)."""
    from django.db import transaction

    with transaction.atomic():
        cluster, created = Cluster.objects.get_or_create(
            is_demo=True, owner=None, name=LARGE_NAME, defaults={"description": LARGE_DESCRIPTION}
        )
        if not created and cluster.nodes.exists():
            return cluster
        rows: dict[str, list[Any]] = {"Node": [], "Pod": []}
        for manifest in large_cluster_manifests():
            model = Node if manifest["kind"] == "Node" else Pod
            row = model(cluster=cluster, manifest=manifest)
            row.sync_from_manifest()
            rows[manifest["kind"]].append(row)
        Node.objects.bulk_create(rows["Node"], batch_size=500)
        Pod.objects.bulk_create(rows["Pod"], batch_size=500)
    return cluster


# The shipped custom CEL plugins (playground.custom_plugins) and a cluster to run them on.
from ..custom_plugins.demo import CLUSTER as _CUSTOM_CLUSTER  # noqa: E402
from ..custom_plugins.demo import PROFILE as _CUSTOM_PROFILE  # noqa: E402

CLUSTERS.append(_CUSTOM_CLUSTER)
PROFILES.append(_CUSTOM_PROFILE)

# The demo profile a demo cluster is meant to run with, where its description names one; every
# other cluster opens with "Default" chosen.
SUGGESTED_PROFILES: Final[dict[str, str]] = {
    "Approval gate": "Approval gate",
    _CUSTOM_CLUSTER[0]: _CUSTOM_PROFILE[0],
}
