"""Framework: a profile's plugins sorted into extension points, and the code that runs each point.

Mirrors framework/runtime/framework.go in kube-scheduler v1.35: multiPoint expansion, score
weights, PreFilter result merging and Skip, Filter stopping at the first rejection, Filter with
nominated pods, PreScore Skip, Score with NormalizeScore and range checks.

This module runs the queue's and the scheduling cycle's points; a Framework is built (plugins
made, sorted, checked) in ``build``, and runs the binding cycle's points with
``binding_points.BindingPoints``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

import numpy as np

from scheduler_core.framework import interfaces as fi
from scheduler_core.framework.binding_points import BindingPoints, call
from scheduler_core.framework.build import EXTENSION_POINTS, build_points
from scheduler_core.framework.build import FrameworkError as FrameworkError  # re-exported
from scheduler_core.framework.build import (
    ScoreWeightOverflowError as ScoreWeightOverflowError,  # re-exported
)
from scheduler_core.framework.columns import NodeRows, columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.plugin_scores import PluginScores as PluginScores  # re-exported
from scheduler_core.framework.plugin_scores import all_in_range
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.rejections import Rejections, RowRejections
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.framework.types import (
    NodeInfo,
    NodeScore,
    NodeToStatus,
    PreFilterResult,
    Snapshot,
)
from scheduler_core.objects.api import Pod


@dataclass(slots=True)
class PreFilterOutcome:
    result: PreFilterResult | None
    status: Status
    plugins_with_nodes: frozenset[str]


class Framework(BindingPoints):
    """One profile's runtime. It is also the Handle its plugins receive."""

    def __init__(
        self,
        profile: Any,
        registry: Registry,
        *,
        nominator: Callable[[str], list[Pod]] | None = None,
        extras: Mapping[str, Any] | None = None,
        nominated_nodes: Callable[[], frozenset[str]] | None = None,
    ) -> None:
        """``nominator`` lists a node's nominated pods, ``nominated_nodes`` the nodes with any."""
        self.profile = profile
        self.profile_name: str = profile.scheduler_name
        self.percentage_of_nodes_to_score: int | None = profile.percentage_of_nodes_to_score
        self._snapshot: Snapshot | None = None
        self._nominator = nominator
        self._nominated_nodes = nominated_nodes
        self.extras: dict[str, Any] = dict(extras or {})
        for _, _, attr in EXTENSION_POINTS:
            setattr(self, attr, [])
        self.pre_filter_plugins: list[fi.PreFilterPlugin]
        self.filter_plugins: list[fi.FilterPlugin]
        self.post_filter_plugins: list[fi.PostFilterPlugin]
        self.reserve_plugins: list[fi.ReservePlugin]
        self.pre_score_plugins: list[fi.PreScorePlugin]
        self.score_plugins: list[fi.ScorePlugin]
        self.pre_bind_plugins: list[fi.PreBindPlugin]
        self.bind_plugins: list[fi.BindPlugin]
        self.post_bind_plugins: list[fi.PostBindPlugin]
        self.permit_plugins: list[fi.PermitPlugin]
        self.pre_enqueue_plugins: list[fi.PreEnqueuePlugin]
        self.queue_sort_plugins: list[fi.QueueSortPlugin]
        self.score_weights: dict[str, int] = {}
        # id(plugin) -> (plugin, implements PreFilterExtensions); the plugin keeps the id valid.
        self._extensions: dict[int, tuple[object, fi.PreFilterExtensions | None]] = {}
        self._score_extensions: dict[int, tuple[object, fi.ScoreExtensions | None]] = {}
        self._filter_batches: dict[int, tuple[object, fi.BatchFilter | None]] = {}
        self._plan: tuple[tuple[int, ...], list[Any]] | None = None  # see _score_plan
        self._ext_plan: tuple[tuple[int, ...], list[Any]] | None = None  # see _all_extensions
        self.plugins: dict[str, Any] = {}
        build_points(self, profile, registry)

    # -- Handle ---------------------------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        assert self._snapshot is not None, "no snapshot: the cycle has not started"
        return self._snapshot

    def set_snapshot(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    @property
    def framework(self) -> Framework:
        return self

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self._nominator(node_name) if self._nominator is not None else []

    def nominated_node_names(self) -> frozenset[str]:
        """Nodes that have nominated pods (whose Filter must run with and without them)."""
        if self._nominated_nodes is None:
            return frozenset()
        return self._nominated_nodes()

    def queueing_hints(self) -> dict[str, tuple[Any, ...]]:
        """EnqueueExtensions: the events (ClusterEventWithHint) each plugin of the profile
        registers through ``events_to_register()``, by plugin name."""
        out: dict[str, tuple[Any, ...]] = {}
        for name, pl in self.plugins.items():
            register = getattr(pl, "events_to_register", None)
            if register is not None:
                out[name] = tuple(register())
        return out

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    # -- PreEnqueue -----------------------------------------------------------------------------

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        for pl in self.pre_enqueue_plugins:
            status = call(pl, pl.pre_enqueue, pod)
            if not status.is_success():
                return status.with_plugin(pl.name)
        return SUCCESS

    # -- PreFilter ------------------------------------------------------------------------------

    def run_pre_filter_plugins(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        steps: list[tuple[str, Status, PreFilterResult | None]] | None = None,
    ) -> PreFilterOutcome:
        """Run PreFilter plugins; ``steps`` (when given) receives each plugin's own outcome."""
        skip: set[str] = set()
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        return_status = SUCCESS
        try:
            for pl in self.pre_filter_plugins:
                try:
                    r, s = pl.pre_filter(state, pod, nodes)
                except Exception as err:  # a plugin bug is an Error status naming it
                    r, s = None, Status(Code.ERROR, (f"{type(err).__name__}: {err}",))
                if steps is not None:
                    steps.append((pl.name, s.with_plugin(pl.name), r))
                if s.is_skip():
                    skip.add(pl.name)
                    continue
                if not s.is_success():
                    s = s.with_plugin(pl.name)
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return PreFilterOutcome(None, s, frozenset())
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    msg = f'running PreFilter plugin "{pl.name}": {s.message()}'
                    return PreFilterOutcome(None, Status(Code.ERROR, (msg,), pl.name), frozenset())
                if r is not None and not r.all_nodes():
                    with_nodes.add(pl.name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    return PreFilterOutcome(
                        result,
                        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)),
                        frozenset(with_nodes),
                    )
            return PreFilterOutcome(result, return_status, frozenset(with_nodes))
        finally:
            state.skip_filter_plugins = frozenset(skip)

    def _extensions_of(self, pl: fi.PreFilterPlugin) -> fi.PreFilterExtensions | None:
        """The plugin if it has PreFilterExtensions, remembered (a Protocol check is slow)."""
        found = self._extensions.get(id(pl))
        if found is None:
            ext = pl if isinstance(pl, fi.PreFilterExtensions) else None
            found = self._extensions[id(pl)] = (pl, ext)
        return found[1]

    def _score_plan(self) -> list[tuple[fi.ScorePlugin, Any, Any, fi.ScoreExtensions | None]]:
        """Each Score plugin with how it is called: its batch scorer (``score_columns``, int64
        arrays, else ``score_batch``, lists: the same rule either way), its ``normalize_batch``
        and, without one, its ScoreExtensions. Looked up once for the plugin list in force."""
        plugins = self.score_plugins
        key = tuple(map(id, plugins))  # the plan keeps the plugins, so their ids stay theirs
        if self._plan is None or self._plan[0] != key:
            plan = []
            for pl in plugins:
                batch: fi.BatchScorer | None = None
                if isinstance(pl, fi.ColumnScore):
                    batch = pl.score_columns
                elif isinstance(pl, fi.BatchScore):
                    batch = pl.score_batch
                fast = pl.normalize_batch if isinstance(pl, fi.BatchNormalize) else None
                ext = self._score_extensions_of(pl) if fast is None else None
                plan.append((pl, batch, fast, ext))
            self._plan = (key, plan)
        return self._plan[1]

    def _filter_batch_of(self, pl: fi.FilterPlugin) -> fi.BatchFilter | None:
        """The plugin if it has ``filter_batch`` (BatchFilter), remembered like the above."""
        found = self._filter_batches.get(id(pl))
        if found is None:
            batch = pl if isinstance(pl, fi.BatchFilter) else None
            found = self._filter_batches[id(pl)] = (pl, batch)
        return found[1]

    def _score_extensions_of(self, pl: fi.ScorePlugin) -> fi.ScoreExtensions | None:
        """The plugin if it has ScoreExtensions (NormalizeScore), remembered like the above."""
        found = self._score_extensions.get(id(pl))
        if found is None:
            ext = pl if isinstance(pl, fi.ScoreExtensions) else None
            found = self._score_extensions[id(pl)] = (pl, ext)
        return found[1]

    def _all_extensions(self) -> list[tuple[str, fi.PreFilterExtensions]]:
        """The PreFilter plugins with PreFilterExtensions, in order, by name: looked up once
        for the plugin list in force (preemption's dry runs ask for each pod they remove)."""
        plugins = self.pre_filter_plugins
        key = tuple(map(id, plugins))  # the list keeps the plugins, so their ids stay theirs
        if self._ext_plan is None or self._ext_plan[0] != key:
            found = [(pl.name, self._extensions_of(pl)) for pl in plugins]
            self._ext_plan = (key, [(name, ext) for name, ext in found if ext is not None])
        return self._ext_plan[1]

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        skip = state.skip_filter_plugins
        for name, ext in self._all_extensions():
            if skip and name in skip:
                continue
            s = ext.add_pod(state, pod, pod_to_add, node_info)
            if not s.is_success():
                return Status(
                    Code.ERROR, (f'running AddPod on PreFilter plugin "{name}": {s.message()}',)
                )
        return SUCCESS

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        skip = state.skip_filter_plugins
        for name, ext in self._all_extensions():
            if skip and name in skip:
                continue
            s = ext.remove_pod(state, pod, pod_to_remove, node_info)
            if not s.is_success():
                return Status(
                    Code.ERROR,
                    (f'running RemovePod on PreFilter plugin "{name}": {s.message()}',),
                )
        return SUCCESS

    # -- Filter ---------------------------------------------------------------------------------

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if skip and pl.name in skip:
                continue
            try:
                status = pl.filter(state, pod, node_info)
            except Exception as err:
                status = Status(Code.ERROR, (f"{type(err).__name__}: {err}",))
            if status.code != Code.SUCCESS:
                return _filter_status(pl.name, status)
        return SUCCESS

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[bytearray, Rejections, int | None, list[Status]]:
        """Run Filter over many nodes at once, plugin by plugin.

        Equivalent to run_filter_plugins on each node (a node's status is its first plugin's
        that did not answer Success), but each plugin sees the surviving nodes in one call: a
        plugin with ``filter_batch(state, pod, nodes) -> Mapping[int, Status]`` answers with the
        rejected positions only, so a pass costs no Python work per passing node. Returns the
        pass flags aligned with ``nodes``, the other nodes' statuses (an Error among them, as
        run_filter_plugins words it, ends that node's Filter as a rejection does), and the
        position of the first node whose status is an Error, if any, and the distinct statuses
        among the others' (each once: they are a few shared values). The flags are bytes
        (1: passed), which numpy reads as a bool array without a pass.
        """
        passed = _ALL_PASSED * len(nodes)
        flags_view: Any = None  # passed as a numpy array, once a node fails
        rejected = Rejections()  # runs of names, one per rejecting plugin
        kinds: list[Status] = []
        first_error: int | None = None
        alive: Sequence[NodeInfo] = nodes  # never mutated: each pass makes a new sequence
        positions: Any = None  # alive[i] is nodes[positions[i]] (an intp array); None = identity
        skip = state.skip_filter_plugins
        cols = base = columns_of(alive)
        for pl in self.filter_plugins:
            if not alive:
                break
            if skip and pl.name in skip:
                continue
            batch = self._filter_batch_of(pl)
            try:
                if batch is not None:
                    bad: Mapping[int, Status] = batch.filter_batch(state, pod, alive)
                else:
                    bad = {}
                    for i, ni in enumerate(alive):
                        st = pl.filter(state, pod, ni)
                        if st.code != Code.SUCCESS:
                            bad[i] = st
            except Exception as err:  # a plugin bug: an Error on every node it was given
                crash = Status(Code.ERROR, (f"{type(err).__name__}: {err}",))
                bad = dict.fromkeys(range(len(alive)), crash)
            if not bad:
                continue
            runs, labels = _labelled_runs(pl.name, bad)
            if not runs:
                continue
            kinds.extend(labels)
            if flags_view is None:
                flags_view = np.frombuffer(passed, dtype=np.uint8)
            for rows, status in runs:
                at = rows if positions is None else positions[rows]
                flags_view[at] = 0
                if base is not None:
                    names: list[str] = base[0].names()[base[1][at]].tolist()
                else:
                    names = [nodes[pos].node.name for pos in at.tolist()]
                rejected.add_run(names, status)
                first_error = _first_error(first_error, at, status)
            gone = runs[0][0] if len(runs) == 1 else np.concatenate([rows for rows, _ in runs])
            mask = np.ones(len(alive), dtype=bool)
            mask[gone] = False
            positions = positions[mask] if positions is not None else np.flatnonzero(mask)
            if cols is not None:
                cols = (cols[0], cols[1][mask])
                alive = NodeRows(*cols)  # listed only if a plugin iterates it
            else:
                alive = list(compress(alive, mask.tolist()))
        return passed, rejected, first_error, kinds

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """Filter twice when higher-or-equal priority pods are nominated to the node."""
        status = SUCCESS
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, err = self.add_nominated_pods(
                    pod, state, node_info
                )
                if err is not None:
                    return err
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def add_nominated_pods(
        self,
        pod: Pod,
        state: CycleState,
        node_info: NodeInfo,
        nominated: Sequence[Pod] | None = None,
    ) -> tuple[bool, CycleState, NodeInfo, Status | None]:
        """Copies of state and node_info with the equal-or-higher priority pods nominated to the
        node added; ``nominated`` overrides the nominator (an explanation replays a cycle)."""
        if nominated is None:
            if self._nominator is None:
                return False, state, node_info, None
            nominated = self._nominator(node_info.node.name)
        if not nominated:
            return False, state, node_info, None
        info_out = node_info.clone()
        state_out = state.clone()
        added = False
        for nominated_pod in nominated:
            if nominated_pod.priority >= pod.priority and nominated_pod.uid != pod.uid:
                info_out.add_pod(nominated_pod)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, nominated_pod, info_out)
                if not s.is_success():
                    return False, state, node_info, s
                added = True
        return added, state_out, info_out, None

    # -- PostFilter -----------------------------------------------------------------------------

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
    ) -> tuple[fi.PostFilterResult | None, Status]:
        """Run PostFilter plugins until one succeeds; rejections' reasons are joined."""
        reasons: list[str] = []
        rejector = ""
        result: fi.PostFilterResult | None = None
        for pl in self.post_filter_plugins:
            try:
                r, s = pl.post_filter(state, pod, node_to_status)
            except Exception as err:
                r, s = None, Status(Code.ERROR, (f"{type(err).__name__}: {err}",))
            if s.is_success():
                return r, s
            if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, s.with_plugin(pl.name)
            if not s.is_rejected():
                return None, Status(Code.ERROR, s.reasons, pl.name)
            if r is not None:
                result = r
            reasons.extend(s.reasons)
            rejector = rejector or pl.name
        return result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector)

    # -- PreScore and Score ---------------------------------------------------------------------

    def run_pre_score_plugins(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        steps: list[tuple[str, Status]] | None = None,
    ) -> Status:
        """Run PreScore plugins; ``steps`` (when given) receives each plugin's status."""
        skip: set[str] = set()
        try:
            for pl in self.pre_score_plugins:
                s = pl.pre_score(state, pod, nodes)
                if steps is not None:
                    steps.append((pl.name, s.with_plugin(pl.name)))
                if s.is_skip():
                    skip.add(pl.name)
                    continue
                if not s.is_success():
                    return Status(
                        Code.ERROR, (f'running PreScore plugin "{pl.name}": {s.message()}',)
                    )
            return SUCCESS
        finally:
            state.skip_score_plugins = frozenset(skip)

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[PluginScores], Status]:
        """Score, then NormalizeScore, then the range check, each over every plugin. A plugin's
        ``score_batch`` and ``normalize_batch`` (every node at once, lists or int64 arrays) are
        preferred to its per-node Score and its NormalizeScore over NodeScores.

        When a plugin's Score or NormalizeScore fails, the answer is the first such Error (in
        plugin order) with every plugin's scores as each computed them (a failed Score counts
        0, a failed NormalizeScore leaves the raw scores): what the conformance traces show.
        """
        ran: list[tuple[fi.ScorePlugin, Sequence[int], Any, Any]] = []
        skip = state.skip_score_plugins
        failed: Status | None = None
        for pl, batch, fast, ext in self._score_plan():
            if skip and pl.name in skip:
                continue
            if batch is not None:
                raw, s = batch(state, pod, nodes)
            else:
                s = SUCCESS
                values: list[int] = []
                for ni in nodes:
                    score, st = pl.score(state, pod, ni)
                    if not st.is_success() and s.is_success():
                        s = st
                    values.append(score)
                raw = values
            if not s.is_success():
                if failed is None:
                    msg = f'running Score plugins: plugin "{pl.name}" failed with: {s.message()}'
                    failed = Status(Code.ERROR, (msg,))
                if len(raw) != len(nodes):
                    raw = [0] * len(nodes)
            ran.append((pl, raw, fast, ext))
        normalized: list[Sequence[int]] = []
        for pl, raw, fast, ext in ran:
            if fast is not None:
                # normalize_batch(state, pod, raw) -> normalized: NormalizeScore without NodeScores.
                normalized.append(fast(state, pod, raw))
            elif ext is not None:
                scores = [NodeScore(ni.node.name, v) for ni, v in zip(nodes, raw, strict=True)]
                s = ext.normalize_score(state, pod, scores)
                if not s.is_success() and failed is None:
                    msg = (
                        f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                        f"{s.message()}"
                    )
                    failed = Status(Code.ERROR, (msg,))
                normalized.append([ns.score for ns in scores])
            else:
                normalized.append(raw)
        weights = self.score_weights
        entries = [
            (pl.name, weights[pl.name], raw, column)
            for (pl, raw, _, _), column in zip(ran, normalized, strict=True)
        ]
        if failed is not None:
            return [PluginScores(*entry) for entry in entries], failed
        out = all_in_range(entries)
        if isinstance(out, Status):
            return [], out
        return out, SUCCESS

    # -- binding cycle --------------------------------------------------------------------------
    # Each method takes an optional ``steps`` list that receives (plugin, status) per plugin run,
    # which the scheduler turns into one event per plugin.


