// The run page's "Cluster events": the changes a run's script made between cycles, each with the
// pods it moved (and which plugin's queueing hint said Queue) or left unschedulable (QueueSkip),
// read from changes.json (playground/runs/changes.py). Each change also gets a row in the cycle
// list, after the cycle it followed. Nothing is decided here: the engine recorded every move.
(function () {
  "use strict";
  // Words in the page's language (the JavaScript catalog, /jsi18n/); as written without it.
  const gettext = window.gettext || ((s) => s);
  const interpolate = window.interpolate || ((f, o) => f.replace(/%\((\w+)\)s/g, (m, k) => String(o[k])));
  const cfgNode = document.getElementById("run-config");
  const section = document.getElementById("section-cluster-events");
  if (!cfgNode || !section) return;
  const cfg = JSON.parse(cfgNode.textContent);
  const POLL_MS = 1500;
  let changes = [];

  function url() {
    const query = new URLSearchParams();
    if (cfg.share) query.set("share", cfg.share);
    const text = query.toString();
    return text ? `${cfg.changes}?${text}` : cfg.changes;
  }

  function text(tag, content, cls) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }

  function short(pod) {
    return pod.startsWith("default/") ? pod.slice("default/".length) : pod;
  }

  // "pod web-2: unschedulable → activeQ, NodeResourcesFit's hint on NodeAdd said Queue"
  function moveText(m) {
    const why = m.plugin && m.hint
      ? interpolate(gettext("%(plugin)s's hint on %(event)s said %(hint)s"), { plugin: m.plugin, event: m.event, hint: m.hint }, true)
      : interpolate(gettext("on %(event)s (no queueing hint was asked)"), { event: m.event }, true);
    return interpolate(gettext("pod %(pod)s: %(from)s → %(to)s, %(why)s"), { pod: short(m.pod), from: m.from, to: m.to, why }, true);
  }

  function keptText(m) {
    const said = Object.entries(m.hints).map(([p, h]) =>
      interpolate(gettext("%(plugin)s's hint on %(event)s said %(hint)s"), { plugin: p, event: m.event, hint: h }, true));
    return interpolate(gettext("pod %(pod)s stayed %(from)s: %(said)s"), { pod: short(m.pod), from: m.from, said: said.join(", ") }, true);
  }

  function changeLabel(c) {
    return interpolate(gettext("after cycle %(cycle)s: %(text)s"), { cycle: c.after_cycle, text: c.text }, true);
  }

  function renderSection() {
    const list = document.getElementById("cluster-events");
    document.getElementById("cluster-events-empty").hidden = changes.length > 0;
    list.innerHTML = "";
    changes.forEach((c) => {
      const li = document.createElement("li");
      li.dataset.seq = c.seq;
      li.appendChild(text("strong", changeLabel(c)));
      if (c.events.length) li.appendChild(text("span", interpolate(gettext(" (cluster events: %(events)s)"), { events: listed(c.events) }, true), "help"));
      const moves = document.createElement("ul");
      moves.className = "moves";
      c.moved.forEach((m) => moves.appendChild(text("li", moveText(m), "moved")));
      c.kept.forEach((m) => moves.appendChild(text("li", keptText(m), "kept")));
      if (!c.moved.length && !c.kept.length) moves.appendChild(text("li", gettext("no unschedulable pod was waiting for this event"), "help"));
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
    changes.slice().reverse().forEach((c) => {
      const tr = document.createElement("tr");
      tr.className = "cluster-change";
      tr.dataset.afterCycle = c.after_cycle;
      const td = text("td", changeLabel(c));
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
})();

// A link into the run page may name a section (?section=section-filter, from the course's
// glossary): scroll to it once the page has drawn it (the cycle panels appear after a cycle
// is selected).
(function () {
  "use strict";
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
})();

// "Try a change" appears and "Change the cluster now" goes once the run has finished (when the
// status badge says so).
(function () {
  "use strict";
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
  observer.observe(status, { attributes: true, attributeFilter: ["data-status"], childList: true, characterData: true, subtree: true });
})();
