"""The compare page's data: what differs between two runs of one cluster, built on the server.

Four parts, each a pure function of stored data: the effective configurations' differing fields
(after defaulting), the pods placed differently, pods and requested resources per node side by
side (one node order for both runs), and aligned score heatmaps (one node order, one plugin
order). ``summary`` says it all in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from django.utils.translation import gettext, ngettext, pgettext

from scheduler_core import config as engine_config
from scheduler_core.words import listed

from ...models import Run
from .. import selectors
from ..execution import script
from . import charts, overview
from .charts import DEFAULT_TOP_N, SCORE_MODES

ABSENT: Final = "—"
RESOURCES: Final = ("cpu", "memory", "pods")


# -- configuration -----------------------------------------------------------------------------


def effective_config(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The v1 wire form of ``raw`` after upstream defaulting; raises ConfigError if invalid."""
    return engine_config.dump_config(engine_config.load_config(dict(raw or {})))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(
        isinstance(v, Mapping) and set(v) <= {"name", "weight"} for v in value
    ):
        return listed(
            f"{v.get('name')} ×{v['weight']}" if v.get("weight") else str(v.get("name"))
            for v in value
        )
    if isinstance(value, (list, Mapping)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _flatten(value: Any, path: str, out: dict[str, str]) -> None:
    if isinstance(value, Mapping) and value:
        for key, item in value.items():
            if key in ("apiVersion", "kind") and path:
                continue  # an args object's type, the same whenever its plugin is
            _flatten(item, f"{path}.{key}" if path else str(key), out)
    else:
        out[path] = _scalar(value)


def _plugin_lists(plugins: Mapping[str, Any], path: str, out: dict[str, str]) -> None:
    # One row per plugin per list: "score.enabled.NodeResourcesFit: weight 5" reads as a diff.
    for point, sets in plugins.items():
        for which in ("enabled", "disabled"):
            for p in (sets or {}).get(which) or []:
                weight = p.get("weight")
                out[f"{path}plugins.{point}.{which}.{p['name']}"] = (
                    f"weight {weight}" if weight else which
                )


def flatten_config(wire: Mapping[str, Any]) -> dict[str, str]:
    """Dotted field path -> readable value; plugins and pluginConfig keyed by plugin name.

    Profile fields carry a ``profiles[<schedulerName>].`` prefix only when there are several.
    """
    out: dict[str, str] = {}
    for key, value in wire.items():
        if key not in ("profiles", "apiVersion", "kind"):
            _flatten(value, key, out)
    profiles = list(wire.get("profiles") or [])
    for profile in profiles:
        prefix = f"profiles[{profile.get('schedulerName')}]." if len(profiles) > 1 else ""
        for key, value in profile.items():
            if key == "plugins":
                _plugin_lists(value or {}, prefix, out)
            elif key == "pluginConfig":
                for entry in value or []:
                    _flatten(entry.get("args") or {}, f"{prefix}pluginConfig.{entry['name']}", out)
            else:
                _flatten(value, f"{prefix}{key}", out)
    return out


def config_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, str]]:
    """The fields whose effective values differ, sorted by path; a missing field reads "—"."""
    flat_a, flat_b = flatten_config(a), flatten_config(b)
    return [
        {"field": path, "a": flat_a.get(path, ABSENT), "b": flat_b.get(path, ABSENT)}
        for path in sorted(set(flat_a) | set(flat_b))
        if flat_a.get(path) != flat_b.get(path)
    ]


def config_diff_of_runs(raw_a: Mapping[str, Any], raw_b: Mapping[str, Any]) -> dict[str, Any]:
    """``{"rows": config_diff}`` of two stored configurations, or ``{"error": ...}``; each row
    also says its values as the reader reads them (``a_said``, ``b_said``: "权重 5", "已禁用")."""
    try:
        rows = config_diff(effective_config(raw_a), effective_config(raw_b))
        return {"rows": [{**r, "a_said": _value(r["a"]), "b_said": _value(r["b"])} for r in rows]}
    except (engine_config.ConfigError, ValueError, TypeError, KeyError) as err:
        return {
            "rows": [],
            "error": gettext("configuration not readable: %(error)s") % {"error": err},
        }