# A run of a plugin's answer: ascending positions, with the status they share or each one's.
_Run = tuple[Any, Status | list[Status]]


def _labelled_runs(plugin: str, bad: Mapping[int, Status]) -> tuple[list[_Run], list[Status]]:
    """A Filter plugin's answer (``bad``: rejected position -> status) as runs of positions
    with their statuses as RunFilterPlugins reports them (_filter_status), Success left out,
    and the distinct statuses. A RowRejections' runs are taken as they are; a dict's shared
    Status values are checked and labelled once each (only C-level maps run per node:
    thousands of nodes can fail at once)."""
    if type(bad) is RowRejections:
        runs: list[_Run] = []
        labels: list[Status] = []
        for rows, st in bad.runs:
            label = _filter_status(plugin, st)
            if label.code != Code.SUCCESS:
                runs.append((rows, label))
                labels.append(label)
        return runs, labels
    shared = list(bad.values())
    one = shared[0]
    if one.code != Code.SUCCESS and shared == [one] * len(shared):
        # One status (value) for every rejected node, the usual answer: label it once, no
        # lookup per node. (The comparison stops at the first other status.)
        label = _filter_status(plugin, one)
        gone = np.fromiter(bad, dtype=np.intp, count=len(shared))
        if len(gone) > 1 and not (gone[1:] > gone[:-1]).all():  # in node order
            gone.sort()
        return [(gone, label)], [label]
    labelled = {
        key: _filter_status(plugin, st)
        for key, st in dict(zip(map(id, shared), shared, strict=True)).items()
    }
    kept_labels = [st for st in labelled.values() if st.code != Code.SUCCESS]
    if len(kept_labels) < len(labelled):  # some answered Success: those nodes pass
        kept = sorted(i for i in bad if labelled[id(bad[i])].code != Code.SUCCESS)
        if not kept:
            return [], []
        statuses = list(map(labelled.__getitem__, map(id, map(bad.__getitem__, kept))))
        gone = np.array(kept, dtype=np.intp)
    else:
        statuses = list(map(labelled.__getitem__, map(id, shared)))
        gone = np.fromiter(bad, dtype=np.intp, count=len(shared))
        if len(gone) > 1 and not (gone[1:] > gone[:-1]).all():  # in node order
            order = np.argsort(gone, kind="stable")
            gone = gone[order]
            statuses = [statuses[i] for i in order.tolist()]
    return [(gone, statuses)], kept_labels


