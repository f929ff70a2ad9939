// The run page's Score and Combine charts as Plotly figures: the heatmap of a cycle's scores and
// the stacked bars of the weighted totals. Pure functions of the cycle's score table
// (cycles/<n>.json "scores", playground/runs/paging.py), the chart's width and its type size,
// so a mode or a width changes without a request, and node's unit tests build them too. The
// compare page draws its heatmaps with the same builder. Every name in them is plotText'ed.
import { gettext, interpolate } from "./i18n.js";
import { wordsOf } from "./dom.js";
import { plotText } from "./plot_text.js";

// Sequential, higher is darker (ColorBrewer Blues); plotly's own "Blues" runs the other way.
export const HEAT_COLORSCALE = [
  [0, "#f7fbff"],
  [0.125, "#deebf7"],
  [0.25, "#c6dbef"],
  [0.375, "#9ecae1"],
  [0.5, "#6baed6"],
  [0.625, "#4292c6"],
  [0.75, "#2171b5"],
  [0.875, "#08519c"],
  [1, "#08306b"],
];
// A column equal on every node shown is drawn in this grey.
export const SAME_COLOUR = "#8a8a8a";
export const SCORE_MODES = ["raw", "normalized", "weighted"];

export const modeWords = () => ({
  raw: gettext("raw"),
  normalized: gettext("normalized"),
  weighted: gettext("weighted"),
});

// Each column shaded between its own lowest and highest: plugins score in units of their own,
// and a column equal on every node (more than one) is named so.
export function columnShades(z) {
  const cols = z.length ? z[0].length : 0;
  const shades = z.map((row) => row.map(() => null));
  const constant = [];
  for (let j = 0; j < cols; j++) {
    const values = z.map((row) => row[j]).filter((v) => v !== null && v !== undefined);
    const low = values.length ? Math.min(...values) : 0;
    const high = values.length ? Math.max(...values) : 0;
    constant.push(values.length > 1 && low === high);
    z.forEach((row, i) => {
      const v = row[j];
      if (v !== null && v !== undefined) {
        shades[i][j] = high === low ? 0 : Math.round(((v - low) / (high - low)) * 10000) / 10000;
      }
    });
  }
  return { shades, constant };
}

// A column's label ("Name (×2)") on short lines of at most 16 characters: the name cut between
// its words, then the weight, for when the labels can lie level above their columns.
export function labelLines(head) {
  const cut = head.indexOf(" (");
  const lines = [];
  wordsOf(cut < 0 ? head : head.slice(0, cut)).forEach((w) => {
    const last = lines.length - 1;
    if (last >= 0 && (lines[last] + w).length <= 16) lines[last] += w;
    else lines.push(w);
  });
  if (cut < 0) return lines;
  const weight = head.slice(cut);
  if ((lines[lines.length - 1] + weight).length <= 16) lines[lines.length - 1] += weight;
  else lines.push(weight.trim());
  return lines;
}

// The heatmap of `t` (a score table) in `mode` for its first `topN` nodes, `width` pixels wide
// (0: Plotly's own) at type `size`. Also returns `same`: the plugins equal on every node shown.
export function heatmapFigure(t, mode, topN, { width = 0, size = 12 } = {}) {
  const nodes = t.nodes.slice(0, topN);
  const z = t.values[mode].slice(0, topN).map((row) => row.slice());
  const { shades, constant } = columnShades(z);
  // A column equal on every node shown is drawn grey and named in the note above the chart:
  // written into its label, the words stood every label taller than the chart.
  const labels = t.plugins.map((p, j) => (t.weights[j] ? `${p} (×${t.weights[j]})` : `${p} (${gettext("off")})`));
  const same = t.plugins.filter((_p, j) => constant[j]);
  const unit = mode === "raw" ? gettext(": each plugin's own unit") : "";
  // Column labels above the cells, the title below them: the two never meet. Labels lie level
  // on short lines when each fits its column, else stand upright on one line, never slanted
  // across a neighbour; the height leaves them their room so the cells keep theirs and no name
  // is cut.
  const char = 0.62 * size;
  const lines = labels.map(labelLines);
  const widest = char * Math.max(0, ...lines.flat().map((l) => l.length));
  const rows = Math.max(1, ...lines.map((l) => l.length));
  const longest = char * Math.max(0, ...labels.map((l) => l.length));
  const names = char * Math.max(0, ...nodes.map((n) => n.length));
  const level = width > 0 && widest + 12 < (width - names - 40) / Math.max(1, labels.length);
  const shown = labels.map(plotText);
  const grey = (text, j) => (constant[j] ? `<span style="color:${SAME_COLOUR}">${text}</span>` : text);
  const ticktext = labels.map((l, j) => grey(level ? lines[j].map(plotText).join("<br>") : plotText(l), j));
  const words = modeWords();
  return {
    same,
    data: [
      {
        type: "heatmap",
        x: shown,
        y: nodes.map(plotText),
        z: shades,
        customdata: z,
        text: z.map((row) => row.map((v) => (v === null ? "" : String(v)))),
        texttemplate: "%{text}",
        hovertemplate: "%{y} · %{x}: %{text}<extra></extra>",
        colorscale: HEAT_COLORSCALE,
        zmin: 0,
        zmax: 1,
        showscale: false,
        textfont: { size },
      },
    ],
    layout: {
      font: { size },
      width: width > 0 ? width : undefined,
      title: {
        text: plotText(
          interpolate(gettext("Scores (%(mode)s%(unit)s), shaded per column"), { mode: words[mode] || mode, unit }),
        ),
        x: 0,
        xanchor: "left",
        y: 0,
        yref: "container",
        yanchor: "bottom",
        pad: { b: 6, l: 6 },
      },
      yaxis: { autorange: "reversed", automargin: true, type: "category" },
      xaxis: {
        automargin: true,
        side: "top",
        type: "category",
        autotickangles: level ? [0] : [-90],
        tickvals: shown,
        ticktext,
      },
      height: 90 + (size + 14) * nodes.length + (level ? rows * 1.35 * size + 10 : longest + 10),
      margin: { t: 20, l: 10, r: 10, b: 36 + size },
    },
  };
}

