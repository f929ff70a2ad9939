// The compare page: draws the server-built figures and reloads until both runs are done.
// A figure inside a closed <details> is drawn when it opens (plotly needs its width).
(function () {
  "use strict";
  const figures = JSON.parse(document.getElementById("compare-figures").textContent);
  const config = { displayModeBar: false, responsive: true };
  function draw(id) {
    const node = document.getElementById(id);
    if (!node || node.data || !node.offsetParent) return;
    Plotly.react(node, figures[id].data, figures[id].layout, config);
  }
  Object.keys(figures).forEach(draw);
  document.querySelectorAll("details.compare-pod").forEach((d) => d.addEventListener("toggle", () => {
    if (d.open) d.querySelectorAll(".plot").forEach((p) => draw(p.id));
  }));
  const state = document.getElementById("compare-state");
  if (state && state.dataset.terminal !== "1") setTimeout(() => location.reload(), 1000);
})();
