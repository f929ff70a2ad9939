"""The v1 wire format's constants: apiVersion and kind, the extension points in the order of the
Plugins struct and the Go integer ranges. Shared by the decoder and the encoder.
"""

from __future__ import annotations

from typing import Final

API_VERSION: Final = "kubescheduler.config.k8s.io/v1"
KIND: Final = "KubeSchedulerConfiguration"
GROUP: Final = "kubescheduler.config.k8s.io"

# Extension points in the order of the v1 Plugins struct: (Python name, wire name).
EXTENSION_POINTS: Final[tuple[tuple[str, str], ...]] = (
    ("pre_enqueue", "preEnqueue"),
    ("queue_sort", "queueSort"),
    ("pre_filter", "preFilter"),
    ("filter", "filter"),
    ("post_filter", "postFilter"),
    ("pre_score", "preScore"),
    ("score", "score"),
    ("reserve", "reserve"),
    ("permit", "permit"),
    ("pre_bind", "preBind"),
    ("bind", "bind"),
    ("post_bind", "postBind"),
    ("multi_point", "multiPoint"),
)

INT_RANGES: Final = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
