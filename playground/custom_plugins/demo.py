"""Demo content for the shipped custom plugins: a cluster to run them on, a profile using them."""

from __future__ import annotations

from typing import Any, Final

from django.utils.translation import gettext_noop

from scheduler_core.custom.examples import HOLD, LIGHTS, MAINTENANCE


def _node(name: str, labels: dict[str, str]) -> str:
    label_lines = "".join(f'    {k}: "{v}"\n' for k, v in labels.items())
    return f"""apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels:
    kubernetes.io/hostname: {name}
{label_lines}status:
  allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}
  capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}
"""


def _pod(name: str, labels: dict[str, str] | None = None) -> str:
    label_lines = "".join(f'    {k}: "{v}"\n' for k, v in (labels or {}).items())
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels:
    app: web
{label_lines}spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests: {{cpu: 500m, memory: 256Mi}}
status:
  phase: Pending
"""


CLUSTER_NAME: Final = gettext_noop("Blinking lights")
CLUSTER: Final = (
    CLUSTER_NAME,
    gettext_noop(
        "Four nodes with blinking lights (example.com/blinking-lights), one of them under "
        "maintenance, and three pods: run it with the 'Custom plugins' profile to see the shipped "
        "CEL plugins score, filter and hold pods."
    ),
    "---\n".join(
        [
            _node("calm", {LIGHTS: "1"}),
            _node("busy", {LIGHTS: "4"}),
            _node("dark", {}),
            _node("maint", {LIGHTS: "0", MAINTENANCE: "true"}),
            _pod("web-0"),
            _pod("web-1"),
            _pod("held", {HOLD: "deny"}),
        ]
    ),
)
PROFILE: Final[tuple[str, str, dict[str, Any]]] = (
    gettext_noop("Custom plugins"),
    gettext_noop(
        "The default plugins plus the shipped custom CEL plugins: BlinkingLight scores "
        "(reversed), MaintenanceFilter filters, PermitGate holds pods labelled example.com/hold, "
        "and foo/bar note their Reserve and PreBind calls while baz is disabled at Reserve."
    ),
    {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {
                        "enabled": [
                            {"name": "MaintenanceFilter"},
                            {"name": "BlinkingLight", "weight": 3},
                            {"name": "baz"},
                        ]
                    },
                    "reserve": {
                        "enabled": [{"name": "foo"}, {"name": "bar"}],
                        "disabled": [{"name": "baz"}],
                    },
                    "permit": {"enabled": [{"name": "PermitGate"}]},
                    "preBind": {"enabled": [{"name": "bar"}, {"name": "foo"}]},
                },
                "pluginConfig": [{"name": "PermitGate", "args": {"waitSeconds": 20}}],
            }
        ],
    },
)
