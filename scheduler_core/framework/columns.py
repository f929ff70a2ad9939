"""Node state kept as columns (arrays over a snapshot's nodes) for vectorised plugin passes.

Each NodeInfo of a snapshot writes its aggregates into these arrays as pods are added and removed,
so a plugin can evaluate thousands of nodes in a few numpy operations instead of a Python call per
node. The arrays are int64; every quantity the scheduler compares (millicores, bytes, pod counts)
fits. Plugins reach them through ``columns_of(nodes)``, which answers None when any node is not a
column-backed snapshot node (a clone made by preemption or for nominated pods): the plugin then
takes its per-node path.

Derived per-snapshot data lives here too, built on first use: a label key's values as ids per
node (node labels do not change within a snapshot), selector masks over the nodes, and counts
of each node's pods that satisfy a predicate, which follow pod changes by NodeInfo.generation
so that a cycle recounts only the nodes whose pods changed since the last one.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, Final, overload

import numpy as np

from scheduler_core.objects.labels import (
    NodeSelector,
    NodeSelectorTerm,
    Requirement,
    Selector,
)

if TYPE_CHECKING:
    from scheduler_core.framework.types import NodeInfo
    from scheduler_core.objects.api import Pod

Array = Any  # numpy.ndarray; kept loose so the engine stays mypy-clean without numpy stubs

# lowest_priorities' value for a node without pods: above every pod priority (an int32).
NO_POD_PRIORITY: Final = 2**62
_LOWEST_PRIORITY: Final = ("lowest pod priority",)  # its key among the pod counts
_PRIORITY: Final = operator.attrgetter("priority")


class NodeColumns:
    """Per-node aggregates of one snapshot, indexed by the node's position in it."""

    __slots__ = (
        "n",
        "alloc_cpu",
        "alloc_mem",
        "alloc_eph",
        "alloc_pods",
        "req_cpu",
        "req_mem",
        "req_eph",
        "nz_cpu",
        "free_pods",
        "free_cpu",
        "free_mem",
        "free_eph",
        "nz_mem",
        "num_pods",
        "generation",
        "num_affinity",
        "num_anti_affinity",
        "affinity_pods",
        "anti_affinity_pods",
        "has_taints",
        "unschedulable",
        "has_images",
        "has_ports",
        "infos",
        "_info_array",
        "_all_rows",
        "_cpu_memory_positive",
        "any_unschedulable",
        "any_images",
        "_names",
        "_name_list",
        "_covers",
        "_name_order",
        "_taint_sets",
        "_labels",
        "_requirements",
        "_pod_counts",
        "caches",
    )

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        n = len(node_infos)
        self.n = n

        def col(values: Any) -> Array:
            return np.fromiter(values, dtype=np.int64, count=n)

        self.alloc_cpu = col(ni.allocatable.milli_cpu for ni in node_infos)
        self.alloc_mem = col(ni.allocatable.memory for ni in node_infos)
        self.alloc_eph = col(ni.allocatable.ephemeral_storage for ni in node_infos)
        self.alloc_pods = col(ni.allocatable.allowed_pod_number for ni in node_infos)
        self.req_cpu = col(ni.requested.milli_cpu for ni in node_infos)
        self.req_mem = col(ni.requested.memory for ni in node_infos)
        self.req_eph = col(ni.requested.ephemeral_storage for ni in node_infos)
        self.nz_cpu = col(ni.non_zero_requested.milli_cpu for ni in node_infos)
        self.nz_mem = col(ni.non_zero_requested.memory for ni in node_infos)
        self.num_pods = col(len(ni.pods) for ni in node_infos)
        # Room left (allocatable minus requested), kept up to date with the requested columns.
        self.free_pods = self.alloc_pods - self.num_pods
        self.free_cpu = self.alloc_cpu - self.req_cpu
        self.free_mem = self.alloc_mem - self.req_mem
        self.free_eph = self.alloc_eph - self.req_eph
        self.generation = col(ni.generation for ni in node_infos)
        self.num_affinity = col(len(ni.pods_with_affinity) for ni in node_infos)
        self.num_anti_affinity = col(len(ni.pods_with_required_anti_affinity) for ni in node_infos)
        # The sums of the two above, kept up to date: "no pod has affinity" without a pass.
        self.affinity_pods = int(self.num_affinity.sum())
        self.anti_affinity_pods = int(self.num_anti_affinity.sum())
        self.has_taints = np.fromiter(
            (bool(ni.node.taints) for ni in node_infos), dtype=bool, count=n
        )
        self.unschedulable = np.fromiter(
            (ni.node.unschedulable for ni in node_infos), dtype=bool, count=n
        )
        self.has_images = np.fromiter((bool(ni.image_states) for ni in node_infos), bool, n)
        # Whether any node is cordoned, or has images (kept with has_images by its writer).
        self.any_unschedulable = bool(self.unschedulable.any())
        self.any_images = bool(self.has_images.any())
        self.has_ports = np.fromiter((bool(ni.used_ports) for ni in node_infos), bool, n)
        for i, ni in enumerate(node_infos):
            ni.columns = self
            ni.index = i
        self.infos: Sequence[NodeInfo] = node_infos
        self._info_array: Array | None = None
        self._all_rows: Array | None = None
        self._cpu_memory_positive: bool | None = None
        self._names: Array | None = None
        self._name_list: list[str] | None = None
        self._covers: tuple[Array, bool] | None = None
        self._name_order: tuple[Array, Array] | None = None
        self._taint_sets: tuple[Array, list[Any]] | None = None
        self._labels: dict[str, LabelColumn] = {}
        self._requirements: dict[Requirement, Array] = {}
        self._pod_counts: dict[Hashable, tuple[Array, Array]] = {}
        # Plugin-owned values derived from this snapshot's nodes (see remember()).
        self.caches: dict[Hashable, Any] = {}

    def info_array(self) -> Array:
        """The NodeInfos as an object array: ``info_array()[idx].tolist()`` lists the rows'
        nodes without a Python step per node."""
        if self._info_array is None:
            infos = np.empty(self.n, dtype=object)
            infos[:] = self.infos
            self._info_array = infos
        return self._info_array

    def all_rows(self) -> Array:
        """The index array of every node, in snapshot order."""
        if self._all_rows is None:
            self._all_rows = np.arange(self.n, dtype=np.intp)
        return self._all_rows

    def cpu_memory_positive(self) -> bool:
        """Whether every node has some cpu and some memory allocatable (fixed in a snapshot)."""
        if self._cpu_memory_positive is None:
            self._cpu_memory_positive = bool(
                (self.alloc_cpu > 0).all() and (self.alloc_mem > 0).all()
            )
        return self._cpu_memory_positive

    def covers_all(self, idx: Array) -> bool:
        """Whether the rows ``idx`` are every node in snapshot order, so that a column can be
        read whole instead of through ``idx``. Remembered for the last index array asked
        about (index arrays are never modified)."""
        last = self._covers
        if last is not None and last[0] is idx:
            return last[1]
        every = idx is self._all_rows or (
            len(idx) == self.n and not np.count_nonzero(idx != self.all_rows())
        )
        self._covers = (idx, every)
        return every

    def node_names(self) -> list[str]:
        """The node names in snapshot order (do not modify the list)."""
        if self._name_list is None:
            self._name_list = [ni.node.name for ni in self.infos]
        return self._name_list

    def names(self) -> Array:
        """The node names as an object array (``names()[idx].tolist()`` lists them)."""
        if self._names is None:
            self._names = np.array([ni.node.name for ni in self.infos], dtype=object)
        return self._names

    def name_order(self) -> tuple[Array, Array]:
        """The rows in the order of their nodes' names, and the names in that order (an object
        array): ``rows[mask[rows]]`` lists the rows of a mask by name without sorting."""
        if self._name_order is None:
            rows = np.array(sorted(range(self.n), key=self.node_names().__getitem__), np.intp)
            self._name_order = (rows, self.names()[rows])
        return self._name_order

    def taint_sets(self) -> tuple[Array, list[Any]]:
        """The nodes' distinct taint lists: ``ids[i]`` numbers node i's, -1 when it has none.

        ``sets[id]`` is the taint tuple; a verdict per distinct set maps onto the nodes as
        ``table[ids + 1]`` (with the untainted verdict first).
        """
        if self._taint_sets is None:
            index: dict[Any, int] = {}
            ids = np.full(self.n, -1, dtype=np.int64)
            for i in np.flatnonzero(self.has_taints).tolist():
                taints = self.infos[i].node.taints
                found = index.get(taints)
                if found is None:
                    found = index[taints] = len(index)
                ids[i] = found
            self._taint_sets = (ids, list(index))
        return self._taint_sets

    def label(self, key: str) -> LabelColumn:
        """The nodes' values of label ``key`` as ids (node labels are fixed in a snapshot)."""
        found = self._labels.get(key)
        if found is None:
            found = self._labels[key] = LabelColumn(key, self.infos)
        return found

    def refresh(self, i: int, ni: NodeInfo) -> None:
        """Write node i's aggregates after a pod was added or removed."""
        self.req_cpu[i] = ni.requested.milli_cpu
        self.req_mem[i] = ni.requested.memory
        self.req_eph[i] = ni.requested.ephemeral_storage
        self.nz_cpu[i] = ni.non_zero_requested.milli_cpu
        self.nz_mem[i] = ni.non_zero_requested.memory
        self.num_pods[i] = len(ni.pods)
        self.free_pods[i] = self.alloc_pods[i] - len(ni.pods)
        self.free_cpu[i] = self.alloc_cpu[i] - ni.requested.milli_cpu
        self.free_mem[i] = self.alloc_mem[i] - ni.requested.memory
        self.free_eph[i] = self.alloc_eph[i] - ni.requested.ephemeral_storage
        self.generation[i] = ni.generation
        count = len(ni.pods_with_affinity)
        self.affinity_pods += count - int(self.num_affinity[i])
        self.num_affinity[i] = count
        count = len(ni.pods_with_required_anti_affinity)
        self.anti_affinity_pods += count - int(self.num_anti_affinity[i])
        self.num_anti_affinity[i] = count
        self.has_ports[i] = bool(ni.used_ports)

    def pod_counts(self, key: Hashable, predicate: Callable[[Pod], bool]) -> Array:
        """How many of each node's pods satisfy ``predicate`` (int64 over all nodes).

        ``key`` must name the predicate exactly: the counts are kept across cycles under it and
        only the nodes whose pods changed since (by NodeInfo.generation) are counted again.
        Do not modify the array.
        """
        return self._kept_per_node(key, 0, lambda pods: sum(map(predicate, pods)))

    def lowest_priorities(self) -> Array:
        """Each node's lowest pod priority, NO_POD_PRIORITY for a node without pods (int64 over
        all nodes): preemption's "could any pod here be a victim?" without a pass over the
        pods. Kept across cycles like ``pod_counts``, recomputed only for nodes whose pods
        changed. Do not modify the array."""
        return self._kept_per_node(
            _LOWEST_PRIORITY,
            NO_POD_PRIORITY,
            lambda pods: min(map(_PRIORITY, pods), default=NO_POD_PRIORITY),
        )

    def _kept_per_node(self, key: Hashable, empty: int, of: Callable[[list[Pod]], int]) -> Array:
        """``of(node's pods)`` for every node (``empty`` for a node without pods), kept under
        ``key`` across cycles: only the nodes whose generation moved since are read again."""
        entry = self._pod_counts.get(key)
        if entry is None:
            values = np.full(self.n, empty, dtype=np.int64)
            seen = self.generation.copy()
            todo = np.flatnonzero(self.num_pods).tolist()
            if len(self._pod_counts) >= _MAX_POD_COUNTS:
                del self._pod_counts[next(iter(self._pod_counts))]
            self._pod_counts[key] = (values, seen)
        else:
            values, seen = entry
            changed = np.flatnonzero(seen != self.generation)
            if not changed.size:
                return values
            seen[changed] = self.generation[changed]
            todo = changed.tolist()
        infos = self.infos
        for i in todo:
            values[i] = of(infos[i].pods)
        return values

    def remember(self, key: Hashable, value: Any) -> None:
        """Keep a plugin's derived value under ``key`` in ``caches`` (a bounded number)."""
        if len(self.caches) >= _MAX_POD_COUNTS:
            del self.caches[next(iter(self.caches))]
        self.caches[key] = value

    def requirement_mask(self, req: Requirement) -> Array:
        """Which nodes' labels satisfy ``req`` (bool over all nodes; do not modify it)."""
        found = self._requirements.get(req)
        if found is None:
            column = self.label(req.key)
            table = np.empty(len(column.values) + 1, dtype=bool)
            table[0] = req.matches({})
            for j, value in enumerate(column.values):
                table[j + 1] = req.matches({req.key: value})
            if len(self._requirements) >= _MAX_REQUIREMENTS:
                del self._requirements[next(iter(self._requirements))]
            found = self._requirements[req] = table[column.ids + 1]
        return found

    def selector_mask(self, selector: Selector) -> Array:
        """Selector.matches over every node's labels."""
        if selector.is_nothing:
            return np.zeros(self.n, dtype=bool)
        out = np.ones(self.n, dtype=bool)
        for req in selector.requirements:
            out &= self.requirement_mask(req)
        return out

    def node_selector_term_mask(self, term: NodeSelectorTerm) -> Array:
        """NodeSelectorTerm.matches over every node (labels and metadata.name)."""
        if term.error is not None:
            return np.zeros(self.n, dtype=bool)
        out = (
            self.selector_mask(term.labels)
            if term.labels is not None
            else np.ones(self.n, dtype=bool)
        )
        if term.fields is not None:
            names = self.names()
            named = names != ""  # an unnamed node skips the field requirements
            if term.field_nothing:
                out &= ~named
            else:
                for value, equal in term.fields:
                    out &= ~named | ((names == value) == equal)
        return out

    def node_selector_mask(self, selector: NodeSelector) -> Array:
        """NodeSelector.matches over every node: any of its terms."""
        out = np.zeros(self.n, dtype=bool)
        for term in selector.terms:
            out |= self.node_selector_term_mask(term)
        return out


