"""Plotly figures of one cycle's scores: the heatmap and the combine bars, readable at any size.

Re-exported by ``charts``; ``static/playground/run.js`` (heatmapFigure, combineFigure) mirrors
them so the score mode changes without a request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from django.utils.translation import gettext, gettext_lazy

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


SAME_EVERYWHERE: Final = gettext_lazy("same on every node")


# A column with one value on every node shown is drawn in this grey, and named in a note above
# the chart: written into its label, the words stood the labels upright and taller than the chart.
SAME_COLOUR: Final = "#8a8a8a"


def heat_label(plugin: str, weight: int) -> str:
    """A heatmap column's label: the plugin and its weight, or "off" where it does not score."""
    return f"{plugin} (×{weight})" if weight else gettext("%(plugin)s (off)") % {"plugin": plugin}


def same_note(plugins: Sequence[str]) -> str:
    """The note above the heatmap naming the columns that cannot decide (empty when none)."""
    if not plugins:
        return ""
    return gettext("In grey, %(same)s shown, so they cannot decide here: %(plugins)s.") % {
        "same": SAME_EVERYWHERE,
        "plugins": ", ".join(plugins),
    }


def column_shades(z: list[list[int | None]]) -> tuple[list[list[float | None]], list[bool]]:
    """Each column's values rescaled to 0..1 between its own lowest and highest, and whether
    the column holds one value on two or more nodes (then its shade is 0).

    Plugins score on scales of their own (raw: a count, a percentage, a byte sum; weighted: up
    to 100 × weight), so one colour scale for the whole grid lets the widest column (a taint
    score of 300 on every node) wash out the columns that decide. Shading each column apart
    shows where each plugin prefers, whatever its unit.
    """
    columns = len(z[0]) if z else 0
    shades: list[list[float | None]] = [[None] * columns for _ in z]
    constant: list[bool] = []
    for j in range(columns):
        values = [v for v in (row[j] for row in z) if v is not None]
        low, high = (min(values), max(values)) if values else (0, 0)
        constant.append(len(values) > 1 and low == high)
        for i, row in enumerate(z):
            v = row[j]
            if v is not None:
                shades[i][j] = 0.0 if high == low else round((v - low) / (high - low), 4)
    return shades, constant


def heat_title(mode: str) -> str:
    """The heatmap's title: the mode, and how to read a colour in it."""
    words = {
        "raw": gettext("raw: each plugin's own unit"),
        "normalized": gettext("normalized"),
        "weighted": gettext("weighted"),
    }
    return gettext("Scores (%(mode)s), shaded per column") % {"mode": words.get(mode, mode)}


def score_heatmap(
    table: Mapping[str, Any], *, mode: str = "weighted", top_n: int = DEFAULT_TOP_N
) -> dict[str, Any]:
    """A Plotly heatmap of the top N nodes (rows) x Score plugins (columns), values in cells.

    Each column is shaded on its own (``column_shades``); the values are the cells' text and
    ``customdata``. Column labels sit above the cells and the title below them, so the two never
    meet; a value of None is an empty cell.
    """
    if mode not in SCORE_MODES:
        raise ValueError(f"unknown score mode {mode!r}")
    nodes = list(table["nodes"][:top_n])
    values = [list(row) for row in table["values"][mode][:top_n]]
    shades, constant = column_shades(values)
    labels = [heat_label(p, w) for p, w in zip(table["plugins"], table["weights"], strict=True)]
    ticks = [
        f'<span style="color:{SAME_COLOUR}">{label}</span>' if same else label
        for label, same in zip(labels, constant, strict=True)
    ]
    same = [p for p, c in zip(table["plugins"], constant, strict=True) if c]
    return {
        "data": [
            {
                "type": "heatmap",
                "x": labels,
                "y": nodes,
                "z": shades,
                "customdata": values,
                "text": [["" if v is None else str(v) for v in row] for row in values],
                "texttemplate": "%{text}",
                "hovertemplate": "%{y} · %{x}: %{text}<extra></extra>",
                "colorscale": [list(stop) for stop in HEAT_COLORSCALE],
                "zmin": 0,
                "zmax": 1,
                "showscale": False,
            }
        ],
        "layout": {
            "title": {
                "text": heat_title(mode),
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
                "tickvals": labels,
                "ticktext": ticks,
                # Level labels when they fit, else upright: a slant would cross its neighbours.
                "autotickangles": [0, -90],
            },
            # Room for upright labels (about 7 px a character), so the cells keep theirs.
            "height": 90 + 26 * len(nodes) + 7 * max((len(x) for x in labels), default=0),
            "margin": {"t": 20, "l": 10, "r": 10, "b": 36},
            "meta": {"same_everywhere": same, "note": same_note(same)},
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
        "<b>" + gettext("%(node)s (selected)") % {"node": n} + "</b>"
        if n == selected
        else (gettext("%(node)s (tie)") % {"node": n} if n in top else n)
        for n in nodes
    ]
    return {
        "data": data,
        "layout": {
            "barmode": "stack",
            "title": {"text": gettext("Weighted scores per node")},
            "annotations": annotations,
            "yaxis": {
                "tickvals": nodes,
                "ticktext": ticks,
                "type": "category",
                "autorange": "reversed",
                "automargin": True,
            },
            "xaxis": {"title": {"text": gettext("total")}, "automargin": True},
            "height": 130 + 24 * len(nodes),
            # Beside the plot, clear of title and labels; in the profile's order.
            "legend": {"orientation": "v", "traceorder": "normal"},
            "margin": {"t": 50, "l": 10, "r": 40, "b": 40},
        },
    }