# -- nodes -------------------------------------------------------------------------------------


def node_rows(usage_a: Mapping[str, Any], usage_b: Mapping[str, Any]) -> dict[str, Any]:
    """Pods and requested share per node after each run, in the snapshot's node order.

    Only nodes that hold a pod after either run are listed (a 500-node cluster with a few pods
    stays a short table); ``idle`` counts the others.
    """
    by_b = {r["node"]: r for r in usage_b["rows"]}
    rows, idle = [], 0
    for ra in usage_a["rows"]:
        rb = by_b.get(ra["node"])
        if rb is None:
            continue
        if not (ra["pods"]["after"] or rb["pods"]["after"]):
            idle += 1
            continue
        row: dict[str, Any] = {"node": ra["node"]}
        for res in RESOURCES:
            row[res] = {
                "a": ra[res]["after"],
                "b": rb[res]["after"],
                "a_pct": ra[res]["after_pct"],
                "b_pct": rb[res]["after_pct"],
            }
        row["differ"] = row["pods"]["a"] != row["pods"]["b"]
        rows.append(row)
    return {"rows": rows, "idle": idle}


def nodes_used(usage: Mapping[str, Any]) -> int:
    """Nodes holding at least one pod after the run."""
    return sum(1 for r in usage["rows"] if r["pods"]["after"])


FIGURE_NODES: Final = 40


def pods_per_node_figure(
    nodes: Mapping[str, Any], label_a: str, label_b: str, *, limit: int = FIGURE_NODES
) -> dict[str, Any]:
    """Horizontal bars, A and B per node, one row per node so every name shows.

    Past ``limit`` nodes, the ones whose pod counts differ most are drawn, still in the
    cluster's order, and the title says how many of how many.
    """
    rows = list(nodes["rows"])
    title = gettext("Pods per node after each run")
    if len(rows) > limit:
        ranked = sorted(rows, key=lambda r: -abs(r["pods"]["a"] - r["pods"]["b"]))
        keep = {id(r) for r in ranked[:limit]}
        rows = [r for r in rows if id(r) in keep]
        title = gettext(
            "Pods per node after each run: the %(limit)s nodes that differ most, of %(total)s"
        ) % {"limit": limit, "total": len(nodes["rows"])}
    names = [r["node"] for r in rows]
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": label,
            "y": names,
            "x": [r["pods"][side] for r in rows],
            "marker": {"color": color},
        }
        for label, side, color in ((label_a, "a", "#9bb7e0"), (label_b, "b", "#326ce5"))
    ]
    return {
        "data": traces,
        "layout": {
            "barmode": "group",
            "title": {"text": title},
            "yaxis": {"type": "category", "autorange": "reversed", "automargin": True},
            "xaxis": {
                "title": {"text": gettext("pods")},
                "automargin": True,
                "rangemode": "tozero",
            },
            "height": 120 + 30 * max(1, len(names)),
            "legend": {"orientation": "v"},  # beside the plot: clear of title and labels
            "margin": {"t": 50, "l": 10, "r": 10, "b": 40},
        },
    }


# -- score heatmaps ----------------------------------------------------------------------------


def _reindex(table: Mapping[str, Any], nodes: list[str], plugins: list[str]) -> dict[str, Any]:
    row_of = {n: i for i, n in enumerate(table["nodes"])}
    col_of = {p: j for j, p in enumerate(table["plugins"])}
    weights = dict(zip(table["plugins"], table["weights"], strict=True))
    values = {
        mode: [
            [
                table["values"][mode][row_of[n]][col_of[p]] if n in row_of and p in col_of else None
                for p in plugins
            ]
            for n in nodes
        ]
        for mode in SCORE_MODES
    }
    return {
        **table,
        "nodes": nodes,
        "plugins": plugins,
        "weights": [weights.get(p, 0) for p in plugins],
        "values": values,
    }