_MAX_POD_COUNTS: Final = 256
_FEW_VALUES: Final = 8  # LabelColumn.table fills up to this many values one at a time
_MAX_REQUIREMENTS: Final = 1024


class LabelColumn:
    """One label key over a snapshot's nodes: ``ids[i]`` numbers node i's value, -1 if absent.

    ``values[id]`` is the value; ids follow the order values are first met in the node list.
    """

    __slots__ = ("key", "ids", "values", "index")

    def __init__(self, key: str, node_infos: Sequence[NodeInfo]) -> None:
        index: dict[str, int] = {}
        ids = np.empty(len(node_infos), dtype=np.int64)
        for i, ni in enumerate(node_infos):
            value = ni.node.labels.get(key)
            if value is None:
                ids[i] = -1
            else:
                found = index.get(value)
                if found is None:
                    found = index[value] = len(index)
                ids[i] = found
        self.key = key
        self.ids: Array = ids
        self.values: list[str] = list(index)
        self.index: dict[str, int] = index

    def table(self, per_value: Mapping[str, Any], default: Any, missing: Any, dtype: Any) -> Array:
        """An array over ids + 1: ``[missing, per_value.get(values[0], default), ...]``.

        Indexing it with ``ids + 1`` maps every node to its value's entry.
        """
        out = np.full(len(self.values) + 1, default, dtype=dtype)
        out[0] = missing
        if len(per_value) > len(self.values):  # e.g. a column over one node: walk the column
            get = per_value.get
            for j, value in enumerate(self.values, 1):
                v = get(value)
                if v is not None:
                    out[j] = v
            return out
        index = self.index
        if len(per_value) <= _FEW_VALUES:
            for value, v in per_value.items():
                at = index.get(value)
                if at is not None:
                    out[at + 1] = v
            return out
        # Many values (a hostname-like key): placed in one numpy assignment.
        rows = np.fromiter(
            map(index.get, per_value, repeat(-1)), dtype=np.intp, count=len(per_value)
        )
        known = rows >= 0
        values = np.array(list(per_value.values()), dtype=dtype)
        out[rows[known] + 1] = values[known]
        return out

    def read(self, per_value: Mapping[str, int], ids: Array) -> Array:
        """Each node's number in ``per_value`` (0 when its value is not there or it lacks the
        label), as int64: ``table(per_value, 0, 0, np.int64)[ids + 1]``, read directly for one
        node (preemption filters its node copies one at a time)."""
        if ids.ndim == 0:  # a batch of one's lane (label_lanes): a number
            return per_value.get(self.values[ids], 0) if ids >= 0 else 0
        if len(ids) == 1:
            i = int(ids[0])
            return np.array((per_value.get(self.values[i], 0) if i >= 0 else 0,), dtype=np.int64)
        return self.table(per_value, 0, 0, np.int64)[ids + 1]

    @classmethod
    def of_one(cls, key: str, node_info: NodeInfo) -> LabelColumn:
        """The column over one node, its id a numpy scalar (see label_lanes)."""
        column = cls.__new__(cls)
        value = node_info.node.labels.get(key)
        column.key = key
        column.values = [] if value is None else [value]
        column.index = {} if value is None else {value: 0}
        column.ids = _ONE_NODE_IDS[value is not None]
        return column


