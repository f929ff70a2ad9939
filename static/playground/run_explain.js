// The run page's explanations: click (or press Enter on) a score or a filter cell, or a node's
// name, and the engine's explanation of that number is fetched from explain.json (the run is
// replayed up to the cycle, playground/runs/explain_views.py) and shown in the plugin's own
// terms: the inputs as a table, the formula with the numbers, the result. Also the PreScore and
// NormalizeScore sections and the preemption candidates and criteria. run.js starts it with
// its state and URLs, and its "run:panels" event says a cycle's panels were drawn. Data only ever goes into textContent.
import { gettext, interpolate, listed } from "./i18n.js";
import { $, el, table } from "./dom.js";
import { inputKey, normalizeKind } from "./run_words.js";
// `page`: run.js's state, cfg and withShare.
export function startExplain(page) {
  const MAX_ROWS = 50; // rows of one input table; the rest is counted
  const MODE_WORDS = { raw: gettext("raw"), normalized: gettext("normalized"), weighted: gettext("weighted") };
  // Which explanation gives the number of which cell.
  const POINT_OF_MODE = { raw: "Score", normalized: "NormalizeScore", weighted: "Weight", filter: "Filter" };
  const POINT_LABEL = { Weight: gettext("×weight"), Combine: gettext("Select host") };
  // A "·" of the filter matrix (a plugin that did not run on the node, or a node Filter never
  // reached) explains itself too: why it did not run; so does a row's verdict (every Filter step
  // of the node, the rejecting one highlighted: the only way to an extender's filter answer).
  const CELL =
    "#score-table td.explain-cell, #filter-matrix td.explain-cell, #filter-matrix td.cell-none, #filter-matrix td.verdict, #score-table button.explain-node";

  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const scalar = (v) => v === null || typeof v !== "object";

  function scalarText(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "boolean") return v ? gettext("yes") : gettext("no");
    return String(v);
  }

  // One input's value: a NormalizeScore's kind in words, its rule as the formula it is.
  function inputValue(k, x, resource) {
    if (k === "kind" && typeof x === "string") return document.createTextNode(normalizeKind(x));
    if (k === "rule" && typeof x === "string") return el("code", {}, x);
    return valueNode(resource ? amount(resource, k, x) : x, isObject(x) ? k : null);
  }

  // Any JSON value as markup: a list of objects as a table, an object as key/value rows.
  // ``resource``: the resource an object of amounts is about (NodeResourcesFit's Filter keys
  // its rows by resource name), so its amounts read as in the formula.
  function valueNode(v, resource) {
    if (scalar(v)) return document.createTextNode(scalarText(v));
    if (Array.isArray(v)) {
      if (!v.length) return document.createTextNode(gettext("none"));
      if (v.every(scalar)) return document.createTextNode(listed(v.map(scalarText)));
      if (v.every(isObject)) return rowsTable(v);
      return el(
        "ul",
        {},
        v.slice(0, MAX_ROWS).map((x) => el("li", {}, valueNode(x))),
        more(v.length),
      );
    }
    const keys = Object.keys(v);
    if (!keys.length) return document.createTextNode(gettext("none"));
    return table(
      { class: "list compact explain-kv" },
      [],
      keys,
      (k) =>
        el("tr", { "data-key": k }, el("th", { title: k }, inputKey(k)), el("td", {}, inputValue(k, v[k], resource))),
      { limit: MAX_ROWS, more: moreText, columns: 2 },
    );
  }

  const moreText = (n) => interpolate(gettext("… %(more)s more"), { more: n });

  function more(n) {
    return n > MAX_ROWS ? el("li", { class: "help" }, moreText(n - MAX_ROWS)) : null;
  }

  // A resource row's amounts as the formula writes them: millicores, or bytes in Ki/Mi/Gi.
  const AMOUNTS = new Set(["pod", "node", "requested", "allocatable", "free", "used", "request"]);
  function amount(resource, key, v) {
    if (!resource || !AMOUNTS.has(key) || typeof v !== "number") return v;
    if (resource === "cpu") return `${v}m`;
    if (resource === "memory" || resource === "ephemeral-storage" || resource.startsWith("hugepages-")) {
      for (const [unit, size] of [
        ["Gi", 2 ** 30],
        ["Mi", 2 ** 20],
        ["Ki", 2 ** 10],
      ]) {
        if (v && v % size === 0) return `${v / size}${unit}`;
      }
    }
    return v;
  }

  function rowsTable(rows) {
    const cols = [];
    rows.forEach((r) =>
      Object.keys(r).forEach((k) => {
        if (!cols.includes(k)) cols.push(k);
      }),
    );
    return table(
      { class: "list compact explain-rows" },
      cols.map(inputKey),
      rows,
      (r) =>
        el(
          "tr",
          {},
          cols.map((c) => el("td", { "data-key": c }, valueNode(amount(r.resource, c, r[c])))),
        ),
      { limit: MAX_ROWS, more: moreText },
    );
  }

  // The result as the cell shows it: a number, a Filter verdict (✓ / ✗ reasons), a selection.
  function resultText(e) {
    const v = e.value;
    if (e.point === "Filter" && isObject(v) && (v.code === "Skip" || e.ran === false)) return gettext("· not run");
    if (e.point === "Filter" && isObject(v))
      return v.code === "Success" ? gettext("✓ Success") : `✗ ${(v.reasons || []).join("; ") || v.code}`;
    if (isObject(v) && "selected" in v)
      return v.selected ? interpolate(gettext("%(node)s selected"), { node: v.selected }) : gettext("no node selected");
    if (isObject(v) && "nominatedNode" in v)
      return v.nominatedNode
        ? interpolate(gettext("%(node)s nominated"), { node: v.nominatedNode })
        : gettext("no node nominated");
    if (isObject(v))
      return Object.entries(v)
        .map(([k, x]) => `${k}: ${scalar(x) ? scalarText(x) : JSON.stringify(x)}`)
        .join(", ");
    return scalarText(v);
  }

  const NOT_EVALUATED = "not evaluated";
  const isExtender = (plugin) =>
    typeof plugin === "string" && (plugin === "Extender" || plugin.startsWith("Extender:"));

  // A custom plugin's reads as CEL paths: node.labels["example.com/x"] → "4" (strings quoted,
  // as the expression sees them: int("4") is not 4).
  function readRows(reads) {
    const rows = [];
    const ident = /^[A-Za-z_][A-Za-z0-9_]*$/;
    (function walk(path, v) {
      if (isObject(v) && Object.keys(v).length) {
        Object.entries(v).forEach(([k, x]) =>
          walk(path ? (ident.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`) : k, x),
        );
      } else {
        rows.push([path, v]);
      }
    })("", reads || {});
    return rows;
  }

  function celText(v) {
    if (typeof v === "string") return JSON.stringify(v);
    if (v === null || v === undefined) return "null";
    if (scalar(v)) return String(v);
    if (isObject(v) && !Object.keys(v).length) return "{}";
    return JSON.stringify(v);
  }

  function readsTable(reads) {
    const rows = readRows(reads);
    if (!rows.length)
      return el("p", { class: "help" }, gettext("none: the expression reads no field of the node, the pod or args."));
    return table(
      { class: "list compact explain-reads" },
      [gettext("Field"), gettext("Value")],
      rows,
      ([k, v]) =>
        el("tr", { "data-key": k }, el("th", {}, el("code", {}, k)), el("td", {}, el("code", {}, celText(v)))),
      { limit: MAX_ROWS, more: moreText },
    );
  }

  // Per node, one or more numbers side by side (before → after, host priorities), this node marked.
  function perNodeTable(id, node, heads, columns) {
    const names = Object.keys(columns[0] || {});
    return table(
      { class: `list compact explain-per-node ${id}` },
      heads,
      names,
      (n) =>
        el(
          "tr",
          { "data-node": n, class: n === node ? "this-node" : "" },
          el("th", {}, n === node ? interpolate(gettext("%(node)s (this node)"), { node: n }) : n),
          columns.map((c) => el("td", {}, scalarText(c[n]))),
        ),
      { limit: MAX_ROWS, more: moreText },
    );
  }

  const rest = (inputs, used) => Object.fromEntries(Object.entries(inputs).filter(([k]) => !used.includes(k)));

  // The inputs in the plugin's own terms: a custom plugin's expression, the fields it read and
  // its value; scores before and after NormalizeScore; an extender's reply. Else a table.
  function inputsNode(e, inputs) {
    const parts = [];
    const used = [];
    if (typeof inputs.expression === "string") {
      used.push("expression");
      parts.push(
        el("h5", {}, gettext("Expression")),
        el("pre", { class: "explain-expression" }, el("code", {}, inputs.expression)),
      );
    }
    if ("reads" in inputs) {
      used.push("reads");
      parts.push(el("h5", {}, gettext("Inputs it read")), readsTable(inputs.reads));
    }
    if ("result" in inputs && typeof inputs.expression === "string") {
      used.push("result");
      parts.push(
        el(
          "p",
          { class: "explain-cel-value" },
          el("span", { class: "label" }, gettext("The expression gave: ")),
          el("code", {}, celText(inputs.result)),
        ),
      );
    }
    if (isObject(inputs.before) && isObject(inputs.after)) {
      used.push("before", "after");
      parts.push(
        el("h5", {}, gettext("Scores before and after NormalizeScore")),
        perNodeTable(
          "explain-normalize",
          e.node,
          [gettext("Node"), gettext("before"), gettext("after")],
          [inputs.before, inputs.after],
        ),
      );
    }
    if (isExtender(e.plugin) && isObject(inputs.reply)) {
      used.push("reply");
      parts.push(extenderReply(e, inputs.reply));
    }
    const others = rest(inputs, used);
    if (Object.keys(others).length)
      parts.push(el("h5", {}, used.length ? gettext("Other inputs") : gettext("Inputs")), valueNode(others));
    return parts.length ? el("div", { class: "explain-inputs" }, parts) : null;
  }

  function extenderReply(e, reply) {
    if (e.point === "Score") {
      return el(
        "div",
        { class: "extender-reply" },
        el("h5", {}, gettext("The extender's reply: host priorities (0–10)")),
        perNodeTable("explain-host-priorities", e.node, [gettext("Host"), gettext("priority")], [reply]),
      );
    }
    const out = [el("h5", {}, gettext("The extender's reply to filter"))];
    const failed = Object.entries(reply.failedNodes || {});
    if (Array.isArray(reply.nodes))
      out.push(
        el(
          "p",
          { class: "extender-kept" },
          el("span", { class: "label" }, gettext("Nodes kept: ")),
          listed(reply.nodes) || gettext("none"),
        ),
      );
    if (failed.length) {
      out.push(
        el(
          "table",
          { class: "list compact explain-failed-nodes" },
          el("thead", {}, el("tr", {}, el("th", {}, gettext("Failed node")), el("th", {}, gettext("reason")))),
          el(
            "tbody",
            {},
            failed.map(([n, why]) => el("tr", { "data-node": n }, el("th", {}, n), el("td", {}, why))),
          ),
        ),
      );
    }
    return el("div", { class: "extender-reply" }, out);
  }

  // An extender's three score steps in one line, as upstream adds them to the total.
  function extenderSum(list) {
    const score = list.find((e) => e.point === "Score" && isExtender(e.plugin));
    const weight = list.find((e) => e.point === "Weight" && score && e.plugin === score.plugin);
    if (!score || !weight || !weight.inputs) return null;
    return el(
      "div",
      { class: "extender-sum", id: "extender-sum" },
      el(
        "p",
        { class: "extender-sum-line" },
        interpolate(gettext("raw %(raw)s × weight %(weight)s × 10 = %(value)s"), {
          raw: score.value,
          weight: weight.inputs.weight,
          value: weight.value,
        }),
      ),
      el(
        "p",
        { class: "help" },
        interpolate(
          gettext(
            "The extender answers 0–10; the scheduler multiplies by its weight and by 10 (MaxNodeScore 100 / MaxExtenderPriority 10) and adds the result to %(node)s's total.",
          ),
          { node: score.node },
        ),
      ),
    );
  }

  // Whether ``e`` gives the clicked cell's value: the cell's point, or for a verdict the step
  // that rejected the node (or said why Filter never reached it).
  function givesCell(e, mode) {
    if (mode === "verdict")
      return (
        e.point === "Filter" &&
        (e.value === NOT_EVALUATED ||
          (isObject(e.value) && e.ran !== false && !["Success", "Skip"].includes(e.value.code)))
      );
    return Boolean(mode) && POINT_OF_MODE[mode] === e.point;
  }

  function explanationNode(e, mode) {
    const matches = givesCell(e, mode);
    const inputs = e.inputs || {};
    return el(
      "section",
      { class: `explanation${matches ? " matches-cell" : ""}`, "data-point": e.point, "data-plugin": e.plugin || "" },
      el("h4", {}, [POINT_LABEL[e.point] || e.point, e.plugin, e.node].filter(Boolean).join(" · ")),
      e.text && e.value !== NOT_EVALUATED ? el("p", { class: "explain-text" }, e.text) : null,
      e.value === NOT_EVALUATED
        ? el("p", { class: "explain-why" }, el("strong", {}, gettext("Why not evaluated: ")), e.text)
        : null,
      inputsNode(e, inputs),
      e.formula
        ? el(
            "p",
            { class: "explain-formula" },
            el("span", { class: "label" }, gettext("Formula: ")),
            el("code", {}, e.formula),
          )
        : null,
      el(
        "p",
        { class: "explain-result" },
        el("span", { class: "label" }, gettext("Result: ")),
        el("strong", { class: "explain-value" }, resultText(e)),
      ),
      // Upstream's reasons stay in English; in another language what they mean follows them.
      e.reasonNote
        ? el("p", { class: "explain-reason-note", lang: document.documentElement.lang || null }, e.reasonNote)
        : null,
    );
  }

  // A whole node: per plugin raw → normalized → ×weight, and the total, before the details.
  function nodeSummary(list) {
    const rows = new Map();
    list.forEach((e) => {
      if (!["Score", "NormalizeScore", "Weight"].includes(e.point)) return;
      const row = rows.get(e.plugin) || {};
      if (e.point === "Score") row.raw = e.value;
      else if (e.point === "NormalizeScore") {
        row.normalized = e.value;
        row.rule = e.inputs && e.inputs.kind;
      } else {
        row.weight = e.inputs && e.inputs.weight;
        row.weighted = e.value;
      }
      rows.set(e.plugin, row);
    });
    if (!rows.size) return null;
    const total = list.find((e) => e.point === "Combine" && typeof e.value === "number");
    return el(
      "table",
      { class: "list compact", id: "explain-node-summary" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          [
            gettext("Plugin"),
            gettext("raw"),
            "NormalizeScore",
            gettext("normalized"),
            gettext("weight"),
            gettext("×weight"),
          ].map((h) => el("th", {}, h)),
        ),
      ),
      el(
        "tbody",
        {},
        [...rows].map(([p, r]) =>
          el(
            "tr",
            { "data-plugin": p },
            el("th", {}, p),
            el("td", {}, scalarText(r.raw)),
            el("td", {}, r.rule ? normalizeKind(r.rule) : scalarText(r.rule)),
            el("td", {}, scalarText(r.normalized)),
            el("td", {}, scalarText(r.weight)),
            el("td", {}, scalarText(r.weighted)),
          ),
        ),
      ),
      total
        ? el(
            "tfoot",
            {},
            el("tr", {}, el("th", { colspan: "5" }, gettext("Total")), el("td", { class: "total" }, total.value)),
          )
        : null,
    );
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
        if (!r.ok)
          throw new Error(body.error || interpolate(gettext("the server answered %(status)s"), { status: r.status }));
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
    if (target.classList.contains("explain-node"))
      return { node: target.dataset.node, plugin: null, mode: null, value: null };
    const tr = target.closest("tr");
    if (target.classList.contains("verdict"))
      return { node: tr.dataset.node, plugin: null, mode: "verdict", value: target.textContent };
    if (target.classList.contains("cell-none"))
      return { node: tr.dataset.node, plugin: target.dataset.plugin, mode: "filter", value: "not run" };
    return {
      node: tr.dataset.node,
      plugin: target.dataset.plugin,
      mode: target.dataset.mode,
      value: target.textContent,
    };
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
    const what =
      cell.mode === "filter"
        ? "Filter"
        : interpolate(gettext("%(mode)s score"), { mode: MODE_WORDS[cell.mode] || cell.mode });
    $("explain-title").textContent =
      cell.mode === "verdict"
        ? interpolate(gettext("%(node)s: Filter verdict — %(value)s"), { node: cell.node, value: cell.value })
        : cell.plugin
          ? interpolate(gettext("%(plugin)s on %(node)s: %(what)s %(value)s"), {
              plugin: cell.plugin,
              node: cell.node,
              what,
              value: cell.value,
            })
          : interpolate(gettext("%(node)s: every step of cycle %(cycle)s"), { node: cell.node, cycle });
    $("explain-status").textContent = gettext("Computing: the run is replayed up to this cycle…");
    const body = $("explain-body");
    body.textContent = "";
    panel.focus();
    let list;
    try {
      list = await explain(cycle, cell.node, cell.plugin);
    } catch (err) {
      if (mine === ticket)
        $("explain-status").textContent = interpolate(gettext("No explanation: %(error)s"), { error: err.message });
      return;
    }
    if (mine !== ticket) return;
    // A plugin that both filters and scores answers both; keep what the clicked cell shows.
    const scorePoints = ["Score", "NormalizeScore", "Weight"];
    if (cell.mode === "filter" || cell.mode === "verdict") list = list.filter((e) => e.point === "Filter");
    else if (cell.mode) list = list.filter((e) => scorePoints.includes(e.point));
    $("explain-status").textContent =
      cell.mode === "verdict"
        ? gettext("Every Filter step on this node; the one that decides the verdict is highlighted.")
        : cell.mode === "filter"
          ? gettext("The verdict in the cell is the result of the highlighted step.")
          : cell.mode
            ? interpolate(gettext("The %(mode)s value in the cell is the result of the highlighted step."), {
                mode: MODE_WORDS[cell.mode] || cell.mode,
              })
            : gettext("Filter, Score, NormalizeScore and ×weight per plugin, the total and the selection.");
    if (!cell.mode) {
      const s = nodeSummary(list);
      if (s) body.appendChild(s);
    }
    const sum = extenderSum(list);
    if (sum) body.appendChild(sum);
    // A verdict's deciding step first: the steps that passed or did not run follow it.
    if (cell.mode === "verdict")
      list = [...list.filter((e) => givesCell(e, "verdict")), ...list.filter((e) => !givesCell(e, "verdict"))];
    list.forEach((e) => body.appendChild(explanationNode(e, cell.mode)));
    const hit = body.querySelector(".matches-cell");
    if (sum)
      panel.scrollTop = 0; // the extender's sum says it all, at the top
    else if (hit) hit.scrollIntoView({ block: "nearest" });
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
    const sel =
      was.mode === null
        ? `#score-table ${row} button.explain-node`
        : was.mode === "verdict"
          ? `#filter-matrix ${row} td.verdict`
          : `${was.mode === "filter" ? "#filter-matrix" : "#score-table"} ${row} td.explain-cell[data-plugin="${CSS.escape(was.plugin)}"][data-mode="${was.mode}"]`;
    const back = document.querySelector(sel);
    if (back) back.focus();
  }

  document.addEventListener("click", (event) => {
    const target = event.target.closest(CELL);
    if (target) open(target);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && panel && !panel.hidden) {
      event.preventDefault();
      close();
      return;
    }
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target.closest && event.target.closest(CELL);
    if (target && target.tagName === "TD") {
      event.preventDefault();
      open(target);
    }
  });
  if (panel) $("explain-close").addEventListener("click", close);

  // The filter matrix's verdicts and "·" cells take the focus too (Enter explains them); the
  // matrix is redrawn by run.js, so each redraw is given its tab stops.
  const matrixBody = document.querySelector("#filter-matrix tbody");
  function focusable() {
    matrixBody.querySelectorAll("td.verdict, td.cell-none").forEach((td) => {
      if (!td.hasAttribute("tabindex")) td.tabIndex = 0;
    });
  }
  if (matrixBody) {
    new MutationObserver(focusable).observe(matrixBody, { childList: true });
    focusable();
  }

  // -- PreScore, NormalizeScore and preemption sections ---------------------------------------

  function renderPreScore(d) {
    const rows = d.prescore || [];
    $("prescore-section").hidden = !rows.length;
    const tbody = $("prescore").querySelector("tbody");
    tbody.textContent = "";
    rows.forEach((p) =>
      tbody.appendChild(
        el(
          "tr",
          { "data-plugin": p.plugin || "" },
          el("td", {}, p.plugin || ""),
          el("td", { class: `code-${(p.code || "").toLowerCase()}` }, p.code),
          el(
            "td",
            {},
            (p.reasons || []).join("; ") ||
              (p.code === "Skip"
                ? gettext("nothing to score for this pod: its Score is skipped")
                : gettext("state prepared for Score")),
          ),
        ),
      ),
    );
  }

  function renderNormalize(d) {
    const rows = d.normalize || [];
    $("normalize-section").hidden = !rows.length;
    const tbody = $("normalize").querySelector("tbody");
    tbody.textContent = "";
    rows.forEach((r) => {
      const x = r.example;
      tbody.appendChild(
        el(
          "tr",
          { "data-plugin": r.plugin, "data-kind": r.kind },
          el("th", {}, r.plugin),
          el(
            "td",
            {},
            r.rule,
            r.kind === "none" ? null : el("br"),
            r.kind === "none" ? null : el("code", {}, r.formula),
          ),
          el("td", {}, `${r.raw_min}..${r.raw_max}`),
          el("td", {}, `${r.normalized_min}..${r.normalized_max}`),
          el("td", {}, `×${r.weight}`),
          el("td", {}, x ? `${x.node}: ${x.raw} → ${x.normalized} → ×${r.weight} = ${x.weighted}` : "—"),
        ),
      );
    });
  }

  // A victim's start: its status.startTime, or where it came from (a simulation starts no
  // container, so a pod has none and upstream's criteria count it as started now).
  function startedText(v) {
    if (v.startTime) return interpolate(gettext("started %(time)s"), { time: v.startTime });
    const since =
      typeof v.boundAt === "number"
        ? interpolate(gettext("running since t=%(time)s s of this run (bound by it)"), { time: v.boundAt.toFixed(1) })
        : gettext("running since before the run");
    return interpolate(gettext("%(since)s; no status.startTime, so the criteria count it as started now"), { since });
  }

  // selectVictimsOnNode's steps on one node: every lower-priority pod removed, then each put
  // back while the pod fits (kept) or not (a victim).
  function victimSteps(steps, id) {
    return el(
      "ol",
      id ? { class: "victim-steps", id } : { class: "victim-steps" },
      steps.map((s) =>
        el(
          "li",
          { class: s.step === "reprieve" ? (s.fits ? "kept" : "victim") : "removed", "data-pod": s.pod || "" },
          s.text,
        ),
      ),
    );
  }

  function preemptionNode(e) {
    const inputs = e.inputs || {};
    const chosen = e.value && e.value.nominatedNode;
    const selection = inputs.victimSelection || [];
    // The steps are listed below: the paragraph does not say them a second time.
    const text = selection
      .reduce((t, step) => (step.text ? t.replace(step.text, "") : t), e.text || "")
      .replace(/\s+/g, " ")
      .trim();
    const out = [el("p", { id: "preemption-text" }, text)];
    const candidates = inputs.candidates || [];
    if (candidates.length) {
      // Takes the place of run.js's short #candidates table (same id, one row per candidate).
      out.push(
        el(
          "table",
          { class: "list compact", id: "candidates", "data-detailed": "1" },
          el("caption", {}, gettext("Candidates and their victims")),
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              [
                gettext("Candidate"),
                gettext("PDB violations"),
                gettext("Victims: priority, start time, PDB violated"),
              ].map((h) => el("th", {}, h)),
            ),
          ),
          el(
            "tbody",
            {},
            candidates.map((c) =>
              el(
                "tr",
                { class: c.node === chosen ? "chosen" : "", "data-node": c.node },
                el("th", {}, c.node + (c.node === chosen ? gettext(" (chosen)") : "")),
                el("td", {}, c.pdbViolations),
                el(
                  "td",
                  {},
                  c.victims.length
                    ? el(
                        "ul",
                        { class: "victims" },
                        c.victims.map((v) =>
                          el(
                            "li",
                            { "data-pod": v.pod },
                            v.pod,
                            gettext(": priority "),
                            el("span", { class: "priority" }, v.priority),
                            interpolate(gettext(", %(started)s, PDB violated: %(violated)s"), {
                              started: startedText(v),
                              violated: v.violatesPDB ? gettext("yes") : gettext("no"),
                            }),
                          ),
                        ),
                      )
                    : gettext("none"),
                ),
              ),
            ),
          ),
        ),
      );
    }
    if (selection.length) {
      // selectVictimsOnNode on the chosen node: why these victims and not the others.
      out.push(
        el(
          "h4",
          {},
          interpolate(gettext("Why these victims on %(node)s: remove, then put back while the pod fits"), {
            node: chosen,
          }),
        ),
      );
      out.push(victimSteps(selection, "victim-selection"));
    }
    // The same walk on every other candidate, folded: often the node that spares a pod the
    // chosen node evicts is the one worth asking about.
    const walks = inputs.victimSelections || {};
    const others = candidates.filter((c) => c.node !== chosen && (walks[c.node] || []).length);
    if (others.length) {
      out.push(el("h4", {}, gettext("The same walk on the other candidates")));
      others.forEach((c) =>
        out.push(
          el(
            "details",
            { class: "victim-walk", "data-node": c.node },
            el(
              "summary",
              {},
              interpolate(gettext("On %(node)s: %(victims)s"), {
                node: c.node,
                victims: c.victims.length ? listed(c.victims.map((v) => v.pod)) : gettext("no victim"),
              }),
            ),
            victimSteps(walks[c.node], null),
          ),
        ),
      );
    }
    const criteria = inputs.criteria || [];
    if (criteria.length) {
      const nodes = candidates.map((c) => c.node);
      out.push(el("h4", {}, gettext("pickOneNodeForPreemption: the criteria in order")));
      out.push(
        el(
          "table",
          { class: "list compact", id: "preemption-criteria" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", {}, gettext("Criterion")),
              nodes.map((n) => el("th", {}, n)),
              el("th", {}, gettext("Kept")),
            ),
          ),
          el(
            "tbody",
            {},
            criteria.map((c) =>
              el(
                "tr",
                { class: c.decided ? "decided" : "", "data-criterion": c.criterion },
                el("th", {}, c.label || c.criterion),
                nodes.map((n) =>
                  el(
                    "td",
                    { class: c.kept.includes(n) ? "kept" : "dropped" },
                    n in c.values ? scalarText(c.values[n]) : "—",
                  ),
                ),
                el("td", {}, listed(c.kept) + (c.decided ? gettext(" — decided here") : "")),
              ),
            ),
            criteria[criteria.length - 1].tieLeft
              ? el(
                  "tr",
                  { class: "decided", "data-criterion": "first" },
                  el("th", {}, gettext("still tied: the first candidate")),
                  nodes.map((n) => el("td", {}, n === chosen ? "✓" : "")),
                  el("td", {}, chosen + gettext(" — decided here")),
                )
              : null,
          ),
        ),
      );
    } else if (candidates.length === 1) {
      out.push(el("p", { class: "help" }, gettext("One candidate: no criterion to apply.")));
    }
    const missed = Object.entries(inputs.notCandidates || {});
    if (missed.length) {
      out.push(el("h4", {}, gettext("Nodes where evictions would not help")));
      out.push(
        el(
          "ul",
          { id: "preemption-not-candidates" },
          missed.map(([n, why]) => el("li", {}, `${n}: ${why}`)),
        ),
      );
      if (e.reasonNote) out.push(el("p", { class: "explain-reason-note" }, e.reasonNote));
    }
    return out;
  }

  async function renderPreemptionExplain(d) {
    const box = $("preemption-explain");
    if (!box || !d.preemption) return;
    const cycle = d.cycle;
    box.textContent = gettext("Computing the candidates' ordering…");
    let list;
    try {
      list = await explain(cycle, null, null);
    } catch (err) {
      if (box.isConnected) box.textContent = interpolate(gettext("No explanation: %(error)s"), { error: err.message });
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
}