def aligned_heatmaps(
    table_a: Mapping[str, Any] | None,
    table_b: Mapping[str, Any] | None,
    *,
    top_n: int = DEFAULT_TOP_N,
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Two heatmaps with the same rows and columns: A's top N nodes then B's, A's plugins then B's.

    A plugin one profile does not score has an empty column on that side (weight ×0).
    """
    tables = [t for t in (table_a, table_b) if t and t["plugins"]]
    if not tables:
        return None, None
    nodes = list(dict.fromkeys(n for t in tables for n in t["nodes"][:top_n]))
    plugins = list(dict.fromkeys(p for t in tables for p in t["plugins"]))
    return tuple(  # type: ignore[return-value]
        _heatmap(_reindex(t, nodes, plugins)) if t and t["plugins"] else None
        for t in (table_a, table_b)
    )


def _heatmap(table: dict[str, Any]) -> dict[str, Any]:
    """An aligned score table: the page draws it with the run page's heatmap builder
    (static/playground/score_figures.js), the one place a score figure is made."""
    return {"table": table}


# -- placements and the summary ----------------------------------------------------------------


def placed_differently(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if not r["same"]]


# How many moved pods the summary names before it counts the rest.
SUMMARY_MOVES: Final = 3
# How many differing configuration fields the summary names before it points at the table.
SUMMARY_FIELDS: Final = 3


def _value(value: str) -> str:
    """A plugin list's value of the configuration diff ("weight 5", "enabled") as said."""
    if value.startswith("weight "):
        return gettext("weight %(weight)s") % {"weight": value.removeprefix("weight ")}
    said = {
        "enabled": pgettext("plugin list", "enabled"),
        "disabled": pgettext("plugin list", "disabled"),
    }
    return said.get(value, value)


def changed_fields(rows: Sequence[Mapping[str, str]]) -> list[str]:
    """Each differing field of the configuration diff as a reader says it: "TaintToleration's
    Score weight set to 5", "TaintToleration disabled", "NodeResourcesFit's
    scoringStrategy.type LeastAllocated → MostAllocated"."""
    disabled = {
        r["field"].rsplit(".", 1)[-1]
        for r in rows
        if ".disabled." in r["field"] and r["b"] != ABSENT
    }
    said: list[str] = []
    for row in rows:
        field, a, b = row["field"], row["a"], row["b"]
        plugin = field.rsplit(".", 1)[-1]
        listed_plugin = ".plugins." in f".{field}"  # a plugin list's row, not pluginConfig
        if not listed_plugin and field.startswith("pluginConfig.") and field.count(".") >= 2:
            _, name, rest = field.split(".", 2)
            said.append(
                gettext("%(plugin)s's %(field)s %(a)s → %(b)s")
                % {"plugin": name, "field": rest, "a": a, "b": b}
            )
        elif not listed_plugin:
            said.append(gettext("%(field)s %(a)s → %(b)s") % {"field": field, "a": a, "b": b})
        elif ".disabled." in field:
            said.append(
                (
                    gettext("%(plugin)s disabled")
                    if b != ABSENT
                    else gettext("%(plugin)s no longer disabled")
                )
                % {"plugin": plugin}
            )
        elif plugin in disabled:
            continue  # said with its row in the disabled list
        elif ".score." in field and b.startswith("weight "):
            said.append(
                gettext("%(plugin)s's Score weight set to %(weight)s")
                % {"plugin": plugin, "weight": b.removeprefix("weight ")}
            )
        elif a == ABSENT:
            said.append(gettext("%(plugin)s enabled") % {"plugin": plugin})
        elif b == ABSENT:
            said.append(gettext("%(plugin)s no longer enabled") % {"plugin": plugin})
        else:
            said.append(
                gettext("%(plugin)s %(a)s → %(b)s")
                % {"plugin": plugin, "a": _value(a), "b": _value(b)}
            )
    return said


def _moves(moved: Sequence[Mapping[str, Any]]) -> str:
    unscheduled = gettext("unscheduled")
    shown = [
        gettext("%(pod)s: %(a)s → %(b)s")
        % {"pod": r["pod"], "a": r["a"] or unscheduled, "b": r["b"] or unscheduled}
        for r in moved[:SUMMARY_MOVES]
    ]
    more = len(moved) - len(shown)
    if more:
        shown.append(gettext("%(count)s more") % {"count": more})
    return listed(shown)


def summary(
    label_a: str,
    label_b: str,
    usage_a: Mapping[str, Any],
    usage_b: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any] | None = None,
) -> str:
    """What a student reads first, in two sentences: what B changes in A's scheduler
    configuration (``config``: ``config_diff_of_runs``; not said without it), and what that did
    to the outcome (the pods that went elsewhere, the first few named; the nodes used; the pods
    left unscheduled)."""
    names = {
        "a": gettext("A (%(label)s)") % {"label": label_a},
        "b": gettext("B (%(label)s)") % {"label": label_b},
    }
    changed = ""
    if config is not None and not config.get("error"):
        fields = changed_fields(config.get("rows") or [])
        if not fields:
            changed = gettext("%(a)s and %(b)s run the same scheduler configuration.") % names
        elif len(fields) == 1:
            changed = gettext("%(b)s is %(a)s with one difference: %(change)s.") % {
                **names,
                "change": fields[0],
            }
        elif len(fields) <= SUMMARY_FIELDS:
            changed = gettext("%(b)s is %(a)s with these differences: %(changes)s.") % {
                **names,
                "changes": listed(fields),
            }
        else:
            changed = ngettext(
                "%(b)s differs from %(a)s in %(count)s field of the scheduler configuration, "
                "listed below.",
                "%(b)s differs from %(a)s in %(count)s fields of the scheduler configuration, "
                "listed below.",
                len(fields),
            ) % {**names, "count": len(fields)}
    moved = placed_differently(rows)
    used_a, used_b = nodes_used(usage_a), nodes_used(usage_b)
    left_a = sum(1 for r in rows if r["a"] is None)
    left_b = sum(1 for r in rows if r["b"] is None)
    values = {
        "count": len(moved),
        "moves": _moves(moved),
        "used_a": ngettext("%(count)s node", "%(count)s nodes", used_a) % {"count": used_a},
        "used_b": ngettext("%(count)s node", "%(count)s nodes", used_b) % {"count": used_b},
        "left_a": left_a,
        "left_b": left_b,
    }
    if not moved:
        outcome = gettext("No pod moved: every pod went to the same node under both.")
    elif left_a or left_b:
        outcome = (
            ngettext(
                "Under B, %(count)s pod went somewhere else (%(moves)s); A used %(used_a)s, B "
                "%(used_b)s; pods left unscheduled: %(left_a)s under A, %(left_b)s under B.",
                "Under B, %(count)s pods went somewhere else (%(moves)s); A used %(used_a)s, B "
                "%(used_b)s; pods left unscheduled: %(left_a)s under A, %(left_b)s under B.",
                len(moved),
            )
            % values
        )
    else:
        outcome = (
            ngettext(
                "Under B, %(count)s pod went somewhere else (%(moves)s); A used %(used_a)s, B "
                "%(used_b)s.",
                "Under B, %(count)s pods went somewhere else (%(moves)s); A used %(used_a)s, B "
                "%(used_b)s.",
                len(moved),
            )
            % values
        )
    space = "" if not changed or changed.endswith("。") else " "  # Chinese needs no space
    return f"{changed}{space}{outcome}"


