// The Score and Combine charts built from a cycle's score table (the shape paging.py sends).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  HEAT_COLORSCALE,
  SAME_COLOUR,
  columnShades,
  combineFigure,
  legendRows,
  heatmapFigure,
  labelLines,
} from "../../static/playground/score_figures.js";

const EVIL = '<a href="https://evil.example">n3</a>';

function table() {
  // Three nodes (the third named by a hostile user), two plugins, ImageLocality equal everywhere.
  return {
    nodes: ["n1", "n2", EVIL],
    plugins: ["NodeResourcesBalancedAllocation", "ImageLocality"],
    weights: [2, 1],
    values: {
      raw: [
        [90, 0],
        [40, 0],
        [10, 0],
      ],
      normalized: [
        [90, 0],
        [40, 0],
        [10, 0],
      ],
      weighted: [
        [180, 0],
        [80, 0],
        [20, 0],
      ],
    },
    totals: [180, 80, 20],
    top: ["n1"],
    selected: "n1",
    rest: null,
  };
}

const noMarkup = (s) => !/<(?!\/?(b|br|span)\b)/.test(s) && !s.includes("evil.example</a>");

test("each column is shaded between its own lowest and highest; an equal column is named", () => {
  const { shades, constant } = columnShades([
    [10, 5, null],
    [30, 5, 7],
    [20, 5, null],
  ]);
  assert.deepEqual(
    shades.map((r) => r[0]),
    [0, 1, 0.5],
  );
  assert.deepEqual(
    shades.map((r) => r[1]),
    [0, 0, 0],
  );
  assert.deepEqual(
    shades.map((r) => r[2]),
    [null, 0, null],
  );
  // One value is not "equal on every node": only the second column is constant.
  assert.deepEqual(constant, [false, true, false]);
  assert.deepEqual(columnShades([]), { shades: [], constant: [] });
});

test("a column label is cut between its words into lines of at most 16 characters", () => {
  assert.deepEqual(labelLines("NodeResourcesBalancedAllocation (×2)"), [
    "NodeResources",
    "Balanced",
    "Allocation (×2)",
  ]);
  assert.deepEqual(labelLines("TaintToleration (×3)"), ["TaintToleration", "(×3)"]);
  assert.deepEqual(labelLines("Fit (×1)"), ["Fit (×1)"]);
  for (const line of labelLines("VolumeZoneInterPodAffinityVeryLongName (×10)")) assert.ok(line.length <= 16, line);
});

