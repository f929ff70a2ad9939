// The run page's Score and Combine panels: the heatmap and the stacked bars (plotly), and the
// paged score table sorted on the server. run.js calls window.RunScores(api) once and delegates
// to what it returns. Nothing here decides anything: the numbers come from cycles/<n>.json
// (playground/runs/paging.py), the figures mirror playground/runs/figures.py.
(function () {
  "use strict";
  // Words in the page's language (the JavaScript catalog, /jsi18n/); as written without it.
  const gettext = window.gettext || ((s) => s);
  const interpolate = window.interpolate || ((f, o) => f.replace(/%\((\w+)\)s/g, (m, k) => String(o[k])));

  window.RunScores = function (api) {
    const { state, $, el, pager, reloadDetail, breakable } = api;

    // Mirrors figures.score_heatmap / figures.combine_bar (plus "the rest"): the mode changes without a request.
    // Sequential, higher is darker (ColorBrewer Blues); plotly's own "Blues" runs the other way.
    const HEAT_COLORSCALE = [[0, "#f7fbff"], [0.125, "#deebf7"], [0.25, "#c6dbef"], [0.375, "#9ecae1"], [0.5, "#6baed6"],
      [0.625, "#4292c6"], [0.75, "#2171b5"], [0.875, "#08519c"], [1, "#08306b"]];
    // Presenter mode draws the charts' text at the size of its tables' (run_stepper.css).
    const SAME_COLOUR = "#8a8a8a"; // figures.SAME_COLOUR
    const MODE_WORDS = { raw: gettext("raw"), normalized: gettext("normalized"), weighted: gettext("weighted") };
    function fontSize() { return document.body.classList.contains("presenter") ? 18 : 12; }

    // Each column shaded between its own lowest and highest (figures.column_shades): plugins
    // score in units of their own, and a column equal on every node is named so.
    function columnShades(z) {
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
          if (v !== null && v !== undefined) shades[i][j] = high === low ? 0 : Math.round(((v - low) / (high - low)) * 10000) / 10000;
        });
      }
      return { shades, constant };
    }

    // A chart's width: its box's, or (its section hidden in presenter mode until its step) the
    // cycle pane's less the section's padding.
    function boxWidth(id) {
      return $(id).clientWidth || Math.max(0, $("cycle-detail").clientWidth - 40);
    }

    // A column's label on short lines (the name cut between its words, then the weight), for
    // when the labels can lie level above their columns.
    function labelLines(head) {
      const cut = head.indexOf(" (");
      const words = head.slice(0, cut).split(/(?=[A-Z][a-z])/);
      const lines = [];
      words.forEach((w) => {
        const last = lines.length - 1;
        if (last >= 0 && (lines[last] + w).length <= 16) lines[last] += w;
        else lines.push(w);
      });
      const weight = head.slice(cut);
      if ((lines[lines.length - 1] + weight).length <= 16) lines[lines.length - 1] += weight;
      else lines.push(weight.trim());
      return lines;
    }

    function heatmapFigure(t, mode, topN) {
      const width = boxWidth("heatmap");
      const nodes = t.nodes.slice(0, topN);
      const z = t.values[mode].slice(0, topN).map((row) => row.slice());
      const { shades, constant } = columnShades(z);
      // A column equal on every node shown is drawn grey and named in the note above the chart
      // (figures.same_note): written into its label, the words stood every label taller than the chart.
      const labels = t.plugins.map((p, j) => (t.weights[j] ? `${p} (×${t.weights[j]})` : `${p} (${gettext("off")})`));
      const same = t.plugins.filter((p, j) => constant[j]);
      const unit = mode === "raw" ? gettext(": each plugin's own unit") : "";
      // Column labels above the cells, the title below them: the two never meet. Labels lie level
      // on short lines when each fits its column, else stand upright on one line, never slanted
      // across a neighbour; the height leaves them their room so the cells keep theirs and no
      // name is cut.
      const size = fontSize();
      const char = 0.62 * size;
      const lines = labels.map(labelLines);
      const widest = char * Math.max(0, ...lines.flat().map((l) => l.length));
      const rows = Math.max(1, ...lines.map((l) => l.length));
      const longest = char * Math.max(0, ...labels.map((l) => l.length));
      const names = char * Math.max(0, ...nodes.map((n) => n.length));
      const level = width > 0 && widest + 12 < (width - names - 40) / Math.max(1, labels.length);
      const grey = (text, j) => (constant[j] ? `<span style="color:${SAME_COLOUR}">${text}</span>` : text);
      const xaxis = { automargin: true, side: "top", type: "category", autotickangles: level ? [0] : [-90], tickvals: labels,
        ticktext: labels.map((l, j) => grey(level ? lines[j].join("<br>") : l, j)) };
      return {
        same,
        data: [{ type: "heatmap", x: labels, y: nodes, z: shades, customdata: z, text: z.map((row) => row.map((v) => (v === null ? "" : String(v)))),
          texttemplate: "%{text}", hovertemplate: "%{y} · %{x}: %{text}<extra></extra>", colorscale: HEAT_COLORSCALE, zmin: 0, zmax: 1,
          showscale: false, textfont: { size } }],
        layout: { font: { size }, width: width > 0 ? width : undefined,
          title: { text: interpolate(gettext("Scores (%(mode)s%(unit)s), shaded per column"), { mode: MODE_WORDS[mode] || mode, unit }, true), x: 0, xanchor: "left", y: 0, yref: "container", yanchor: "bottom", pad: { b: 6, l: 6 } },
          yaxis: { autorange: "reversed", automargin: true, type: "category" },
          xaxis,
          height: 90 + (size + 14) * nodes.length + (level ? rows * 1.35 * size + 10 : longest + 10), margin: { t: 20, l: 10, r: 10, b: 36 + size } },
      };
    }

    // The top N nodes, then "the rest" as one bar of their mean weighted scores (t.rest): stacked
    // horizontal bars, best first, one row per node so every name is written out level.
    function combineFigure(t, topN) {
      const nodes = t.nodes.slice(0, topN);
      const weighted = t.values.weighted.slice(0, topN).map((row) => row.slice());
      const totals = t.totals.slice(0, topN);
      const top = new Set(t.top);
      const labels = nodes.slice();
      if (t.rest) {
        labels.push(interpolate(gettext("the other %(count)s (mean)"), { count: t.rest.count }, true));
        weighted.push(t.rest.mean);
        totals.push(t.rest.mean_total);
      }
      const data = t.plugins.map((p, j) => ({ type: "bar", orientation: "h", name: `${p} (×${t.weights[j]})`, y: labels.slice(), x: weighted.map((row) => row[j]) }));
      const annotations = labels.map((n, i) => ({ y: n, x: totals[i], showarrow: false, xanchor: "left",
        text: i >= nodes.length ? interpolate(gettext("%(total)s (max %(max)s)"), { total: totals[i], max: t.rest.max_total }, true) : String(totals[i]),
        font: { color: n === t.selected ? "#0a7d32" : "#333" } }));
      const ticks = labels.map((n) => (n === t.selected ? `<b>${interpolate(gettext("%(node)s (selected)"), { node: n }, true)}</b>`
        : (top.has(n) ? interpolate(gettext("%(node)s (tie)"), { node: n }, true) : n)));
      const size = fontSize();
      annotations.forEach((a) => { a.font.size = size; });
      const width = boxWidth("combine");
      return { data, layout: { font: { size }, width: width > 0 ? width : undefined, barmode: "stack", title: { text: gettext("Weighted scores per node") }, annotations,
        yaxis: { tickvals: labels.slice(), ticktext: ticks, type: "category", autorange: "reversed", automargin: true },
        xaxis: { title: { text: gettext("total") }, automargin: true }, height: 130 + (size + 12) * labels.length, legend: { orientation: "v", traceorder: "normal" },
        margin: { t: 50, l: 10, r: 90, b: 40 } } };
    }

    function renderScores(d) {
      const t = d.scores;
      const has = t.plugins.length > 0;
      $("score-section").hidden = !has;
      if (!has) { Plotly.purge("heatmap"); return; }
      const topN = Math.max(1, state.topN);
      $("score-shown").textContent = interpolate(gettext("showing %(shown)s of %(count)s nodes"), { shown: Math.min(topN, t.count), count: t.count }, true);
      $("more-nodes").hidden = topN >= t.count;
      $("weights").textContent = gettext("Weights: ") + listed(t.plugins.map((p, j) => `${p} ×${t.weights[j]}`));
      const fig = heatmapFigure(t, state.mode, topN);
      $("heatmap-same").textContent = fig.same.length
        ? interpolate(gettext("In grey, same on every node shown, so they cannot decide here: %(plugins)s."), { plugins: listed(fig.same) }, true) : "";
      Plotly.react("heatmap", fig.data, fig.layout, { displayModeBar: false, responsive: true });
      // The numbers as a paged table, sorted on the server by the column whose header was clicked:
      // each plugin's raw, normalized and weighted values side by side, then the weighted total.
      const page = t.table;
      const sort = { key: page.sort, dir: page.dir, mode: page.sort_mode || "weighted" };
      const header = (key, mode, label, attrs) => {
        const on = sort.key === key && (mode === null || sort.mode === mode);
        return el("th", Object.assign({ "data-sort": key, "data-mode": mode, "aria-sort": on ? (sort.dir === "asc" ? "ascending" : "descending") : "none" }, attrs),
          el("button", { type: "button", class: `sort${on ? " sorted" : ""}`, title: gettext("sort by this column (click again to reverse)"), onclick: () => sortScores(key, mode) },
            label, on ? (sort.dir === "asc" ? " ▲" : " ▼") : ""));
      };
      // In presenter mode only the chosen mode's column per plugin: the table and its Total fit
      // one screen at the large type.
      const ALL = [["raw", gettext("raw")], ["normalized", gettext("norm.")], ["weighted", gettext("×w")]];
      const MODES = document.body.classList.contains("presenter") ? ALL.filter(([m]) => m === state.mode) : ALL;
      const thead = $("score-table").querySelector("thead");
      thead.innerHTML = "";
      thead.appendChild(el("tr", {}, header("node", null, gettext("Node"), { rowspan: "2" }),
        t.plugins.map((p, j) => el("th", { colspan: String(MODES.length), class: "plugin-group", "data-plugin": p }, breakable(p), ` ×${t.weights[j]}`)),
        header("total", null, gettext("Total (weighted)"), { rowspan: "2", class: "total", title: gettext("the sum of the ×weight columns") })));
      thead.appendChild(el("tr", { class: "sub" }, t.plugins.flatMap((p) => MODES.map(([m, label]) =>
        header(p, m, label, { "data-plugin": p, class: `mode-${m}` })))));
      state.scorePage = page.page;
      const tbody = $("score-table").querySelector("tbody");
      tbody.innerHTML = "";
      page.nodes.forEach((n, i) => {
        const cls = n === t.selected ? "selected-node" : (t.top.includes(n) ? "tie-node" : "");
        tbody.appendChild(el("tr", { "data-node": n, class: cls },
          el("th", {}, el("button", { type: "button", class: "explain-node", "data-node": n, title: gettext("explain every step for this node") }, n)),
          t.plugins.flatMap((p, j) => MODES.map(([m]) => el("td", { class: `explain-cell mode-${m}`, "data-plugin": p, "data-mode": m, tabindex: "0",
            title: interpolate(gettext("%(plugin)s %(mode)s (Enter or click: explain)"), { plugin: p, mode: MODE_WORDS[m] || m }, true) }, page.values[m][i][j]))),
          el("td", { class: "total" }, page.totals[i])));
      });
      $("score-matching").textContent = page.query ? interpolate(gettext("%(matching)s of %(count)s nodes match"), { matching: page.matching, count: t.count }, true) : "";
      pager($("score-pager"), page.page, page.pages, (p) => { state.scorePage = p; reloadDetail(); });
    }

    function sortScores(key, mode) {
      const table = state.detail ? state.detail.scores.table : null;
      const current = table ? { key: table.sort, dir: table.dir, mode: table.sort_mode } : state.scoreSort;
      const same = current.key === key && (mode === null || current.mode === mode);
      const dir = same ? (current.dir === "asc" ? "desc" : "asc") : (key === "node" ? "asc" : "desc");
      state.scoreSort = { key, dir, mode: mode || "weighted" };
      state.scorePage = 0;
      reloadDetail();
    }

    function renderCombine(d) {
      const t = d.scores;
      $("winner").textContent = d.winner ? d.winner.text : "";
      if (!t.plugins.length) { Plotly.purge("combine"); $("combine").hidden = true; return; }
      $("combine").hidden = false;
      const fig = combineFigure(t, Math.max(1, state.topN));
      Plotly.react("combine", fig.data, fig.layout, { displayModeBar: false, responsive: true });
    }

    return { renderScores, renderCombine, sortScores };
  };
})();