def _first_error(first: int | None, at: Any, status: Status | list[Status]) -> int | None:
    """The lowest position whose status is an Error: ``first`` or one of the run's (``at``,
    ascending)."""
    if isinstance(status, Status):
        found = int(at[0]) if status.code == Code.ERROR else None
    else:
        found = next(
            (pos for pos, st in zip(at.tolist(), status, strict=True) if st.code == Code.ERROR),
            None,
        )
    if found is None:
        return first
    return found if first is None or found < first else first


_ALL_PASSED = bytearray(b"\x01")  # one node's flag in filter_nodes' answer


def _filter_status(plugin: str, status: Status) -> Status:
    """A Filter plugin's answer as RunFilterPlugins reports it: a rejection names the plugin;
    any other code that is not Success becomes an Error saying which plugin failed."""
    if status.code == Code.SUCCESS:
        return status
    if not status.is_rejected():
        key = (plugin, status.reasons)
        found = _FILTER_ERRORS.get(key)
        if found is None:
            msg = f'running "{plugin}" filter plugin: {status.message()}'
            if len(_FILTER_ERRORS) > 1024:
                _FILTER_ERRORS.clear()
            found = _FILTER_ERRORS[key] = Status(Code.ERROR, (msg,), plugin)
        return found
    return status.with_plugin(plugin)


_FILTER_ERRORS: dict[tuple[str, tuple[str, ...]], Status] = {}
