"""ImageLocality: prefer nodes that already have the pod's images, scaled by how widely spread.

Mirrors plugins/imagelocality in kube-scheduler v1.35.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.framework.columns import Array, NodeColumns, columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.explaining import ExplainInputs, ScoreParts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, ScoreByColumns
from scheduler_core.framework.status import SUCCESS, Status
from scheduler_core.framework.types import ImageStateSummary, NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.words import _

NAME: Final = names.IMAGE_LOCALITY
_MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * _MB
MAX_CONTAINER_THRESHOLD: Final = 1000 * _MB


def normalized_image_name(name: str) -> str:
    """Append ``:latest`` when the image has no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_nodes: int) -> int:
    spread = state.num_nodes / total_nodes
    return int(float(state.size) * spread)


def calculate_priority(sum_scores: Any, num_containers: int) -> Any:
    """The score from the summed image scores, clipped to [23 MB, 1000 MB per container] and
    scaled to [0, MAX_NODE_SCORE]: an int gives an int, an int64 array an array."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    clipped = np.maximum(MIN_THRESHOLD, np.minimum(sum_scores, max_threshold))
    out = MAX_NODE_SCORE * (clipped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
    return out if isinstance(out, np.ndarray) else int(out)


def _image_scores(cols: NodeColumns, image: str, total_nodes: int) -> Array:
    """scaled_image_score of ``image`` on every node of the snapshot (0 where absent)."""
    key = (NAME, image, total_nodes)
    found = cols.caches.get(key)
    if found is None:
        found = np.zeros(cols.n, dtype=np.int64)
        for i in np.flatnonzero(cols.has_images).tolist():
            st = cols.infos[i].image_states.get(image)
            if st is not None:
                found[i] = scaled_image_score(st, total_nodes)
        cols.remember(key, found)
    return found


class ImageLocality(ScoreByColumns):
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score for many nodes as an int64 array: each of the pod's images present on a node
        adds its size scaled by how many nodes have it; the sum makes the priority."""
        n = len(pod.init_containers) + len(pod.containers)
        found = columns_of(nodes)
        if found is not None and (
            not found[0].any_images or not found[0].has_images[found[1]].any()
        ):
            # No node has an image: every node scores what an empty sum does.
            return np.full(len(nodes), _empty_sum_priority(n), dtype=np.int64), SUCCESS
        sums = np.zeros(len(nodes), dtype=np.int64)
        for _node, scores in self._image_terms(pod, nodes, found):
            sums += scores
        return calculate_priority(sums, n), SUCCESS

    def image_scores(self, pod: Pod, node_info: NodeInfo) -> list[tuple[str, int]]:
        """Score's terms on the node as a batch of one: each of the pod's images (init
        containers first) and the scaled score it adds to the sum (0 when the node lacks it)."""
        nodes = (node_info,)
        return [(image, int(col[0])) for image, col in self._image_terms(pod, nodes, None)]

    def _image_terms(
        self, pod: Pod, nodes: Sequence[NodeInfo], found: tuple[NodeColumns, Array] | None
    ) -> list[tuple[str, Array]]:
        """Each of the pod's images with its scaled_image_score on each node (0 where absent):
        the terms Score adds up."""
        found = found if found is not None else columns_of(nodes)
        total = self.handle.snapshot.num_nodes()
        images = [normalized_image_name(c.image) for c in pod.init_containers + pod.containers]
        return [(image, _image_column(nodes, found, image, total)) for image in images]

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        """How Score came to its raw score for ``ni``: the inputs, the arithmetic."""
        total = ctx.snapshot.num_nodes()
        containers = ctx.pod.init_containers + ctx.pod.containers
        rows = []
        sum_scores = 0
        for image, scaled in self.image_scores(ctx.pod, ni):  # Score's own terms
            st = ni.image_states.get(image)
            sum_scores += scaled
            rows.append(
                {
                    "image": image,
                    "onNode": st is not None,
                    "size": st.size if st is not None else 0,
                    "nodesWithImage": st.num_nodes if st is not None else 0,
                    "scaled": scaled,
                }
            )
        n = len(containers)
        value, _status = self.score(ctx.state, ctx.pod, ni)
        high = MAX_CONTAINER_THRESHOLD * n
        scaled_text = (
            " + ".join(f"{r['size']}×{r['nodesWithImage']}/{total}" for r in rows if r["onNode"])
            or "0"
        )
        formula = _(
            "sum = %(scaled)s = %(sum)s; clamp to [%(low)s, %(high)s]; "
            "100 × (sum − %(low)s) / (%(high)s − %(low)s) = %(value)s"
        ) % {
            "scaled": scaled_text,
            "sum": sum_scores,
            "low": MIN_THRESHOLD,
            "high": high,
            "value": value,
        }
        text = _(
            "ImageLocality on %(node)s: of the pod's %(images)s image(s), %(there)s are already "
            "there; each counts its size times the share of the %(total)s nodes holding it, summed "
            "to %(sum)s bytes, then scaled between 23 MiB and %(images)s × 1000 MiB to %(value)s."
        ) % {
            "node": ni.node.name,
            "images": n,
            "there": sum(1 for r in rows if r["onNode"]),
            "total": total,
            "sum": sum_scores,
            "value": value,
        }
        return {"images": rows, "totalNodes": total}, formula, value, text


@functools.lru_cache(maxsize=64)
def _empty_sum_priority(num_containers: int) -> int:
    """calculate_priority of an empty sum (no image of the pod on the node), per pod size."""
    return int(calculate_priority(0, num_containers))


def _image_column(
    nodes: Sequence[NodeInfo], found: tuple[NodeColumns, Array] | None, image: str, total: int
) -> Array:
    """scaled_image_score of ``image`` on each node (0 where absent): kept with the snapshot's
    columns when the nodes are column-backed, else read node by node."""
    if found is not None:
        cols, idx = found
        return _image_scores(cols, image, total)[idx]
    out = np.zeros(len(nodes), dtype=np.int64)
    for i, ni in enumerate(nodes):
        st = ni.image_states.get(image)
        if st is not None:
            out[i] = scaled_image_score(st, total)
    return out


def new(args: Any, handle: Handle) -> ImageLocality:
    return ImageLocality(handle)
