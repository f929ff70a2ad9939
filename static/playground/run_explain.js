// The run page's explanations: click (or press Enter on) a score or a filter cell, or a node's
// name, and the engine's explanation of that number is fetched from explain.json (the run is
// replayed up to the cycle, playground/runs/explain_views.py) and shown in the plugin's own
// terms: the inputs as a table, the formula with the numbers, the result. Also the PreScore and
// NormalizeScore sections and the preemption candidates and criteria. Loaded after run.js, whose
// window.RunPage gives the state and the URLs, and whose "run:panels" event says a cycle's
// panels were drawn. Data only ever goes into textContent.
(function () {
  "use strict";
  const page = window.RunPage;
  if (!page) return;
  const $ = (id) => document.getElementById(id);
  const MAX_ROWS = 50; // rows of one input table; the rest is counted
  // Which explanation gives the number of which cell.
  const POINT_OF_MODE = { raw: "Score", normalized: "NormalizeScore", weighted: "Weight", filter: "Filter" };
  const POINT_LABEL = { Weight: "×weight", Combine: "Select host" };
  const CELL = "#score-table td.explain-cell, #filter-matrix td.explain-cell, #score-table button.explain-node";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (v === null || v === undefined || v === false) return;
      if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    });
    children.flat(Infinity).forEach((c) => {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return node;
  }

  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const scalar = (v) => v === null || typeof v !== "object";

  function scalarText(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "boolean") return v ? "yes" : "no";
    return String(v);
  }

  // Any JSON value as markup: a list of objects as a table, an object as key/value rows.
  // ``resource``: the resource an object of amounts is about (NodeResourcesFit's Filter keys
  // its rows by resource name), so its amounts read as in the formula.
  function valueNode(v, resource) {
    if (scalar(v)) return document.createTextNode(scalarText(v));
    if (Array.isArray(v)) {
      if (!v.length) return document.createTextNode("none");
      if (v.every(scalar)) return document.createTextNode(v.map(scalarText).join(", "));
      if (v.every(isObject)) return rowsTable(v);
      return el("ul", {}, v.slice(0, MAX_ROWS).map((x) => el("li", {}, valueNode(x))), more(v.length));
    }
    const keys = Object.keys(v);
    if (!keys.length) return document.createTextNode("none");
    return el("table", { class: "list compact explain-kv" }, el("tbody", {},
      keys.slice(0, MAX_ROWS).map((k) => el("tr", { "data-key": k }, el("th", {}, k),
        el("td", {}, valueNode(resource ? amount(resource, k, v[k]) : v[k], isObject(v[k]) ? k : null)))),
      keys.length > MAX_ROWS ? el("tr", {}, el("td", { colspan: "2", class: "help" }, `… ${keys.length - MAX_ROWS} more`)) : null));
  }

  function more(n) { return n > MAX_ROWS ? el("li", { class: "help" }, `… ${n - MAX_ROWS} more`) : null; }

  // A resource row's amounts as the formula writes them: millicores, or bytes in Ki/Mi/Gi.
  const AMOUNTS = new Set(["pod", "node", "requested", "allocatable", "free", "used", "request"]);
  function amount(resource, key, v) {
    if (!resource || !AMOUNTS.has(key) || typeof v !== "number") return v;
    if (resource === "cpu") return `${v}m`;
    if (resource === "memory" || resource === "ephemeral-storage" || resource.startsWith("hugepages-")) {
      for (const [unit, size] of [["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]]) {
        if (v && v % size === 0) return `${v / size}${unit}`;
      }
    }
    return v;
  }

  function rowsTable(rows) {
    const cols = [];
    rows.forEach((r) => Object.keys(r).forEach((k) => { if (!cols.includes(k)) cols.push(k); }));
    return el("table", { class: "list compact explain-rows" },
      el("thead", {}, el("tr", {}, cols.map((c) => el("th", {}, c)))),
      el("tbody", {}, rows.slice(0, MAX_ROWS).map((r) => el("tr", {}, cols.map((c) => el("td", { "data-key": c }, valueNode(amount(r.resource, c, r[c])))))),
        rows.length > MAX_ROWS ? el("tr", {}, el("td", { colspan: String(cols.length), class: "help" }, `… ${rows.length - MAX_ROWS} more`)) : null));
  }

  // The result as the cell shows it: a number, a Filter verdict (✓ / ✗ reasons), a selection.
  function resultText(e) {
    const v = e.value;
    if (e.point === "Filter" && isObject(v)) return v.code === "Success" ? "✓ Success" : `✗ ${(v.reasons || []).join("; ") || v.code}`;
    if (isObject(v) && "selected" in v) return v.selected ? `${v.selected} selected` : "no node selected";
    if (isObject(v) && "nominatedNode" in v) return v.nominatedNode ? `${v.nominatedNode} nominated` : "no node nominated";
    if (isObject(v)) return Object.entries(v).map(([k, x]) => `${k}: ${scalar(x) ? scalarText(x) : JSON.stringify(x)}`).join(", ");
    return scalarText(v);
  }

  function explanationNode(e, mode) {
    const matches = mode && POINT_OF_MODE[mode] === e.point;
    const inputs = e.inputs || {};
    return el("section", { class: `explanation${matches ? " matches-cell" : ""}`, "data-point": e.point, "data-plugin": e.plugin || "" },
      el("h4", {}, [POINT_LABEL[e.point] || e.point, e.plugin, e.node].filter(Boolean).join(" · ")),
      e.text ? el("p", { class: "explain-text" }, e.text) : null,
      Object.keys(inputs).length ? el("div", { class: "explain-inputs" }, el("h5", {}, "Inputs"), valueNode(inputs)) : null,
      e.formula ? el("p", { class: "explain-formula" }, el("span", { class: "label" }, "Formula: "), el("code", {}, e.formula)) : null,
      el("p", { class: "explain-result" }, el("span", { class: "label" }, "Result: "), el("strong", { class: "explain-value" }, resultText(e))));
  }

  // A whole node: per plugin raw → normalized → ×weight, and the total, before the details.
  function nodeSummary(list) {
    const rows = new Map();
    list.forEach((e) => {
      if (!["Score", "NormalizeScore", "Weight"].includes(e.point)) return;
      const row = rows.get(e.plugin) || {};
      if (e.point === "Score") row.raw = e.value;
      else if (e.point === "NormalizeScore") { row.normalized = e.value; row.rule = e.inputs && e.inputs.kind; }
      else { row.weight = e.inputs && e.inputs.weight; row.weighted = e.value; }
      rows.set(e.plugin, row);
    });
    if (!rows.size) return null;
    const total = list.find((e) => e.point === "Combine" && typeof e.value === "number");
    return el("table", { class: "list compact", id: "explain-node-summary" },
      el("thead", {}, el("tr", {}, ["Plugin", "raw", "NormalizeScore", "normalized", "weight", "×weight"].map((h) => el("th", {}, h)))),
      el("tbody", {}, [...rows].map(([p, r]) => el("tr", { "data-plugin": p },
        el("th", {}, p), el("td", {}, scalarText(r.raw)), el("td", {}, scalarText(r.rule)), el("td", {}, scalarText(r.normalized)),
        el("td", {}, scalarText(r.weight)), el("td", {}, scalarText(r.weighted))))),
      total ? el("tfoot", {}, el("tr", {}, el("th", { colspan: "5" }, "Total"), el("td", { class: "total" }, total.value))) : null);
  }

  // -- fetching --------------------------------------------------------------------------------

  const cache = new Map(); // "cycle|node|plugin" -> Promise of explanations

  function explain(cycle, node, plugin) {
    const key = `${cycle}|${node || ""}|${plugin || ""}`;
    if (!cache.has(key)) {
      const params = {};
      if (node) params.node = node;
      if (plugin) params.plugin = plugin;
      const url = page.withShare(`${page.cfg.cycle}${cycle}/explain.json`, params);
      const found = fetch(url, { headers: { Accept: "application/json" } }).then(async (r) => {
        const body = await r.json().catch(() => ({}));
        if (!r.ok) throw new Error(body.error || `the server answered ${r.status}`);
        return body.explanations;
      });
      found.catch(() => cache.delete(key)); // a failure is asked again next time
      cache.set(key, found);
    }
    return cache.get(key);
  }

  // -- the panel -------------------------------------------------------------------------------

  const panel = $("explain-panel");
  let opened = null; // { cycle, node, plugin, mode, value }
  let ticket = 0;

  function cellOf(target) {
    if (target.classList.contains("explain-node")) return { node: target.dataset.node, plugin: null, mode: null, value: null };
    const tr = target.closest("tr");
    return { node: tr.dataset.node, plugin: target.dataset.plugin, mode: target.dataset.mode, value: target.textContent };
  }

  async function open(target) {
    const cycle = page.state.selected;
    if (cycle === null || !panel) return;
    const cell = cellOf(target);
    opened = Object.assign({ cycle }, cell);
    const mine = ++ticket;
    panel.hidden = false;
    panel.dataset.node = cell.node;
    panel.dataset.plugin = cell.plugin || "";
    panel.dataset.mode = cell.mode || "";
    $("explain-title").textContent = cell.plugin
      ? `${cell.plugin} on ${cell.node}: ${cell.mode === "filter" ? "Filter" : `${cell.mode} score`} ${cell.value}`
      : `${cell.node}: every step of cycle ${cycle}`;
    $("explain-status").textContent = "Computing: the run is replayed up to this cycle…";
    const body = $("explain-body");
    body.textContent = "";
    panel.focus();
    let list;
    try {
      list = await explain(cycle, cell.node, cell.plugin);
    } catch (err) {
      if (mine === ticket) $("explain-status").textContent = `No explanation: ${err.message}`;
      return;
    }
    if (mine !== ticket) return;
    // A plugin that both filters and scores answers both; keep what the clicked cell shows.
    const scorePoints = ["Score", "NormalizeScore", "Weight"];
    if (cell.mode === "filter") list = list.filter((e) => e.point === "Filter");
    else if (cell.mode) list = list.filter((e) => scorePoints.includes(e.point));
    $("explain-status").textContent = cell.mode
      ? `The ${cell.mode === "filter" ? "verdict" : `${cell.mode} value`} in the cell is the result of the highlighted step.`
      : "Filter, Score, NormalizeScore and ×weight per plugin, the total and the selection.";
    if (!cell.mode) { const s = nodeSummary(list); if (s) body.appendChild(s); }
    list.forEach((e) => body.appendChild(explanationNode(e, cell.mode)));
    const hit = body.querySelector(".matches-cell");
    if (hit) hit.scrollIntoView({ block: "nearest" });
  }

  function close() {
    if (!panel || panel.hidden) return;
    panel.hidden = true;
    ticket++;
    const was = opened;
    opened = null;
    if (!was) return;
    // The tables are redrawn often: find the cell again to give the focus back.
    const row = `tr[data-node="${CSS.escape(was.node)}"]`;
    const sel = was.mode === null ? `#score-table ${row} button.explain-node`
      : `${was.mode === "filter" ? "#filter-matrix" : "#score-table"} ${row} td.explain-cell[data-plugin="${CSS.escape(was.plugin)}"][data-mode="${was.mode}"]`;
    const back = document.querySelector(sel);
    if (back) back.focus();
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest(CELL);
    if (target) open(target);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && panel && !panel.hidden) { event.preventDefault(); close(); return; }
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target.closest && event.target.closest(CELL);
    if (target && target.tagName === "TD") { event.preventDefault(); open(target); }
  });
  if (panel) $("explain-close").addEventListener("click", close);

  // -- PreScore, NormalizeScore and preemption sections ---------------------------------------

  function renderPreScore(d) {
    const rows = d.prescore || [];
    $("prescore-section").hidden = !rows.length;
    const tbody = $("prescore").querySelector("tbody");
    tbody.textContent = "";
    rows.forEach((p) => tbody.appendChild(el("tr", { "data-plugin": p.plugin || "" },
      el("td", {}, p.plugin || ""), el("td", { class: `code-${(p.code || "").toLowerCase()}` }, p.code),
      el("td", {}, (p.reasons || []).join("; ") || (p.code === "Skip" ? "nothing to score for this pod: its Score is skipped" : "state prepared for Score")))));
  }

  function renderNormalize(d) {
    const rows = d.normalize || [];
    $("normalize-section").hidden = !rows.length;
    const tbody = $("normalize").querySelector("tbody");
    tbody.textContent = "";
    rows.forEach((r) => {
      const x = r.example;
      tbody.appendChild(el("tr", { "data-plugin": r.plugin, "data-kind": r.kind },
        el("th", {}, r.plugin),
        el("td", {}, r.rule, r.kind === "none" ? null : el("br"), r.kind === "none" ? null : el("code", {}, r.formula)),
        el("td", {}, `${r.raw_min}..${r.raw_max}`),
        el("td", {}, `${r.normalized_min}..${r.normalized_max}`),
        el("td", {}, `×${r.weight}`),
        el("td", {}, x ? `${x.node}: ${x.raw} → ${x.normalized} → ×${r.weight} = ${x.weighted}` : "—")));
    });
  }

  function preemptionNode(e) {
    const inputs = e.inputs || {};
    const chosen = e.value && e.value.nominatedNode;
    const out = [el("p", { id: "preemption-text" }, e.text)];
    const candidates = inputs.candidates || [];
    if (candidates.length) {
      // Takes the place of run.js's short #candidates table (same id, one row per candidate).
      out.push(el("table", { class: "list compact", id: "candidates", "data-detailed": "1" },
        el("caption", {}, "Candidates and their victims"),
        el("thead", {}, el("tr", {}, ["Candidate", "PDB violations", "Victims: priority, start time, PDB violated"].map((h) => el("th", {}, h)))),
        el("tbody", {}, candidates.map((c) => el("tr", { class: c.node === chosen ? "chosen" : "", "data-node": c.node },
          el("th", {}, c.node + (c.node === chosen ? " (chosen)" : "")),
          el("td", {}, c.pdbViolations),
          el("td", {}, c.victims.length ? el("ul", { class: "victims" }, c.victims.map((v) => el("li", { "data-pod": v.pod },
            v.pod, ": priority ", el("span", { class: "priority" }, v.priority),
            `, started ${v.startTime || "— no status.startTime, so it counts as started now (the latest)"}, PDB violated: ${v.violatesPDB ? "yes" : "no"}`))) : "none"))))));
    }
    const selection = inputs.victimSelection || [];
    if (selection.length) {
      // selectVictimsOnNode on the chosen node: why these victims and not the others.
      out.push(el("h4", {}, `Why these victims on ${chosen}: remove, then put back while the pod fits`));
      out.push(el("ol", { class: "victim-steps", id: "victim-selection" }, selection.map((s) =>
        el("li", { class: s.step === "reprieve" ? (s.fits ? "kept" : "victim") : "removed", "data-pod": s.pod || "" }, s.text))));
    }
    const criteria = inputs.criteria || [];
    if (criteria.length) {
      const nodes = candidates.map((c) => c.node);
      out.push(el("h4", {}, "pickOneNodeForPreemption: the criteria in order"));
      out.push(el("table", { class: "list compact", id: "preemption-criteria" },
        el("thead", {}, el("tr", {}, el("th", {}, "Criterion"), nodes.map((n) => el("th", {}, n)), el("th", {}, "Kept"))),
        el("tbody", {}, criteria.map((c) => el("tr", { class: c.decided ? "decided" : "", "data-criterion": c.criterion },
          el("th", {}, c.criterion),
          nodes.map((n) => el("td", { class: c.kept.includes(n) ? "kept" : "dropped" }, n in c.values ? scalarText(c.values[n]) : "—")),
          el("td", {}, c.kept.join(", ") + (c.decided ? " — decided here" : "")))),
          criteria[criteria.length - 1].tieLeft ? el("tr", { class: "decided", "data-criterion": "first" },
            el("th", {}, "still tied: the first candidate"), nodes.map((n) => el("td", {}, n === chosen ? "✓" : "")), el("td", {}, `${chosen} — decided here`)) : null)));
    } else if (candidates.length === 1) {
      out.push(el("p", { class: "help" }, "One candidate: no criterion to apply."));
    }
    const missed = Object.entries(inputs.notCandidates || {});
    if (missed.length) {
      out.push(el("h4", {}, "Nodes where evictions would not help"));
      out.push(el("ul", { id: "preemption-not-candidates" }, missed.map(([n, why]) => el("li", {}, `${n}: ${why}`))));
    }
    return out;
  }

  async function renderPreemptionExplain(d) {
    const box = $("preemption-explain");
    if (!box || !d.preemption) return;
    const cycle = d.cycle;
    box.textContent = "Computing the candidates' ordering…";
    let list;
    try {
      list = await explain(cycle, null, null);
    } catch (err) {
      if (box.isConnected) box.textContent = `No explanation: ${err.message}`;
      return;
    }
    const current = $("preemption-explain");
    if (!current || page.state.selected !== cycle) return;
    current.textContent = "";
    const e = list.find((x) => x.point === "PostFilter");
    if (!e) return;
    const nodes = preemptionNode(e);
    const detailed = nodes.find((n) => n.id === "candidates");
    const short = $("candidates");
    if (detailed && short) short.replaceWith(detailed); // says all the short one said, and more
    nodes.filter((n) => n !== detailed).forEach((n) => current.appendChild(n));
  }

  document.addEventListener("run:panels", (event) => {
    const d = event.detail;
    if (opened && opened.cycle !== d.cycle) close();
    renderPreScore(d);
    renderNormalize(d);
    renderPreemptionExplain(d);
  });
})();
