"""Custom plugin definitions shipped as examples (data only: CEL expressions, no code).

The playground loads them as demo custom plugins; tests run them through the engine.
"""

from __future__ import annotations

from typing import Final

from scheduler_core.custom.plugin import CustomPluginSpec

LIGHTS: Final = "example.com/blinking-lights"
MAINTENANCE: Final = "example.com/maintenance"
HOLD: Final = "example.com/hold"

BLINKING_LIGHT: Final = CustomPluginSpec(
    name="BlinkingLight",
    expressions={
        # More blinking lights mean a busier node: the raw score counts them, and
        # NormalizeScore reverses it so the calmest node scores 100.
        "score": f'"{LIGHTS}" in node.labels ? int(node.labels["{LIGHTS}"]) : 0',
    },
    normalize="reverse",
)
MAINTENANCE_FILTER: Final = CustomPluginSpec(
    name="MaintenanceFilter",
    expressions={
        "filter": f'!("{MAINTENANCE}" in node.labels && node.labels["{MAINTENANCE}"] == "true")',
    },
    filter_reason="node(s) were under maintenance",
)
PERMIT_GATE: Final = CustomPluginSpec(
    name="PermitGate",
    expressions={
        "permit": (
            f'!("{HOLD}" in pod.labels) ? "allow" : '
            f'pod.labels["{HOLD}"] == "deny" ? "deny: held back by PermitGate" : '
            '"wait " + string("waitSeconds" in args ? args.waitSeconds : 30)'
        ),
    },
)


def _noting(name: str) -> CustomPluginSpec:
    return CustomPluginSpec(
        name=name,
        expressions={
            "reserve": f'"{name} reserved " + pod.name + " on " + node.name',
            "unreserve": f'"{name} released " + pod.name',
            "preBind": f'"{name} prepared " + node.name + " for " + pod.name',
        },
    )


FOO: Final = _noting("foo")
BAR: Final = _noting("bar")
BAZ: Final = _noting("baz")

EXAMPLES: Final = (BLINKING_LIGHT, MAINTENANCE_FILTER, PERMIT_GATE, FOO, BAR, BAZ)
