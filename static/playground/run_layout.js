// The run page's layout helpers, apart from the panels' drawing (run.js): a filter-matrix row
// opens to show its cells' full text (click or Enter on the node name; a cell's own click stays
// free), the plugins that answered Skip are named under the matrix and the score table, and
// names cut by an ellipsis keep their full text in a title.
import { gettext, interpolate, listed } from "./i18n.js";
// `state`: run.js's page state (the cycle drawn is state.detail).
export function startLayout(state) {
  const matrix = document.getElementById("filter-matrix");
  if (!matrix) return;

  function toggle(th) {
    const row = th.closest("tr");
    const open = row.classList.toggle("expanded");
    th.setAttribute("aria-expanded", open ? "true" : "false");
  }
  matrix.addEventListener("click", (event) => {
    const th = event.target.closest("tbody th");
    if (th) toggle(th);
  });
  matrix.addEventListener("keydown", (event) => {
    const th = event.target.closest("tbody th");
    if (th && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      toggle(th);
    }
  });

  function skipped(list) {
    return (list || []).filter((p) => p.plugin && !p.merged && p.code === "Skip").map((p) => p.plugin);
  }
  function note(id, names, text) {
    const p = document.getElementById(id);
    if (!p) return;
    p.hidden = !names.length;
    p.textContent = names.length ? interpolate(gettext("%(text)s: %(names)s."), { text, names: listed(names) }) : "";
    p.dataset.plugins = names.join(" ");
  }

  // After each redraw of the matrix: node headers become expand controls; Skip is noted.
  function decorate() {
    matrix.querySelectorAll("tbody th").forEach((th) => {
      if (th.hasAttribute("tabindex")) return;
      th.setAttribute("tabindex", "0");
      th.setAttribute("aria-expanded", "false");
      th.title = interpolate(gettext("%(node)s: click or Enter shows every cell in full"), { node: th.textContent });
    });
    matrix.querySelectorAll("td").forEach((td) => {
      if (!td.title) td.title = td.textContent;
    });
    const d = state.detail;
    if (!d) return;
    note(
      "filter-skipped",
      skipped(d.prefilter),
      gettext("Skipped at PreFilter (nothing to check for this pod, so no Filter column)"),
    );
    note(
      "score-skipped",
      skipped(d.prescore),
      gettext("Skipped at PreScore (nothing to score for this pod, so no Score column)"),
    );
  }
  function titles() {
    document.querySelectorAll("#timeline tbody td").forEach((td) => {
      if (!td.title && td.textContent) td.title = td.textContent;
    });
  }
  new MutationObserver(decorate).observe(matrix, { childList: true, subtree: true });
  const timeline = document.getElementById("timeline");
  if (timeline) new MutationObserver(titles).observe(timeline, { childList: true, subtree: true });
  titles();
}
