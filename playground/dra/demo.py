"""The "GPU pool with DRA" demo cluster: devices, classes and claims (resource.k8s.io/v1)."""

from __future__ import annotations

from typing import Final

from django.utils.translation import gettext_noop

NAME: Final = gettext_noop("GPU pool with DRA")
DESCRIPTION: Final = gettext_noop(
    "Three GPU nodes publish their GPUs as ResourceSlices (A100, L4, H100) and two DeviceClasses "
    "select them with CEL. 'inference' claims one L4 and gets it; 'trainer' claims two GPUs "
    "with at least 40Gi of the same model and finds no node: one A100 is taken, the L4s are "
    "too small, the H100 is alone. 'flexible' takes the first alternative that fits."
)


def _node(name: str, rack: str) -> str:
    return f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
    example.com/rack: {rack}
status:
  capacity: {{cpu: "16", memory: 64Gi, pods: "110"}}
  allocatable: {{cpu: "16", memory: 64Gi, pods: "110"}}
"""


def _slice(node: str, model: str, memory: str, count: int) -> str:
    devices = "\n".join(
        f"""  - name: gpu-{i}
    attributes:
      model: {{string: {model}}}
      index: {{int: {i}}}
    capacity:
      memory: {{value: {memory}}}"""
        for i in range(count)
    )
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {node}-gpu
spec:
  driver: gpu.example.com
  nodeName: {node}
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  devices:
{devices}
"""


def _pod(name: str, claim: str, *, node: str = "") -> str:
    placement = f"  nodeName: {node}\n" if node else ""
    phase = "Running" if node else "Pending"
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
spec:
{placement}  containers:
  - name: main
    image: registry.example.com/{name}:1.0
    resources:
      requests: {{cpu: "2", memory: 8Gi}}
  resourceClaims:
  - name: gpus
    resourceClaimName: {claim}
status:
  phase: {phase}
"""


_CLASSES: Final = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu-large
spec:
  selectors:
  - cel:
      expression: >-
        device.driver == "gpu.example.com" &&
        device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
"""

_CLAIMS: Final = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: running-a100
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: gpu-1, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [gpu-1]}
  reservedFor:
  - {resource: pods, name: notebook, uid: notebook-uid}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: inference-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "l4"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: trainer-gpus
  namespace: default
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu-large, count: 2}
    constraints:
    - requests: [gpus]
      matchAttribute: gpu.example.com/model
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: flexible-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - name: h100
        deviceClassName: gpu
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "h100"
      - name: any
        deviceClassName: gpu
"""

_NOTEBOOK: Final = _pod("notebook", "running-a100", node="gpu-1").replace(
    "  name: notebook\n", "  name: notebook\n  uid: notebook-uid\n", 1
)

MANIFESTS: Final = "---\n".join(
    [
        _node("cpu-1", "rack-a"),
        _node("gpu-1", "rack-a"),
        _node("gpu-2", "rack-b"),
        _node("gpu-3", "rack-b"),
        _CLASSES,
        _slice("gpu-1", "a100", "40Gi", 2),
        _slice("gpu-2", "l4", "24Gi", 4),
        _slice("gpu-3", "h100", "80Gi", 1),
        _CLAIMS,
        _NOTEBOOK,
        _pod("inference", "inference-gpu"),
        _pod("trainer", "trainer-gpus"),
        _pod("flexible", "flexible-gpu"),
    ]
)
