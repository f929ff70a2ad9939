// The run page's "Cluster events": the changes a run's script made between cycles, each with the
// pods it moved (and which plugin's queueing hint said Queue) or left unschedulable (QueueSkip),
// read from changes.json (playground/runs/changes.py). Each change also gets a row in the cycle
// list, after the cycle it followed. Nothing is decided here: the engine recorded every move.
import { gettext, interpolate, listed } from "./i18n.js";
import { el } from "./dom.js";
import { shortPod } from "./format.js";
import { cfg, withShare } from "./run_urls.js";

function clusterChanges() {
  const section = document.getElementById("section-cluster-events");
  if (!section) return;
  const POLL_MS = 1500;
  let changes = [];

  const url = () => withShare(cfg.changes);

  // "pod web-2: unschedulable → activeQ, NodeResourcesFit's hint on NodeAdd said Queue"
  function moveText(m) {
    const why =
      m.plugin && m.hint
        ? interpolate(gettext("%(plugin)s's hint on %(event)s said %(hint)s"), {
            plugin: m.plugin,
            event: m.event,
            hint: m.hint,
          })
        : interpolate(gettext("on %(event)s (no queueing hint was asked)"), { event: m.event });
    return interpolate(gettext("pod %(pod)s: %(from)s → %(to)s, %(why)s"), {
      pod: shortPod(m.pod),
      from: m.from,
      to: m.to,
      why,
    });
  }

  function keptText(m) {
    const said = Object.entries(m.hints).map(([p, h]) =>
      interpolate(gettext("%(plugin)s's hint on %(event)s said %(hint)s"), { plugin: p, event: m.event, hint: h }),
    );
    return interpolate(gettext("pod %(pod)s stayed %(from)s: %(said)s"), {
      pod: shortPod(m.pod),
      from: m.from,
      said: said.join(", "),
    });
  }

  function changeLabel(c) {
    return interpolate(gettext("after cycle %(cycle)s: %(text)s"), { cycle: c.after_cycle, text: c.text });
  }

  function renderSection() {
    const list = document.getElementById("cluster-events");
    document.getElementById("cluster-events-empty").hidden = changes.length > 0;
    list.innerHTML = "";
    changes.forEach((c) => {
      const li = document.createElement("li");
      li.dataset.seq = c.seq;
      li.appendChild(el("strong", {}, changeLabel(c)));
      if (c.events.length)
        li.appendChild(
          el(
            "span",
            { class: "help" },
            interpolate(gettext(" (cluster events: %(events)s)"), { events: listed(c.events) }),
          ),
        );
      const moves = document.createElement("ul");
      moves.className = "moves";
      c.moved.forEach((m) => moves.appendChild(el("li", { class: "moved" }, moveText(m))));
      c.kept.forEach((m) => moves.appendChild(el("li", { class: "kept" }, keptText(m))));
      if (!c.moved.length && !c.kept.length)
        moves.appendChild(el("li", { class: "help" }, gettext("no unschedulable pod was waiting for this event")));
      li.appendChild(moves);
      list.appendChild(li);
    });
  }

  // The cycle list is redrawn by run.js; the change rows are put back after each redraw.
  const tbody = document.querySelector("#timeline tbody");
  function placeRows() {
    if (!tbody) return;
    observer.disconnect();
    tbody.querySelectorAll("tr.cluster-change").forEach((tr) => tr.remove());
    changes
      .slice()
      .reverse()
      .forEach((c) => {
        const tr = document.createElement("tr");
        tr.className = "cluster-change";
        tr.dataset.afterCycle = c.after_cycle;
        const td = el("td", {}, changeLabel(c));
        td.colSpan = 5;
        tr.appendChild(td);
        const row = tbody.querySelector(`tr[data-cycle="${c.after_cycle}"]`);
        if (row) row.after(tr);
        else if (c.after_cycle === 0 && tbody.firstChild) tbody.insertBefore(tr, tbody.firstChild);
      });
    observer.observe(tbody, { childList: true });
  }
  const observer = new MutationObserver(placeRows);

  function load() {
    fetch(url(), { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
      .then((data) => {
        changes = data.changes;
        renderSection();
        placeRows();
        section.dispatchEvent(new CustomEvent("run:cluster-changes", { bubbles: true, detail: changes }));
        if (!data.terminal) setTimeout(load, POLL_MS);
      })
      .catch(() => setTimeout(load, POLL_MS * 4));
  }
  load();
}

// A link into the run page may name a section (?section=section-filter, from the course's
// glossary): scroll to it once the page has drawn it (the cycle panels appear after a cycle
// is selected).
function sectionFromLink() {
  const wanted = new URLSearchParams(location.search).get("section");
  if (!wanted || !/^[a-z-]+$/.test(wanted)) return;
  let tries = 0;
  const timer = setInterval(() => {
    const node = document.getElementById(wanted);
    if (node && node.getClientRects().length) {
      clearInterval(timer);
      node.scrollIntoView({ block: "start" });
      node.classList.add("section-target");
    } else if (++tries > 100) {
      clearInterval(timer);
    }
  }, 100);
}

// "Try a change" appears and "Change the cluster now" goes once the run has finished (when the
// status badge says so).
function tryChangeWhenDone() {
  const status = document.getElementById("run-status");
  const show = document.getElementById("section-try-change");
  const hide = document.getElementById("change-now-form");
  if (!status || (!show && !hide)) return;
  const DONE = new Set(["succeeded", "failed", "cancelled"]);
  const observer = new MutationObserver(() => {
    if (!DONE.has(status.dataset.status)) return;
    if (show) show.hidden = false;
    if (hide) hide.hidden = true;
    observer.disconnect();
  });
  observer.observe(status, {
    attributes: true,
    attributeFilter: ["data-status"],
    childList: true,
    characterData: true,
    subtree: true,
  });
}

// The run page calls this once (run.js).
export function startEvents() {
  clusterChanges();
  sectionFromLink();
  tryChangeWhenDone();
}