# -- the page ----------------------------------------------------------------------------------

DETAIL_PAGE: Final = 10  # pods whose score tables one request draws, placed differently first
# Node rows one request may decode for score tables: a stored cycle is decoded over the whole
# cluster (about a second at 60,000 nodes), so a big cluster's page draws fewer pods.
DETAIL_NODES: Final = 100_000


def detail_size(nodes: int) -> int:
    """Pods per page of score tables on a cluster of ``nodes`` (two cycles each)."""
    return max(1, min(DETAIL_PAGE, DETAIL_NODES // max(1, 2 * nodes)))


def detail_page(count: int, number: int, size: int = DETAIL_PAGE) -> dict[str, int]:
    """Which pods' score tables page ``number`` (clamped, 1-based) draws: ``start``..``end``
    (1-based, as shown) of ``count``, ``size`` a page, and how many ``pages`` there are."""
    pages = max(1, -(-count // size))
    number = max(1, min(number, pages))
    first = (number - 1) * size
    return {
        "number": number,
        "pages": pages,
        "count": count,
        "start": first + 1 if count else 0,
        "end": min(first + size, count),
    }


def _busy_nodes(runs: Sequence[Run], events: Sequence[list[dict[str, Any]]]) -> set[str] | None:
    """The nodes that hold a pod before or after either run: the only ones the page shows.
    None when a run has no stored snapshot (then every node is read, as before)."""
    busy: set[str] = set()
    for run, evs in zip(runs, events, strict=True):
        if not run.snapshot:
            return None
        busy.update(node for node in overview.placements(evs).values() if node)
        for m in [*run.snapshot, *script.added_manifests(run.script)]:
            if m.get("kind") == "Pod":
                node = (m.get("spec") or {}).get("nodeName")
                if isinstance(node, str) and node:
                    busy.add(node)
    return busy


def _node_count(run: Run) -> int:
    manifests = [*run.snapshot, *script.added_manifests(run.script)]
    return sum(1 for m in manifests if m.get("kind") == "Node")


def _pod_detail(
    index: int, row: Mapping[str, Any], run_a: Run, run_b: Run
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One pod's score tables in A and B (aligned heatmaps, the winner explained), and the
    figures they draw, keyed ``heat-<index>-<side>``."""
    tables = []
    for cycle, run in ((row["cycle_a"], run_a), (row["cycle_b"], run_b)):
        evs = selectors.run_cycle_events(run=run, cycle=cycle) if cycle is not None else []
        tables.append(charts.score_table(evs) if evs else None)
    heat = aligned_heatmaps(tables[0], tables[1])
    sides, figs = [], {}
    cycles = (row["cycle_a"], row["cycle_b"])
    for side, table, fig, cycle in zip("ab", tables, heat, cycles, strict=True):
        if fig is not None:
            figs[f"heat-{index}-{side}"] = fig
        sides.append(
            {
                "cycle": cycle,
                "winner": charts.winner_explanation(table) if table else None,
                "heatmap": fig is not None,
            }
        )
    return {**row, "index": index, "sides": sides}, figs


def page(
    *,
    run_a: Run,
    run_b: Run,
    events_a: list[dict[str, Any]],
    events_b: list[dict[str, Any]],
    label_a: str,
    label_b: str,
    detail: int = 1,
) -> dict[str, Any]:
    """Everything the compare page shows, from the two runs and their stored events.

    Every pod's placements are listed, and the nodes that hold a pod (the others are counted,
    not read). Score tables are drawn for one page of pods (``detail``): each side is a stored
    cycle decoded over the whole cluster, so a page holds ``detail_size`` pods, fewer on a big
    cluster, and a request's work is bounded whatever the run's size.
    """
    result = overview.compare(events_a, events_b)
    busy = _busy_nodes((run_a, run_b), (events_a, events_b))
    usage = []
    for run, events in ((run_a, events_a), (run_b, events_b)):
        allocatable, requests = selectors.run_resources(run=run, events=events, node_names=busy)
        usage.append(overview.cluster_usage(allocatable, requests, events))
    nodes = node_rows(usage[0], usage[1])
    total = len(usage[0]["rows"])
    if busy is not None:  # the idle nodes were not read: counted
        total = _node_count(run_a)
        nodes["idle"] = total - len(nodes["rows"])
    rows = sorted(result["rows"], key=lambda r: r["same"])  # the differences first, by pod
    config = config_diff_of_runs(
        run_a.config or run_a.profile.config, run_b.config or run_b.profile.config
    )
    shown = detail_page(len(rows), detail, detail_size(total))
    pods, figures = [], {}
    for index in range(max(0, shown["start"] - 1), shown["end"]):
        pod, figs = _pod_detail(index, rows[index], run_a, run_b)
        pods.append(pod)
        figures.update(figs)
    figures["pods-per-node"] = pods_per_node_figure(nodes, label_a, label_b)
    return {
        "rows": rows,
        "detail": pods,
        "detail_page": shown,
        "differ": result["differ"],
        "moved": placed_differently(rows),
        "nodes": nodes,
        "config": config,
        "summary": summary(label_a, label_b, usage[0], usage[1], rows, config),
        "figures": figures,
    }