class _IndexCache:
    """Remembers the index array of the last few node lists (the runtime reuses them)."""

    __slots__ = ("entries", "names")

    def __init__(self) -> None:
        self.entries: list[tuple[Sequence[NodeInfo], NodeColumns, Array]] = []
        # The last node list names_of answered for, with its answer (the walk names the
        # feasible nodes, then the cycle does again).
        self.names: tuple[Sequence[NodeInfo], list[str]] | None = None

    def get(self, nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Array] | None:
        if type(nodes) is NodeRows:
            return nodes.cols, nodes.idx
        if nodes:
            cols = nodes[0].columns
            if cols is not None and nodes is cols.infos:  # a snapshot's whole node list
                return cols, cols.all_rows()
            if len(nodes) == 1:  # a per-node call, as a batch of one: not worth remembering
                if cols is None:
                    return None
                return cols, np.array((nodes[0].index,), dtype=np.intp)
        for seq, seen_cols, seen_idx in self.entries:
            if seq is nodes:
                return seen_cols, seen_idx
        if not nodes:
            return None
        cols = nodes[0].columns
        if cols is None:
            return None
        if nodes is cols.infos:  # a snapshot's whole node list
            return cols, cols.all_rows()
        idx = np.empty(len(nodes), dtype=np.intp)
        for i, ni in enumerate(nodes):
            if ni.columns is not cols:
                return None
            idx[i] = ni.index
        self.entries.append((nodes, cols, idx))
        if len(self.entries) > 4:
            self.entries.pop(0)
        return cols, idx

    def put(self, nodes: Sequence[NodeInfo], cols: NodeColumns, idx: Array) -> None:
        """Remember that ``nodes`` are the rows ``idx`` of ``cols`` (derived lists, cheaply)."""
        self.entries.append((nodes, cols, idx))
        if len(self.entries) > 4:
            self.entries.pop(0)


