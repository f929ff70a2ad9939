"""Plotly figures of one cycle's scores: the heatmap and the combine bars, readable at any size.

Re-exported by ``charts``; ``static/playground/run.js`` (heatmapFigure, combineFigure) mirrors
them so the score mode changes without a request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

SCORE_MODES: Final = ("raw", "normalized", "weighted")
DEFAULT_TOP_N: Final = 20

# Sequential, higher is darker (ColorBrewer Blues); plotly's own "Blues" runs the other way.
HEAT_COLORSCALE: Final = (
    (0.0, "#f7fbff"),
    (0.125, "#deebf7"),
    (0.25, "#c6dbef"),
    (0.375, "#9ecae1"),
    (0.5, "#6baed6"),
    (0.625, "#4292c6"),
    (0.75, "#2171b5"),
    (0.875, "#08519c"),
    (1.0, "#08306b"),
)


def heat_label(plugin: str, weight: int) -> str:
    """A heatmap column's label: the plugin and its weight, or "off" where it does not score."""
    return f"{plugin} (×{weight})" if weight else f"{plugin} (off)"


def score_heatmap(
    table: Mapping[str, Any], *, mode: str = "weighted", top_n: int = DEFAULT_TOP_N
) -> dict[str, Any]:
    """A Plotly heatmap of the top N nodes (rows) x Score plugins (columns), values in cells.

    Column labels sit above the cells and the title below them, so the two never meet; a value
    of None is an empty cell.
    """
    if mode not in SCORE_MODES:
        raise ValueError(f"unknown score mode {mode!r}")
    nodes = list(table["nodes"][:top_n])
    z = [list(row) for row in table["values"][mode][:top_n]]
    labels = [heat_label(p, w) for p, w in zip(table["plugins"], table["weights"], strict=True)]
    return {
        "data": [
            {
                "type": "heatmap",
                "x": labels,
                "y": nodes,
                "z": z,
                "text": [["" if v is None else str(v) for v in row] for row in z],
                "texttemplate": "%{text}",
                "hovertemplate": "%{y} · %{x}: %{z}<extra></extra>",
                "colorscale": [list(stop) for stop in HEAT_COLORSCALE],
                "zmin": 0,
                "showscale": True,
                "colorbar": {"thickness": 12},
            }
        ],
        "layout": {
            "title": {
                "text": f"Scores ({mode})",
                "x": 0,
                "xanchor": "left",
                "y": 0,
                "yref": "container",
                "yanchor": "bottom",
                "pad": {"b": 6, "l": 6},
            },
            "yaxis": {"autorange": "reversed", "automargin": True, "type": "category"},
            "xaxis": {"automargin": True, "side": "top", "type": "category", "tickangle": -30},
            "height": max(260, 150 + 26 * len(nodes)),
            "margin": {"t": 20, "l": 10, "r": 10, "b": 36},
        },
    }


def combine_bar(table: Mapping[str, Any], *, top_n: int = DEFAULT_TOP_N) -> dict[str, Any]:
    """A stacked bar per node of the weighted scores, totals on top, winner and ties marked.

    The marks go into the (slanted) node labels, so the totals above the bars stay short.
    """
    nodes = list(table["nodes"][:top_n])
    weighted = table["values"]["weighted"][:top_n]
    top = set(table["top"])
    selected = table["selected"]
    data: list[dict[str, Any]] = []
    for j, plugin in enumerate(table["plugins"]):
        data.append(
            {
                "type": "bar",
                "name": f"{plugin} (×{table['weights'][j]})",
                "x": nodes,
                "y": [row[j] for row in weighted],
            }
        )
    annotations = [
        {
            "x": node,
            "y": table["totals"][i],
            "text": str(table["totals"][i]),
            "showarrow": False,
            "yanchor": "bottom",
            "font": {"color": "#0a7d32" if node == selected else "#333"},
        }
        for i, node in enumerate(nodes)
    ]
    ticks = [
        f"<b>{n} (selected)</b>" if n == selected else (f"{n} (tie)" if n in top else n)
        for n in nodes
    ]
    return {
        "data": data,
        "layout": {
            "barmode": "stack",
            "title": {"text": "Weighted scores per node"},
            "annotations": annotations,
            "xaxis": {
                "tickvals": nodes,
                "ticktext": ticks,
                "type": "category",
                "tickangle": -45 if len(nodes) > 6 else 0,
                "automargin": True,
            },
            "yaxis": {"title": {"text": "total"}},
            "height": 420,
            "legend": {"orientation": "h", "x": 0, "y": 1, "yanchor": "bottom"},
            "margin": {"t": 90, "l": 50, "r": 10, "b": 40},
        },
    }
