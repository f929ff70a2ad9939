// The compare page: draws its figures and reloads until both runs are done. The score heatmaps
// come as score tables, drawn by the run page's builder (score_figures.js); the other figures
// are built by the server, drawn with their names as plain text. A figure inside a closed
// <details> is drawn when it opens (plotly needs its width).
import { draw, drawServerFigure } from "./plot_text.js";
import { heatmapFigure } from "./score_figures.js";

const figures = JSON.parse(document.getElementById("compare-figures").textContent);

function drawOne(id) {
  const node = document.getElementById(id);
  if (!node || node.data || !node.offsetParent) return;
  const figure = figures[id];
  if (figure.table) {
    draw(node, heatmapFigure(figure.table, "weighted", figure.table.nodes.length, { width: node.clientWidth }));
  } else {
    drawServerFigure(node, figure);
  }
}

Object.keys(figures).forEach(drawOne);
document.querySelectorAll("details.compare-pod").forEach((d) =>
  d.addEventListener("toggle", () => {
    if (d.open) d.querySelectorAll(".plot").forEach((p) => drawOne(p.id));
  }),
);
const state = document.getElementById("compare-state");
if (state && state.dataset.terminal !== "1") setTimeout(() => location.reload(), 1000);
