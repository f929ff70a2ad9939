"""ImageLocality: prefer nodes that already have the pod's images, scaled by how widely spread.

Mirrors plugins/imagelocality in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.api import Pod
from scheduler_core.framework.columns import Array, NodeColumns, columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.status import SUCCESS, Status
from scheduler_core.framework.types import ImageStateSummary, NodeInfo
from scheduler_core.plugins import names

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


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    sum_scores = max(MIN_THRESHOLD, min(sum_scores, max_threshold))
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


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


class ImageLocality:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        total = self.handle.snapshot.num_nodes()
        states = node_info.image_states
        total_score = 0
        for c in pod.init_containers + pod.containers:
            st = states.get(normalized_image_name(c.image))
            if st is not None:
                total_score += scaled_image_score(st, total)
        n = len(pod.init_containers) + len(pod.containers)
        return calculate_priority(total_score, n), SUCCESS

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score for many nodes; a node with none of the pod's images scores the minimum."""
        scores, status = self.score_columns(state, pod, nodes)
        return scores.tolist(), status

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """score_batch as an int64 array."""
        n = len(pod.init_containers) + len(pod.containers)
        zero = calculate_priority(0, n)
        found = columns_of(nodes)
        if found is not None and n > 0 and not found[0].any_images:
            return np.full(len(nodes), zero, dtype=np.int64), SUCCESS
        total = self.handle.snapshot.num_nodes()
        images = [normalized_image_name(c.image) for c in pod.init_containers + pod.containers]
        if found is not None and n > 0:
            cols, idx = found
            if not cols.has_images[idx].any():
                return np.full(len(nodes), zero, dtype=np.int64), SUCCESS
            # Each image's scaled score per node is kept with the snapshot's columns.
            sums = np.zeros(len(idx), dtype=np.int64)
            for img in images:
                sums += _image_scores(cols, img, total)[idx]
            max_threshold = MAX_CONTAINER_THRESHOLD * n
            clipped = np.minimum(np.maximum(sums, MIN_THRESHOLD), max_threshold)
            scaled = MAX_NODE_SCORE * (clipped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
            return scaled, SUCCESS
        out: list[int] = []
        for ni in nodes:
            states = ni.image_states
            if not states:
                out.append(zero)
                continue
            total_score = 0
            for img in images:
                st = states.get(img)
                if st is not None:
                    total_score += scaled_image_score(st, total)
            out.append(calculate_priority(total_score, n) if total_score else zero)
        return np.asarray(out, dtype=np.int64), SUCCESS


def new(args: Any, handle: Handle) -> ImageLocality:
    return ImageLocality(handle)
