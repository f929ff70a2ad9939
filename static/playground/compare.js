// The compare page: draws the server-built figures and reloads until both runs are done.
(function () {
  "use strict";
  const figures = JSON.parse(document.getElementById("compare-figures").textContent);
  Object.entries(figures).forEach(([id, fig]) => {
    if (document.getElementById(id)) Plotly.react(id, fig.data, fig.layout, { displayModeBar: false });
  });
  const state = document.getElementById("compare-state");
  if (state && state.dataset.terminal !== "1") setTimeout(() => location.reload(), 1000);
})();
