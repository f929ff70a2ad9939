// The run page's gangs, for runs with the GangScheduling gate on: each gang of the run's
// Workloads, its members and where each one is (gated at PreEnqueue, waiting at Permit on a node
// holding its requests, bound, timed out), and the step at which it completed. Everything comes
// from gangs.json (playground/runs/panels/gangs.py). A finished run's panel shows the gangs as
// they were at the step the stepper shows; a running run's, the latest, asked again as it goes.
import { gettext, interpolate } from "./i18n.js";
import { el } from "./dom.js";
import { shortPod } from "./format.js";
import { withShare } from "./run_urls.js";

const POLL_MS = 2000;

function gangBlock(gang) {
  const status = el("p", { class: `gang-status ${gang.completed ? "gang-complete" : "gang-incomplete"}` }, gang.status);
  const completes = gang.completes; // when it completes in the run, whatever the step shown
  if (completes && completes.link) {
    status.append(" ", el("a", { href: completes.link, class: "gang-completed-step" }, gettext("show the step")));
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

export function startGangs(state) {
  const root = document.getElementById("gangs-section");
  if (!root) return;
  const list = document.getElementById("gangs");
  const when = document.getElementById("gangs-when");
  let asked = null; // the query of the last answer drawn (or asked for)
  let timer = null;

  // The step the stepper shows, once the run has ended: the gangs are drawn as they were then.
  function atStep() {
    const d = state.detail;
    if (!state.terminal || !d || !d.steps || !d.steps.length) return null;
    const i = Math.max(0, Math.min(state.step || 0, d.steps.length - 1));
    return { seq: d.steps[i].seq, cycle: d.cycle, step: i + 1 };
  }

  async function load() {
    clearTimeout(timer);
    const at = atStep();
    const query = at ? { upto: at.seq } : {};
    const key = JSON.stringify(query);
    asked = key;
    let data = null;
    try {
      const response = await fetch(withShare(root.dataset.url, query), { headers: { Accept: "application/json" } });
      if (response.ok) data = await response.json();
    } catch (err) {
      /* asked again below */
    }
    if (asked !== key) return; // a later step's answer is on its way
    if (data) {
      root.hidden = !data.gangs.length;
      list.replaceChildren(...data.gangs.map(gangBlock));
      when.textContent = at
        ? interpolate(gettext("at cycle %(cycle)s, step %(step)s"), at)
        : gettext("latest, from the stream");
      // Once the run has ended (and the page knows it), the stepper's moves ask again.
      if (data.terminal && (at || state.terminal)) return;
    }
    timer = setTimeout(load, POLL_MS);
  }

  // The stepper writes its position on every move (step-position's data-step and text).
  const position = document.getElementById("step-position");
  let pending = null;
  if (position)
    new MutationObserver(() => {
      clearTimeout(pending);
      pending = setTimeout(() => {
        const at = atStep();
        if (at && JSON.stringify({ upto: at.seq }) !== asked) load();
      }, 120);
    }).observe(position, { attributes: true, childList: true, characterData: true, subtree: true });
  load();
}