test("the heatmap: top N rows, shades per column, equal columns grey, names as plain text", () => {
  const fig = heatmapFigure(table(), "weighted", 3, { width: 0, size: 12 });
  const trace = fig.data[0];
  assert.equal(trace.type, "heatmap");
  assert.deepEqual(trace.customdata, table().values.weighted);
  assert.deepEqual(trace.text[0], ["180", "0"]);
  assert.deepEqual(
    trace.z.map((r) => r[0]),
    [1, 0.375, 0],
  );
  assert.deepEqual(fig.same, ["ImageLocality"]);
  assert.equal(trace.x[0], "NodeResourcesBalancedAllocation (×2)");
  assert.ok(fig.layout.xaxis.ticktext[1].startsWith(`<span style="color:${SAME_COLOUR}">`));
  assert.ok(!fig.layout.xaxis.ticktext[0].includes("<span"));
  // The hostile node name is a category of plain text, not a link.
  assert.equal(trace.y[2], '&lt;a href="https://evil.example"&gt;n3&lt;/a&gt;');
  trace.y.forEach((y) => assert.ok(!y.includes("<"), y));
  // No width: upright labels; a width with room: level labels on short lines.
  assert.deepEqual(fig.layout.xaxis.autotickangles, [-90]);
  const wide = heatmapFigure(table(), "raw", 2, { width: 1400, size: 12 });
  assert.deepEqual(wide.layout.xaxis.autotickangles, [0]);
  assert.equal(wide.layout.xaxis.ticktext[0], "NodeResources<br>Balanced<br>Allocation (×2)");
  assert.equal(wide.data[0].y.length, 2);
  assert.match(wide.layout.title.text, /raw: each plugin's own unit/);
  assert.equal(wide.layout.width, 1400);
});

test("a hostile plugin name (a custom plugin's) never reaches the chart as markup", () => {
  const t = table();
  t.plugins[1] = '<span style="font-size:90px">Big</span>';
  const heat = heatmapFigure(t, "weighted", 3, { width: 1400 });
  heat.data[0].x.forEach((x) => assert.ok(!x.includes("<"), x));
  heat.layout.xaxis.ticktext.forEach((tick) => assert.ok(noMarkup(tick) && !tick.includes('font-size:90px">'), tick));
  const bars = combineFigure(t, 3);
  bars.data.forEach((trace) => assert.ok(!trace.name.includes("<"), trace.name));
});

test("the combine bars: one stacked bar per plugin, the selected node bold, ties named, the rest", () => {
  const t = table();
  t.top = ["n1", "n2"];
  t.rest = { count: 7, mean: [50, 0], mean_total: 50, max_total: 70 };
  const fig = combineFigure(t, 2, { size: 18 });
  assert.deepEqual(
    fig.data.map((d) => d.name),
    ["NodeResourcesBalancedAllocation (×2)", "ImageLocality (×1)"],
  );
  assert.deepEqual(fig.data[0].x, [180, 80, 50]);
  assert.equal(fig.data[0].y[2], "the other 7 (mean)");
  assert.deepEqual(fig.layout.yaxis.ticktext, ["<b>n1 (selected)</b>", "n2 (tie)", "the other 7 (mean)"]);
  assert.deepEqual(
    fig.layout.annotations.map((a) => a.text),
    ["180", "80", "50 (max 70)"],
  );
  assert.equal(fig.layout.annotations[0].font.color, "#0a7d32");
  assert.equal(fig.layout.annotations[0].font.size, 18);
  // The legend below the bars, its lines counted into the height (no width: 900 px assumed).
  const rows = legendRows(
    fig.data.map((d) => d.name),
    900,
    18,
  );
  assert.equal(rows, 1);
  assert.equal(fig.layout.height, 130 + 30 * 3 + rows * 28);
  assert.equal(fig.layout.legend.orientation, "h");
  assert.equal(fig.layout.margin.b, 50 + rows * 28);
});

test("a long legend wraps onto more lines in a narrow chart, and the chart grows for them", () => {
  const names = ["NodeResourcesBalancedAllocation (×1)", "NodeResourcesFit (×1)", "TaintToleration (×3)"];
  assert.equal(legendRows(names, 2000, 18), 1);
  assert.equal(legendRows(names, 400, 18), 3);
  assert.equal(legendRows([], 400, 18), 0);
  const t = table();
  const narrow = combineFigure(t, 3, { width: 300, size: 18 });
  const wide = combineFigure(t, 3, { width: 2000, size: 18 });
  assert.ok(narrow.layout.height > wide.layout.height);
});

test("the selected node's hostile name is bold plain text, its annotation on its own row", () => {
  const t = table();
  t.selected = EVIL;
  const fig = combineFigure(t, 3);
  const tick = fig.layout.yaxis.ticktext[2];
  assert.ok(tick.startsWith("<b>") && tick.endsWith("</b>"));
  assert.ok(!tick.slice(3, -4).includes("<"), tick);
  assert.equal(fig.layout.annotations[2].y, fig.data[0].y[2]);
  assert.equal(fig.layout.annotations[2].font.color, "#0a7d32");
});

test("the heatmap's colours are sequential: a higher score is darker", () => {
  const stops = HEAT_COLORSCALE.map(([at]) => at);
  const lightness = HEAT_COLORSCALE.map(([, c]) =>
    [1, 3, 5].reduce((sum, i) => sum + parseInt(c.slice(i, i + 2), 16), 0),
  );
  assert.deepEqual(
    stops,
    [...stops].sort((a, b) => a - b),
  );
  assert.deepEqual(
    lightness,
    [...lightness].sort((a, b) => b - a),
  );
});
