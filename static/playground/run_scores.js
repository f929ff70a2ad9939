// The run page's Score and Combine panels: the heatmap and the stacked bars (plotly, built by
// score_figures.js), and the paged score table sorted on the server. run.js calls
// runScores(api) once and delegates to what it returns. Nothing here decides anything: the
// numbers come from cycles/<n>.json (playground/runs/paging.py).
import { $, el, breakable } from "./dom.js";
import { gettext, interpolate, listed } from "./i18n.js";
import { nameSegments } from "./format.js";
import { draw } from "./plot_text.js";
import { combineFigure, heatmapFigure, modeWords } from "./score_figures.js";

export function runScores(api) {
  const { state, pager, reloadDetail } = api;
  const MODE_WORDS = modeWords();
  const TIES_NAMED = 10; // as playground/runs/panels/verdicts.py names them
  // Presenter mode draws the charts' text at the size of its tables' (run_stepper.css).
  function fontSize() {
    return document.body.classList.contains("presenter") ? 18 : 12;
  }
  // A chart's width: its box's, or (its section hidden in presenter mode until its step) the
  // cycle pane's less the section's padding.
  function boxWidth(id) {
    return $(id).clientWidth || Math.max(0, $("cycle-detail").clientWidth - 40);
  }

  function renderScores(d) {
    const t = d.scores;
    const has = t.plugins.length > 0;
    $("score-section").hidden = !has;
    if (!has) {
      Plotly.purge("heatmap");
      return;
    }
    const topN = Math.max(1, state.topN);
    $("score-shown").textContent = interpolate(gettext("showing %(shown)s of %(count)s nodes"), {
      shown: Math.min(topN, t.count),
      count: t.count,
    });
    $("more-nodes").hidden = topN >= t.count;
    $("weights").textContent = gettext("Weights: ") + listed(t.plugins.map((p, j) => `${p} ×${t.weights[j]}`));
    const fig = heatmapFigure(t, state.mode, topN, { width: boxWidth("heatmap"), size: fontSize() });
    $("heatmap-same").textContent = fig.same.length
      ? interpolate(gettext("In grey, same on every node shown, so they cannot decide here: %(plugins)s."), {
          plugins: listed(fig.same),
        })
      : "";
    draw("heatmap", fig);
    // The numbers as a paged table, sorted on the server by the column whose header was clicked:
    // each plugin's raw, normalized and weighted values side by side, then the weighted total.
    const page = t.table;
    const sort = { key: page.sort, dir: page.dir, mode: page.sort_mode || "weighted" };
    const header = (key, mode, label, attrs) => {
      const on = sort.key === key && (mode === null || sort.mode === mode);
      return el(
        "th",
        Object.assign(
          {
            "data-sort": key,
            "data-mode": mode,
            "aria-sort": on ? (sort.dir === "asc" ? "ascending" : "descending") : "none",
          },
          attrs,
        ),
        el(
          "button",
          {
            type: "button",
            class: `sort${on ? " sorted" : ""}`,
            title: gettext("sort by this column (click again to reverse)"),
            onclick: () => sortScores(key, mode),
          },
          label,
          on ? (sort.dir === "asc" ? " ▲" : " ▼") : "",
        ),
      );
    };
    // In presenter mode only the chosen mode's column per plugin: the table and its Total fit
    // one screen at the large type.
    const ALL = [
      ["raw", gettext("raw")],
      ["normalized", gettext("norm.")],
      ["weighted", gettext("×w")],
    ];
    const MODES = document.body.classList.contains("presenter") ? ALL.filter(([m]) => m === state.mode) : ALL;
    const thead = $("score-table").querySelector("thead");
    thead.innerHTML = "";
    thead.appendChild(
      el(
        "tr",
        {},
        header("node", null, gettext("Node"), { rowspan: "2" }),
        t.plugins.map((p, j) =>
          el(
            "th",
            { colspan: String(MODES.length), class: "plugin-group", "data-plugin": p },
            breakable(p),
            ` ×${t.weights[j]}`,
          ),
        ),
        header("total", null, gettext("Total (weighted)"), {
          rowspan: "2",
          class: "total",
          title: gettext("the sum of the ×weight columns"),
        }),
      ),
    );
    thead.appendChild(
      el(
        "tr",
        { class: "sub" },
        t.plugins.flatMap((p) =>
          MODES.map(([m, label]) => header(p, m, label, { "data-plugin": p, class: `mode-${m}` })),
        ),
      ),
    );
    state.scorePage = page.page;
    const tbody = $("score-table").querySelector("tbody");
    tbody.innerHTML = "";
    page.nodes.forEach((n, i) => {
      const cls = n === t.selected ? "selected-node" : t.top.includes(n) ? "tie-node" : "";
      tbody.appendChild(
        el(
          "tr",
          { "data-node": n, class: cls },
          el(
            "th",
            {},
            el(
              "button",
              {
                type: "button",
                class: "explain-node",
                "data-node": n,
                title: gettext("explain every step for this node"),
              },
              n,
            ),
          ),
          t.plugins.flatMap((p, j) =>
            MODES.map(([m]) =>
              el(
                "td",
                {
                  class: `explain-cell mode-${m}`,
                  "data-plugin": p,
                  "data-mode": m,
                  tabindex: "0",
                  title: interpolate(gettext("%(plugin)s %(mode)s (Enter or click: explain)"), {
                    plugin: p,
                    mode: MODE_WORDS[m] || m,
                  }),
                },
                page.values[m][i][j],
              ),
            ),
          ),
          el("td", { class: "total" }, page.totals[i]),
        ),
      );
    });
    $("score-matching").textContent = page.query
      ? interpolate(gettext("%(matching)s of %(count)s nodes match"), { matching: page.matching, count: t.count })
      : "";
    pager($("score-pager"), page.page, page.pages, (p) => {
      state.scorePage = p;
      reloadDetail();
    });
  }

  function sortScores(key, mode) {
    const table = state.detail ? state.detail.scores.table : null;
    const current = table ? { key: table.sort, dir: table.dir, mode: table.sort_mode } : state.scoreSort;
    const same = current.key === key && (mode === null || current.mode === mode);
    const dir = same ? (current.dir === "asc" ? "desc" : "asc") : key === "node" ? "asc" : "desc";
    state.scoreSort = { key, dir, mode: mode || "weighted" };
    state.scorePage = 0;
    reloadDetail();
  }

  // The winner's sentence, each node name kept on one line; a tie of more nodes than the
  // sentence names (verdicts.TIES_NAMED) lists them all below it, folded.
  function renderWinner(winner) {
    const p = $("winner");
    if (!winner) {
      p.replaceChildren();
      return;
    }
    const ties = winner.ties || [];
    p.replaceChildren(
      ...nameSegments(winner.text, [...ties, winner.selected]).map((s) =>
        s.name ? el("span", { class: "node-name" }, s.text) : s.text,
      ),
    );
    if (ties.length > TIES_NAMED) {
      p.append(
        el(
          "details",
          { class: "tie-list" },
          el("summary", {}, interpolate(gettext("All %(count)s tied nodes"), { count: ties.length })),
          el(
            "ul",
            {},
            ties.map((n) => el("li", { class: "node-name" }, n)),
          ),
        ),
      );
    }
  }

  function renderCombine(d) {
    const t = d.scores;
    renderWinner(d.winner);
    if (!t.plugins.length) {
      Plotly.purge("combine");
      $("combine").hidden = true;
      return;
    }
    $("combine").hidden = false;
    const fig = combineFigure(t, Math.max(1, state.topN), { width: boxWidth("combine"), size: fontSize() });
    draw("combine", fig);
  }

  return { renderScores, renderCombine, sortScores };
}