// How many lines a horizontal legend of `names` takes across `width` pixels at type `size`:
// each entry its symbol and its text (about 0.6 em a character), packed line by line.
export function legendRows(names, width, size) {
  const room = Math.max(width - 20, 1);
  let rows = names.length ? 1 : 0;
  let used = 0;
  for (const name of names) {
    const w = 40 + Math.ceil(0.6 * size * String(name).length);
    if (used > 0 && used + w > room) {
      rows += 1;
      used = 0;
    }
    used += w;
  }
  return rows;
}

// The top N nodes, then "the rest" as one bar of their mean weighted scores (t.rest): stacked
// horizontal bars, best first, one row per node so every name is written out level. The
// selected node's name is bold, the others tied with it at the top are named so.
export function combineFigure(t, topN, { width = 0, size = 12 } = {}) {
  const nodes = t.nodes.slice(0, topN);
  const weighted = t.values.weighted.slice(0, topN).map((row) => row.slice());
  const totals = t.totals.slice(0, topN);
  const top = new Set(t.top);
  const names = nodes.slice();
  if (t.rest) {
    names.push(interpolate(gettext("the other %(count)s (mean)"), { count: t.rest.count }));
    weighted.push(t.rest.mean);
    totals.push(t.rest.mean_total);
  }
  const labels = names.map(plotText);
  const data = t.plugins.map((p, j) => ({
    type: "bar",
    orientation: "h",
    name: plotText(`${p} (×${t.weights[j]})`),
    y: labels.slice(),
    x: weighted.map((row) => row[j]),
  }));
  const annotations = labels.map((label, i) => ({
    y: label,
    x: totals[i],
    showarrow: false,
    xanchor: "left",
    text:
      i >= nodes.length
        ? interpolate(gettext("%(total)s (max %(max)s)"), { total: totals[i], max: t.rest.max_total })
        : String(totals[i]),
    font: { color: names[i] === t.selected ? "#0a7d32" : "#333", size },
  }));
  const legendRoom =
    legendRows(
      data.map((d) => d.name),
      width > 0 ? width : 900,
      size,
    ) *
    (size + 10);
  const ticks = names.map((n, i) => {
    if (i >= nodes.length) return labels[i];
    if (n === t.selected) return `<b>${plotText(interpolate(gettext("%(node)s (selected)"), { node: n }))}</b>`;
    return top.has(n) ? plotText(interpolate(gettext("%(node)s (tie)"), { node: n })) : labels[i];
  });
  return {
    data,
    layout: {
      font: { size },
      width: width > 0 ? width : undefined,
      barmode: "stack",
      title: { text: gettext("Weighted scores per node") },
      annotations,
      yaxis: { tickvals: labels.slice(), ticktext: ticks, type: "category", autorange: "reversed", automargin: true },
      xaxis: { title: { text: gettext("total") }, automargin: true },
      height: 130 + (size + 12) * labels.length + legendRoom,
      // Below the bars, across the chart's width: a column at the side took the bars' room
      // and, at the presenter's type size, ran past the chart's foot (cut).
      legend: {
        orientation: "h",
        traceorder: "normal",
        x: 0,
        xanchor: "left",
        yref: "container",
        y: 0,
        yanchor: "bottom",
      },
      margin: { t: 50, l: 10, r: 90, b: 50 + legendRoom },
    },
  };
}