_CACHE = _IndexCache()


class NodeRows(Sequence["NodeInfo"]):
    """Rows ``idx`` of a snapshot's columns as a sequence of NodeInfos, listed only when
    iterated or sliced: a batch plugin that reads the columns (columns_of) never makes the
    list. Filter's driver hands these to each plugin after one has rejected nodes."""

    __slots__ = ("cols", "idx", "_list")

    def __init__(self, cols: NodeColumns, idx: Array) -> None:
        self.cols = cols
        self.idx = idx
        self._list: list[NodeInfo] | None = None

    def _nodes(self) -> list[NodeInfo]:
        if self._list is None:
            self._list = self.cols.info_array()[self.idx].tolist()
        return self._list

    def __len__(self) -> int:
        return len(self.idx)

    @overload
    def __getitem__(self, i: int) -> NodeInfo: ...

    @overload
    def __getitem__(self, i: slice) -> list[NodeInfo]: ...

    def __getitem__(self, i: int | slice) -> NodeInfo | list[NodeInfo]:
        if isinstance(i, slice):
            return self._nodes()[i]
        if self._list is not None:
            return self._list[i]
        return self.cols.infos[int(self.idx[i])]

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self._nodes())


def remember_columns(nodes: Sequence[NodeInfo], cols: NodeColumns, idx: Array) -> None:
    """Tell columns_of that ``nodes`` are rows ``idx`` of ``cols`` (no per-node scan needed)."""
    _CACHE.put(nodes, cols, idx)


