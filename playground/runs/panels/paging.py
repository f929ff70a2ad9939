"""One cycle's panels for ``cycles/<n>.json``: paged, sorted, filtered, cut to top N.

``charts.cycle_detail`` gives every row of a cycle; at thousands of nodes that is megabytes no
page should load. ``cycle_page`` keeps what a browser draws: one page of the filter matrix (in
snapshot order, by name, or rejected first; a node search), one page of the score table (sorted by
any column; a node search), the top N nodes for the score heatmap and the combine chart with the
other nodes summed up as "the rest", and everything small (pre-filter, preemption, binding,
step-through) as it is.

The score table's page holds each plugin's three columns (raw, normalized, weighted) for its
rows; a sort by a plugin reads the column ``smode`` names. An explanation of one cell (its inputs
and formula) is computed by the engine on demand: ``explain_views``, ``explain.json``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ...inputs.params import bounded_int
from . import charts

PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 500
MAX_TOP_N: Final = 200
FILTER_SORTS: Final = ("snapshot", "name", "rejected")


@dataclass(frozen=True, slots=True)
class PageParams:
    """What the browser asks of one cycle (query parameters of ``cycles/<n>.json``)."""

    mode: str = "weighted"
    top_n: int = charts.DEFAULT_TOP_N
    filter_page: int | None = None  # None: the page that holds most of the evaluated nodes
    filter_sort: str = "snapshot"
    filter_query: str = ""
    score_page: int = 0
    score_sort: str = "total"
    score_dir: str = "desc"
    score_query: str = ""
    score_mode: str = "weighted"  # which of a plugin's three columns a sort by it reads
    page_size: int = PAGE_SIZE

    @classmethod
    def from_query(cls, get: Mapping[str, Any]) -> PageParams:
        def number(name: str, default: int, low: int, high: int) -> int:
            return bounded_int(get.get(name), default, low=low, high=high)

        mode = get.get("mode", "weighted")
        fsort = get.get("fsort", "snapshot")
        sdir = get.get("sdir", "desc")
        smode = get.get("smode", mode)
        return cls(
            mode=mode if mode in charts.SCORE_MODES else "weighted",
            top_n=number("top", charts.DEFAULT_TOP_N, 1, MAX_TOP_N),
            filter_page=number("fpage", 0, 0, 10**9) if "fpage" in get else None,
            filter_sort=fsort if fsort in FILTER_SORTS else "snapshot",
            filter_query=str(get.get("fq", ""))[:200].strip(),
            score_page=number("spage", 0, 0, 10**9),
            score_sort=str(get.get("ssort", "total"))[:200] or "total",
            score_dir=sdir if sdir in ("asc", "desc") else "desc",
            score_query=str(get.get("sq", ""))[:200].strip(),
            score_mode=smode if smode in charts.SCORE_MODES else "weighted",
            page_size=number("size", PAGE_SIZE, 1, MAX_PAGE_SIZE),
        )


def _page(items: list[Any], page: int, size: int) -> tuple[list[Any], int, int]:
    pages = max(1, -(-len(items) // size))
    page = min(page, pages - 1)
    return items[page * size : (page + 1) * size], page, pages


def _busiest_page(verdicts: Sequence[str | None], order: Sequence[int], size: int) -> int:
    """The page holding most of the nodes Filter evaluated (the first such page on a tie): with
    sampling, the evaluated window may start pages into the snapshot, and a first page of "not
    evaluated" rows would hide it. ``order``: the rows' indices as listed."""
    counts: dict[int, int] = {}
    for position, i in enumerate(order):
        if verdicts[i] is not None:
            counts[position // size] = counts.get(position // size, 0) + 1
    return max(sorted(counts), key=lambda page: counts[page], default=0)


def filter_page(matrix: Mapping[str, Any], params: PageParams) -> dict[str, Any]:
    """One page of the filter matrix, with the counts of the whole cycle.

    Sorts and searches go over the node and verdict columns (``charts.FilterRows`` holds them;
    plain rows give them), so only the rows shown are read.
    """
    rows: Sequence[dict[str, Any]] = matrix["rows"]
    if isinstance(rows, charts.FilterRows):
        nodes, verdicts = rows.nodes, rows.verdicts
    else:
        nodes, verdicts = [r["node"] for r in rows], [r["verdict"] for r in rows]
    total = len(rows)
    order = list(range(total))
    if params.filter_query:
        q = params.filter_query.lower()
        order = [i for i in order if q in nodes[i].lower()]
    if params.filter_sort == "name":
        order.sort(key=nodes.__getitem__)
    elif params.filter_sort == "rejected":
        order.sort(key=lambda i: verdicts[i] == "Success")
    page = params.filter_page
    if page is None:
        page = _busiest_page(verdicts, order, params.page_size)
    shown, page, pages = _page(order, page, params.page_size)
    return {
        "plugins": matrix["plugins"],
        "rows": [rows[i] for i in shown],
        "feasible": matrix["feasible"][:MAX_TOP_N],
        "feasible_count": len(matrix["feasible"]),
        "evaluated": matrix["evaluated"],
        "message": matrix["message"],
        "total_rows": total,
        "matching": len(order),
        "page": page,
        "pages": pages,
        "sort": params.filter_sort,
        "query": params.filter_query,
    }


def _score_order(table: Mapping[str, Any], params: PageParams) -> tuple[list[int], str, str]:
    """Row indices of the score table in display order, and the sort in force.

    ``table["nodes"]`` is by total (highest first, then name), so ties keep that order.
    """
    idx = list(range(len(table["nodes"])))
    key, desc = params.score_sort, params.score_dir == "desc"
    if key == "node":
        idx.sort(key=lambda i: table["nodes"][i], reverse=desc)
    elif key in table["plugins"]:
        j = table["plugins"].index(key)
        values = table["values"][params.score_mode]
        idx.sort(key=lambda i: (-values[i][j] if desc else values[i][j], i))
    else:
        key, desc = "total", params.score_dir == "desc" if key == "total" else True
        if not desc:
            idx.sort(key=lambda i: (table["totals"][i], i))
    return idx, key, "desc" if desc else "asc"


def _rest(table: Mapping[str, Any], top_n: int) -> dict[str, Any] | None:
    """The nodes after the top N summed up: how many, and their mean weighted score per plugin."""
    rest = table["values"]["weighted"][top_n:]
    if not rest:
        return None
    n = len(rest)
    return {
        "count": n,
        "mean": [round(sum(column) / n, 1) for column in zip(*rest, strict=True)],
        "mean_total": round(sum(table["totals"][top_n:]) / n, 1),
        "max_total": max(table["totals"][top_n:]),
    }


def score_page(table: Mapping[str, Any], params: PageParams) -> dict[str, Any]:
    """The score table's top N (for the charts), one sorted page, and "the rest"."""
    top = params.top_n
    order, key, direction = _score_order(table, params)
    if params.score_query:
        q = params.score_query.lower()
        order = [i for i in order if q in table["nodes"][i].lower()]
    shown, page, pages = _page(order, params.score_page, params.page_size)
    return {
        "plugins": table["plugins"],
        "weights": table["weights"],
        "count": len(table["nodes"]),
        "nodes": table["nodes"][:top],
        "values": {m: table["values"][m][:top] for m in charts.SCORE_MODES},
        "totals": table["totals"][:top],
        "rest": _rest(table, top),
        "top": table["top"],
        "selected": table["selected"],
        "scored": table["scored"],
        "table": {
            "nodes": [table["nodes"][i] for i in shown],
            "values": {m: [table["values"][m][i] for i in shown] for m in charts.SCORE_MODES},
            "totals": [table["totals"][i] for i in shown],
            "page": page,
            "pages": pages,
            "matching": len(order),
            "sort": key,
            "sort_mode": params.score_mode,
            "dir": direction,
            "query": params.score_query,
        },
    }


def cycle_page(
    events: Iterable[charts.Event], cycle: int, params: PageParams
) -> dict[str, Any] | None:
    """Every panel of one cycle as the run page draws it, or None for an unknown cycle."""
    detail = charts.cycle_detail(events, cycle, lazy_rows=True)
    if detail is None:
        return None
    table = detail["scores"]
    detail["filter"] = filter_page(detail["filter"], params)
    detail["scores"] = score_page(table, params)
    detail["mode"] = params.mode
    detail["top_n"] = params.top_n
    return detail
