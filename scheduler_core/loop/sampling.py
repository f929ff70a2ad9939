"""Node sampling: how many nodes Filter looks at, from where, and the walk that stops early.

Mirrors numFeasibleNodesToFind, findNodesThatPassFilters and the nextStartNodeIndex bookkeeping
of findNodesThatFitPod in pkg/scheduler/schedule_one.go of kube-scheduler v1.35, with one worker
(parallelism 1): Filter visits the nodes from the start index onwards, wrapping around, until it
has passed one node more than it wants (that node is evaluated but dropped) or every node was
tried. The walk runs plugin batches over windows of the node columns, so a cycle that wants 10% of
the nodes costs about 10% of a full pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from typing import Final

import numpy as np

from scheduler_core.framework.columns import (
    Array,
    NodeColumns,
    columns_of,
    names_of,
    remember_columns,
)
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.rejections import Rejections
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import Diagnosis, NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.record.verdicts import FilterVerdicts

MIN_FEASIBLE_NODES_TO_FIND: Final = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5
ADAPTIVE_BASE_PERCENTAGE: Final = 50
ADAPTIVE_NODES_PER_PERCENT: Final = 125

# Where the count came from (NodesToFind.rule).
RULE_ALL: Final = "all"  # sampling off: every node is evaluated
RULE_FEW_NODES: Final = "fewer-than-100"  # under 100 nodes to walk: all of them
RULE_PERCENTAGE: Final = "percentage"  # n x percentage / 100, at least 100
RULE_NO_SCORING: Final = "no-scoring"  # no Score plugin, no prioritizer, no filter extender: 1

# Where the configured percentage came from (NodesToFind.source).
SOURCE_PROFILE: Final = "profile"
SOURCE_GLOBAL: Final = "global"


@dataclass(frozen=True, slots=True)
class NodesToFind:
    """How many feasible nodes a cycle looks for before Filter stops, and why.

    ``configured`` is the percentageOfNodesToScore in force (the profile's if set, else the
    global one; ``source`` says which), ``percentage`` the one applied: ``configured``, or when
    that is 0 the adaptive ``50 - nodes/125`` floored at 5. ``minimum`` is True when the count
    was raised to 100.
    """

    count: int
    nodes: int
    rule: str
    configured: int | None = None
    source: str = ""
    percentage: int = 100
    adaptive: bool = False
    minimum: bool = False


def nodes_to_find(
    profile_percentage: int | None, global_percentage: int | None, num_nodes: int
) -> NodesToFind:
    """numFeasibleNodesToFind with the reasons kept (``num_nodes``: the nodes to walk)."""
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return NodesToFind(num_nodes, num_nodes, RULE_FEW_NODES)
    if profile_percentage is not None:
        configured, source = profile_percentage, SOURCE_PROFILE
    else:
        configured, source = global_percentage or 0, SOURCE_GLOBAL
    percentage, adaptive = configured, False
    if percentage == 0:
        adaptive = True
        percentage = max(
            ADAPTIVE_BASE_PERCENTAGE - num_nodes // ADAPTIVE_NODES_PER_PERCENT,
            MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
        )
    count = num_nodes * percentage // 100
    minimum = count < MIN_FEASIBLE_NODES_TO_FIND
    return NodesToFind(
        max(count, MIN_FEASIBLE_NODES_TO_FIND),
        num_nodes,
        RULE_PERCENTAGE,
        configured,
        source,
        percentage,
        adaptive,
        minimum,
    )


def num_feasible_nodes_to_find(
    profile_percentage: int | None, global_percentage: int | None, num_nodes: int
) -> int:
    """How many feasible nodes to look for before Filter stops (upstream's function)."""
    return nodes_to_find(profile_percentage, global_percentage, num_nodes).count


def next_start_index(start: int, processed: int, num_all_nodes: int) -> int:
    """The start index after a walk: moved on by the nodes processed, modulo the cluster size.

    ``processed`` is the feasible nodes found plus the nodes Filter failed in the cycle (a failed
    nominated node included; the node found beyond the count is not).
    """
    return (start + processed) % num_all_nodes if num_all_nodes else 0


@dataclass(slots=True)
class StartIndex:
    """The scheduler's nextStartNodeIndex: one for every profile, kept across cycles."""

    value: int = 0


@dataclass(slots=True)
class Walk:
    """What one Filter walk found: feasible nodes in walk order, or the Error that stopped it."""

    feasible: list[NodeInfo]
    error: Status | None = None


def find_nodes_that_pass_filters(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    nodes: list[NodeInfo],
    *,
    start: int,
    to_find: int,
    verdicts: FilterVerdicts,
    diagnosis: Diagnosis,
    every_error: bool = False,
) -> Walk:
    """Walk ``nodes`` from ``start`` (modulo their number), wrapping, until Filter has passed
    ``to_find`` + 1 nodes or every node was tried; keep the first ``to_find`` that passed.

    Every node evaluated gets its status in ``verdicts`` (in walk order, the dropped extra node
    as Success); the rejected ones go to ``diagnosis`` too. An Error status ends the walk: at
    the first node that gives one (one worker), or, with ``every_error``, after the window in
    which it came, every node of which keeps its status (the conformance traces' rule when
    every node is evaluated).
    """
    n = len(nodes)
    if n == 0:
        return Walk([])
    verdicts.start_walk()
    start %= n
    base = columns_of(nodes)
    if not fwk.has_filter_plugins():
        return Walk(_window(nodes, base, start, min(to_find, n))[0])
    stop_at = to_find + 1 if to_find < n else n + 1  # passes that end the walk
    nominated = fwk.nominated_node_names()
    feasible: list[NodeInfo] = []
    rows: list[Array] = []  # the feasible nodes' column rows, window by window
    walked = passes = 0
    size = min(n, stop_at)
    error: Status | None = None
    while walked < n:
        window, idx = _window(nodes, base, start + walked, min(size, n - walked))
        passed, rejected, err_at, kinds = _filter_window(fwk, state, pod, window, nominated)
        walked += len(window)
        wanted = stop_at - len(feasible)
        flags = np.frombuffer(passed, dtype=np.bool_)  # the 0/1 bytes as bools, not copied
        count = int(np.count_nonzero(flags))
        every = count == len(flags)  # the whole window passed: nothing to pick out
        passes += count
        done = count >= wanted
        # The walk stops at the wanted-th pass: nodes after it were never evaluated.
        cut = int(np.searchsorted(np.cumsum(flags), wanted)) + 1 if done else len(window)
        if err_at is not None and err_at < cut:
            error = rejected[window[err_at].node.name]
            done = True
            if not every_error:
                cut = err_at + 1
        if cut < len(window):
            for ni in window[cut:]:
                rejected.pop(ni.node.name, None)
            kinds = rejected.shared()  # the statuses of the nodes evaluated
            window, flags, passed = window[:cut], flags[:cut], passed[:cut]
        found = list(window) if every else list(compress(window, passed))
        if idx is not None and base is not None:
            rows.append(idx[: len(flags)] if every else idx[: len(flags)][flags])
            remember_columns(found, base[0], rows[-1])
        verdicts.add_passed(
            names_of(found), rows[-1] if idx is not None and base is not None else None
        )
        verdicts.add_statuses(rejected)
        if error is not None:  # an Error is the cycle's outcome, not a node's rejection
            rejected = Rejections({k: st for k, st in rejected.items() if st.code != Code.ERROR})
        diagnosis.node_to_status.update(rejected)
        # Rejections share a few Status values (``kinds``); each adds its plugin once.
        for status in kinds:
            if error is None or status.code != Code.ERROR:
                diagnosis.add_plugin_status(status)
        feasible = found if not feasible else feasible + found
        if done:
            break
        # Size the next window by the pass rate so far, with some slack.
        need = stop_at - len(feasible)
        size = max(_MIN_WINDOW, (need * walked) // max(passes, 1) + need // 4)
    joined = len(rows) > 1
    if len(feasible) > to_find:
        feasible = feasible[:to_find]  # the extra node that ended the walk is dropped
        joined = True
    if joined and base is not None:
        remember_columns(feasible, base[0], np.concatenate(rows)[: len(feasible)])
    return Walk(feasible, error)


_MIN_WINDOW: Final = 64


def _window(
    nodes: list[NodeInfo], base: tuple[NodeColumns, Array] | None, begin: int, size: int
) -> tuple[list[NodeInfo], Array | None]:
    """``size`` nodes from position ``begin`` (modulo their number), as a slice of the columns,
    with their column rows (None when the nodes are not column-backed)."""
    n = len(nodes)
    begin %= n
    idx = base[1] if base is not None else None
    if begin == 0 and size == n:
        return nodes, idx
    end = begin + size
    if end <= n:
        out = nodes[begin:end]
        rows = idx[begin:end] if idx is not None else None
    else:
        out = nodes[begin:] + nodes[: end - n]
        rows = np.concatenate((idx[begin:], idx[: end - n])) if idx is not None else None
    if base is not None:
        remember_columns(out, base[0], rows)
    return out, rows


def _filter_window(
    fwk: Framework,
    state: CycleState,
    pod: Pod,
    window: list[NodeInfo],
    nominated: frozenset[str],
) -> tuple[bytearray, Rejections, int | None, list[Status]]:
    """Filter over one window: in batch, except nodes with nominated pods (filtered one by one,
    with and without those pods, as RunFilterPluginsWithNominatedPods does). The pass flags
    are bytes (1: passed), as filter_nodes gives them, with the statuses of the nodes that did
    not pass, the window position of the first Error and the distinct statuses."""
    if not nominated:
        return fwk.filter_nodes(state, pod, window)
    batch = [ni for ni in window if ni.node.name not in nominated]
    passed_batch, rejected, batch_err, kinds = fwk.filter_nodes(state, pod, batch)
    ok = iter(passed_batch)
    passed = bytearray()
    first_error: int | None = None
    at_batch = 0
    for pos, ni in enumerate(window):
        if ni.node.name not in nominated:
            if batch_err == at_batch and first_error is None:
                first_error = pos
            at_batch += 1
            passed.append(next(ok))
            continue
        status = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
        passed.append(status.is_success())
        if not status.is_success():
            rejected.add_run((ni.node.name,), status)
            kinds.append(status)
            if status.code == Code.ERROR and first_error is None:
                first_error = pos
    return passed, rejected, first_error, kinds