def columns_of(nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Array] | None:
    """The columns and index array behind ``nodes``, or None for nodes without columns."""
    return _CACHE.get(nodes)


def names_of(nodes: Sequence[NodeInfo]) -> list[str]:
    """The nodes' names, read from the columns when ``nodes`` are column-backed.

    Asked twice in a row about the same list, it gives the same list: do not modify it.
    """
    last = _CACHE.names
    if last is not None and last[0] is nodes and len(last[1]) == len(nodes):
        return last[1]
    cols = columns_of(nodes)
    if cols is not None:
        c, idx = cols
        if c.covers_all(idx):
            names: list[str] = list(c.node_names())  # every node, in snapshot order
        else:
            names = c.names()[idx].tolist()
    else:
        names = [ni.node.name for ni in nodes]
    _CACHE.names = (nodes, names)
    return names


class NodeMasks:
    """Label predicates over a list of nodes as bool arrays aligned with it: read from the
    snapshot's columns when the nodes are column-backed, else evaluated node by node. Either
    way the predicate is the selector's own, so a plugin states its rule once, over masks."""

    __slots__ = ("nodes", "found")

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.nodes = nodes
        self.found = columns_of(nodes)

    def selector(self, selector: Selector) -> Array:
        """Selector.matches on each node's labels."""
        if self.found is not None:
            cols, idx = self.found
            return cols.selector_mask(selector)[idx]
        return self._each(lambda ni: selector.matches(ni.node.labels))

    def node_selector(self, selector: NodeSelector) -> Array:
        """NodeSelector.matches on each node (labels and metadata.name)."""
        if self.found is not None:
            cols, idx = self.found
            return cols.node_selector_mask(selector)[idx]
        return self._each(lambda ni: selector.matches(ni.node.labels, ni.node.name))

    def node_selector_term(self, term: NodeSelectorTerm) -> Array:
        """NodeSelectorTerm.matches on each node (labels and metadata.name)."""
        if self.found is not None:
            cols, idx = self.found
            return cols.node_selector_term_mask(term)[idx]
        return self._each(lambda ni: term.matches(ni.node.labels, ni.node.name))

    def _each(self, predicate: Callable[[NodeInfo], bool]) -> Array:
        if len(self.nodes) == 1:  # a per-node call: lanes (a numpy scalar), built cheaply
            return np.bool_(predicate(self.nodes[0]))
        return np.fromiter(map(predicate, self.nodes), dtype=bool, count=len(self.nodes))


