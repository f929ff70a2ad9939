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
            "xaxis": {
                "automargin": True,
                "side": "top",
                "type": "category",
                # Level labels when they fit, else upright: a slant would cross its neighbours.
                "autotickangles": [0, -90],
            },
            # Room for upright labels (about 7 px a character), so the cells keep theirs.
            "height": 90 + 26 * len(nodes) + 7 * max((len(x) for x in labels), default=0),
            "margin": {"t": 20, "l": 10, "r": 10, "b": 36},
        },
    }


def combine_bar(table: Mapping[str, Any], *, top_n: int = DEFAULT_TOP_N) -> dict[str, Any]:
    """A stacked horizontal bar per node of the weighted scores, totals at the ends.

    One row per node, best first, so every node name is written out level however many there
    are; the winner and ties are marked in the names.
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
                "orientation": "h",
                "name": f"{plugin} (×{table['weights'][j]})",
                "y": nodes,
                "x": [row[j] for row in weighted],
            }
        )
    annotations = [
        {
            "y": node,
            "x": table["totals"][i],
            "text": str(table["totals"][i]),
            "showarrow": False,
            "xanchor": "left",
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
            "yaxis": {
                "tickvals": nodes,
                "ticktext": ticks,
                "type": "category",
                "autorange": "reversed",
                "automargin": True,
            },
            "xaxis": {"title": {"text": "total"}, "automargin": True},
            "height": 130 + 24 * len(nodes),
            # Beside the plot, clear of title and labels; in the profile's order.
            "legend": {"orientation": "v", "traceorder": "normal"},
            "margin": {"t": 50, "l": 10, "r": 40, "b": 40},
        },
    }
