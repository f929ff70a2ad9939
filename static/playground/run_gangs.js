// The run page's gangs, for runs with the GangScheduling gate on: each gang of the run's
// Workloads, its members and where each one is (gated at PreEnqueue, waiting at Permit on a node
// holding its requests, bound, timed out), and the step at which it completed. Everything comes
// from gangs.json (playground/runs/panels/gangs.py), asked again while the run goes on.
import { gettext } from "./i18n.js";
import { el } from "./dom.js";
import { shortPod } from "./format.js";
import { withShare } from "./run_urls.js";

const POLL_MS = 2000;

function gangBlock(gang) {
  const done = gang.completed;
  const status = el("p", { class: `gang-status ${done ? "gang-complete" : "gang-incomplete"}` }, gang.status);
  if (done && done.link) {
    status.append(" ", el("a", { href: done.link, class: "gang-completed-step" }, gettext("show the step")));
  }
  const rows = gang.members.map((m) =>
    el(
      "tr",
      { "data-pod": m.pod, "data-state": m.state, class: `gang-state-${m.state}` },
      el("td", {}, shortPod(m.pod)),
      el("td", {}, m.text),
    ),
  );
  return el(
    "div",
    { class: "gang", "data-workload": gang.workload, "data-group": gang.group },
    el("h3", {}, gang.title),
    status,
    el(
      "table",
      { class: "list compact gang-members" },
      el("thead", {}, el("tr", {}, el("th", {}, gettext("Member")), el("th", {}, gettext("Where it is")))),
      el("tbody", {}, rows),
    ),
  );
}

export function startGangs() {
  const root = document.getElementById("gangs-section");
  if (!root) return;
  const list = document.getElementById("gangs");

  async function load() {
    let data = null;
    try {
      const response = await fetch(withShare(root.dataset.url), { headers: { Accept: "application/json" } });
      if (response.ok) data = await response.json();
    } catch (err) {
      /* asked again below */
    }
    if (data) {
      root.hidden = !data.gangs.length;
      list.replaceChildren(...data.gangs.map(gangBlock));
      if (data.terminal) return;
    }
    setTimeout(load, POLL_MS);
  }
  load();
}