# A lone node's label id: -1 without the label, else 0 (its column's only value).
_ONE_NODE_IDS: Final = (np.intp(-1), np.intp(0))


def lanes(n: int, value: bool) -> Array:
    """A bool per node of a batch of ``n``, all ``value``: an array, or for a batch of one (a
    per-node call) a numpy scalar, which the same operators combine at a fraction of the cost.
    A rule written over lanes reads its verdicts with true_rows."""
    return np.bool_(value) if n == 1 else np.full(n, value, dtype=bool)


def true_rows(mask: Array) -> list[int]:
    """The positions where ``mask`` (lanes, an array aligned with a batch) is true."""
    if mask.size == 1:  # a batch of one
        return [0] if mask.item() else []
    return np.flatnonzero(mask).tolist()


def label_lanes(nodes: Sequence[NodeInfo], key: str) -> tuple[LabelColumn, Array]:
    """label_ids as lanes: for a batch of one the node's id is a numpy scalar (read straight
    from its labels or the snapshot's column), which ``column.read`` and comparisons take as
    they take the array."""
    if len(nodes) != 1:
        return label_ids(nodes, key)
    ni = nodes[0]
    cols = ni.columns
    if cols is None:
        column = LabelColumn.of_one(key, ni)
        return column, column.ids
    column = cols.label(key)
    return column, column.ids[ni.index]


def label_ids(nodes: Sequence[NodeInfo], key: str) -> tuple[LabelColumn, Array]:
    """Label ``key`` over ``nodes``: its LabelColumn and each node's value id (-1 when the
    node lacks the label). The snapshot's column when the nodes are column-backed, else one
    built over the nodes themselves; ``column.table(...)[ids + 1]`` reads either the same way."""
    found = columns_of(nodes)
    if found is not None:
        column = found[0].label(key)
        return column, column.ids[found[1]]
    column = LabelColumn(key, nodes)
    return column, column.ids
