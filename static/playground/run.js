// The run page: a websocket client (events.json polling as fallback) and the panels drawn
// from the run's stream: one summary per scheduling cycle and the small events (queue, binding,
// Permit). Nothing here decides anything: it regroups what the stream says, and the per-cycle
// panels come from playground/runs/paging.py through cycles/<n>.json, one page at a time, so the
// page stays light whatever the cluster's size.
//
// The page loads run_urls.js (which asks for the first cycle early), Plotly, then this module,
// which starts the page's other modules: the layout helpers, the explanations, the cluster
// events and the devices.
import { $, el, breakable } from "./dom.js";
import { fmtSeconds, shortPod } from "./format.js";
import { gettext, pgettext, interpolate, listed } from "./i18n.js";
import { drawServerFigure } from "./plot_text.js";
import { onTop } from "./run_reveal.js";
import { startDevices } from "./run_devices.js";
import { startEvents } from "./run_events.js";
import { startExplain } from "./run_explain.js";
import { startGangs } from "./run_gangs.js";
import { startLayout } from "./run_layout.js";
import { runScores } from "./run_scores.js";
import { runStepper } from "./run_stepper.js";
import { cfg, cycleUrl, initialView, readHash, take, tookEarly, withShare } from "./run_urls.js";
import { runWaiting } from "./run_waiting.js";
import { bindingWord, reasonText, resultWord } from "./run_words.js";
const BINDING = new Set(["Reserve", "Permit", "PreBind", "Bind", "PostBind", "Unreserve"]);
const TIMELINE_PAGE = 100;
// A run's status in words; the badge's class and data-status keep the value.
const STATUS_WORDS = {
  pending: pgettext("run status", "pending"),
  running: pgettext("run status", "running"),
  succeeded: pgettext("run status", "succeeded"),
  failed: pgettext("run status", "failed"),
  cancelled: pgettext("run status", "cancelled"),
};

const state = {
  events: [],
  lastSeq: -1,
  status: cfg.status,
  terminal: cfg.terminal,
  cycles: new Map(), // cycle -> row
  latestCycleOfPod: new Map(),
  evictions: new Map(), // cycle -> the Delete events (preemption victims) it caused
  selected: null,
  detail: null,
  step: 0,
  ...initialView(), // how the panels are cut: mode, topN, pages, sorts, searches
  timelinePage: null, // null: follow the last page
  timelineQuery: "",
  ws: null,
  polling: false,
  progress: null,
};
// Read by the browser tests (and the curious): the page's state, and whether a part is in view.
window.runState = state;
window.RunPage = { state };
window.RunReveal = { onTop };

// -- helpers ---------------------------------------------------------------------------------

function csrf() {
  const input = document.querySelector("#csrf-holder [name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}
function debounce(fn, ms) {
  let t = null;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}
function pager(container, page, pages, go) {
  container.innerHTML = "";
  if (pages <= 1) return;
  container.append(
    el(
      "button",
      { type: "button", class: "page-prev", disabled: page <= 0 ? "disabled" : null, onclick: () => go(page - 1) },
      "‹",
    ),
    ` ${interpolate(gettext("page %(page)s / %(pages)s"), { page: page + 1, pages })} `,
    el(
      "button",
      {
        type: "button",
        class: "page-next",
        disabled: page >= pages - 1 ? "disabled" : null,
        onclick: () => go(page + 1),
      },
      "›",
    ),
  );
}

// -- ingesting the stream --------------------------------------------------------------------

// One envelope: a cycle summary (seq..last) or a small event (seq). Returns false on a gap.
function ingestEnvelope(m) {
  const last = m.last === undefined ? m.seq : m.last;
  if (last <= state.lastSeq) return true; // a duplicate after a reconnect
  if (m.seq > state.lastSeq + 1) return false;
  if (m.kind === "cycle") ingestCycle(m);
  else ingest(m.event);
  state.lastSeq = last;
  return true;
}

function ingestCycle(m) {
  // The queue and Permit mirrors only need to know that the pod's cycle began.
  state.events.push({ type: "CycleStart", seq: m.seq, cycle: m.cycle, pod: m.pod, time: 0 });
  state.cycles.set(m.cycle, {
    cycle: m.cycle,
    pod: m.pod,
    result: m.result,
    node: m.node,
    message: m.message,
    feasible: m.feasible,
    evaluated: m.evaluated,
    binding: "",
    bindingEvents: [],
  });
  state.latestCycleOfPod.set(m.pod, m.cycle);
}

function ingest(ev) {
  state.events.push(ev);
  // The engine's clock, and when the page heard it: a pod waiting at Permit waits in real
  // time, so its countdown runs on from the latest event's time.
  if (typeof ev.time === "number" && ev.time >= (state.clockTime || 0)) {
    state.clockTime = ev.time;
    state.clockHeardAt = performance.now();
  }
  const kind = ev.type;
  if (kind === "Delete" && ev.cycle) {
    if (!state.evictions.has(ev.cycle)) state.evictions.set(ev.cycle, []);
    state.evictions.get(ev.cycle).push(ev);
  }
  if (BINDING.has(kind)) {
    const row = state.cycles.get(state.latestCycleOfPod.get(ev.pod));
    if (row) {
      row.bindingEvents.push(ev);
      row.binding = bindingState(row.bindingEvents);
    }
  }
  if (
    state.selected !== null &&
    state.latestCycleOfPod.get(ev.pod) === state.selected &&
    (!state.detail || ev.seq > state.detail.last_seq)
  ) {
    refetchDetail();
  }
}

// Mirrors charts.binding_state.
function bindingState(binding) {
  const waiting = new Set();
  let s = binding.length ? "Binding" : "";
  binding.forEach((ev) => {
    const code = ev.code;
    if (ev.type === "Permit" && code === "Wait") {
      waiting.add(ev.plugin);
      s = "Waiting";
    } else if (ev.type === "Permit" && code === "Success") {
      waiting.delete(ev.plugin);
      s = waiting.size ? "Waiting" : "Binding";
    } else if (ev.type === "Unreserve") {
      s = binding.some((e) => e.type === "Permit" && e.code !== "Success" && e.code !== "Wait") ? "Rejected" : "Failed";
    } else if (ev.type === "Bind" && code === "Success") s = "Bound";
    else if (!["Success", "Skip", "Wait", undefined, null].includes(code)) s = "Failed";
  });
  return s;
}

// Mirrors overview.binding_outcome: the result of a pod Permit turned away after it was scheduled.
function bindingOutcome(binding) {
  const ev = (binding || []).find(
    (e) => e.type === "Permit" && !["Success", "Wait", "Skip", undefined, null].includes(e.code),
  );
  if (!ev) return null;
  const reason = (ev.reasons || []).map(reasonText).join("; ") || ev.code;
  const what = reason.startsWith("rejected due to timeout")
    ? gettext("Permit timed out")
    : gettext("Rejected at Permit");
  return `${what} (${ev.plugin || "Permit"}): ${reason}`;
}

// The row's result: Permit's rejection or timeout in short (the column is narrow), in full on hover.
function resultCell(r) {
  const outcome = bindingOutcome(r.bindingEvents);
  return outcome
    ? el("td", { class: "result permit-outcome", title: outcome }, outcome.split(" (")[0])
    : el("td", { class: "result", title: r.result }, resultWord(r.result));
}

const redraw = debounce(() => {
  renderTimeline();
  renderQueue();
  renderWaiting();
  renderProgress();
  if (state.selected === null && state.cycles.size) {
    const fromHash = readHash();
    selectCycle(
      fromHash.cycle !== null && state.cycles.has(fromHash.cycle) ? fromHash.cycle : Math.min(...state.cycles.keys()),
      fromHash.step,
    );
  }
}, 60);

function finished(status) {
  const was = state.terminal;
  state.status = status || state.status;
  state.terminal = ["succeeded", "failed", "cancelled"].includes(state.status);
  const badge = $("run-status");
  badge.textContent = STATUS_WORDS[state.status] || state.status;
  badge.dataset.status = state.status;
  badge.className = `badge status-${state.status}`;
  if (state.terminal) {
    $("cancel-run").hidden = true;
    if (!was) loadUsage();
  }
  redraw();
}

// -- transport: websocket first, events.json when it cannot connect ------------------------

function connect() {
  if (!("WebSocket" in window)) {
    startPolling();
    return;
  }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let opened = false;
  const ws = new WebSocket(`${proto}//${location.host}${withShare(cfg.ws, { after: state.lastSeq })}`);
  state.ws = ws;
  ws.onopen = () => {
    opened = true;
    $("connection").textContent = gettext("live");
  };
  ws.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.kind === "batch") {
      for (const m of data.messages) {
        if (m.kind === "progress") {
          state.progress = m;
          continue;
        }
        if (!ingestEnvelope(m)) {
          // A gap: ask again from the last seq held.
          ws.onclose = null;
          ws.close();
          state.ws = null;
          connect();
          return;
        }
      }
      redraw();
    } else if (data.kind === "finished") {
      if (data.error) {
        $("run-error").textContent = data.error;
        $("run-error").hidden = false;
      }
      if (data.summary && data.summary.note) {
        $("run-note").textContent = data.summary.note;
        $("run-note").hidden = false;
      }
      finished(data.status);
    } else if (data.kind === "error") {
      $("connection").textContent = data.message || gettext("error");
    }
  };
  ws.onclose = () => {
    state.ws = null;
    if (!opened) {
      startPolling();
      return;
    }
    if (!state.terminal) {
      $("connection").textContent = gettext("reconnecting…");
      setTimeout(connect, 500);
    }
  };
}

function startPolling() {
  if (state.polling) return;
  state.polling = true;
  $("connection").textContent = gettext("polling");
  poll();
}

async function poll() {
  try {
    const response = await fetch(withShare(cfg.events, { after: state.lastSeq }), {
      headers: { Accept: "application/json" },
    });
    if (response.ok) {
      const body = await response.json();
      body.messages.forEach((m) => {
        if (m.kind !== "progress") ingestEnvelope(m);
      });
      if (body.error) {
        $("run-error").textContent = body.error;
        $("run-error").hidden = false;
      }
      if (body.status !== state.status || body.messages.length) finished(body.status);
      if (body.more) {
        poll();
        return;
      }
      if (body.terminal) {
        state.polling = false;
        return;
      }
    }
  } catch (err) {
    /* retried below */
  }
  setTimeout(poll, 400);
}

function sendCommand(command) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(JSON.stringify(command));
    return Promise.resolve(true);
  }
  const body = new FormData();
  let url = cfg.cancel;
  if (command.command !== "cancel") {
    url = cfg.permit;
    body.set("pod", command.pod);
    body.set("decision", command.command);
  }
  return fetch(withShare(url), { method: "POST", body, headers: { "X-CSRFToken": csrf() } }).then((r) => r.ok);
}

// -- timeline, queue, waiting pods, progress -------------------------------------------------

function renderTimeline() {
  const tbody = $("timeline").querySelector("tbody");
  const q = state.timelineQuery.toLowerCase();
  const all = [...state.cycles.values()];
  const rows = q
    ? all.filter(
        (r) =>
          r.pod.toLowerCase().includes(q) ||
          (r.node || "").toLowerCase().includes(q) ||
          r.result.toLowerCase() === q ||
          (r.binding || "").toLowerCase() === q,
      )
    : all;
  $("timeline-count").textContent = q
    ? interpolate(gettext("%(shown)s of %(count)s cycles"), { shown: rows.length, count: all.length })
    : interpolate(gettext("%(count)s cycles"), { count: all.length });
  const pages = Math.max(1, Math.ceil(rows.length / TIMELINE_PAGE));
  let page = state.timelinePage === null ? pages - 1 : Math.min(state.timelinePage, pages - 1);
  if (state.selected !== null && state.timelinePage === null) {
    const idx = rows.findIndex((r) => r.cycle === state.selected);
    if (idx >= 0) page = Math.floor(idx / TIMELINE_PAGE);
  }
  tbody.innerHTML = "";
  rows.slice(page * TIMELINE_PAGE, (page + 1) * TIMELINE_PAGE).forEach((r) => {
    const tr = el(
      "tr",
      {
        "data-cycle": r.cycle,
        class: `result-${r.result.toLowerCase()}${r.cycle === state.selected ? " selected" : ""}`,
        onclick: () => selectCycle(r.cycle, 0),
      },
      el("td", {}, r.cycle),
      el("td", { title: r.pod }, shortPod(r.pod)),
      resultCell(r),
      el("td", {}, r.node || ""),
      el("td", { class: `binding-${(r.binding || "").toLowerCase()}`, title: r.binding || "" }, bindingWord(r.binding)),
    );
    tbody.appendChild(tr);
    // Victims evicted by this cycle's preemption, between it and the next cycle.
    const evicted = state.evictions.get(r.cycle);
    if (evicted) {
      tbody.appendChild(
        el(
          "tr",
          { class: "eviction", "data-evicted-by": r.cycle },
          el("td", {}, "⤷"),
          el(
            "td",
            { colspan: "4" },
            gettext("evicted: ") +
              listed(
                evicted.map((e) =>
                  e.details && e.details.node
                    ? interpolate(gettext("%(pod)s from %(node)s"), { pod: e.pod, node: e.details.node })
                    : e.pod,
                ),
              ),
          ),
        ),
      );
    }
  });
  pager($("timeline-pager"), page, pages, (p) => {
    state.timelinePage = p;
    renderTimeline();
  });
}

// Mirrors overview.queue_state.
function queueState() {
  const where = new Map();
  const rejected = new Map(); // pod -> plugins of its last failed attempt
  let now = 0;
  state.events.forEach((ev) => {
    now = Math.max(now, ev.time || 0);
    const d = ev.details || {};
    switch (ev.type) {
      case "Enqueue": {
        const q = d.queue || "active";
        const row = { q, event: d.event };
        if (q === "unschedulable") row.plugins = rejected.get(ev.pod) || [];
        else if (q === "gated") row.plugin = d.plugin;
        where.set(ev.pod, row);
        break;
      }
      case "MoveToActive":
        where.set(ev.pod, { q: "active", event: d.event });
        break;
      case "Backoff":
        where.set(ev.pod, { q: "backoff", until: d.until, event: d.event, plugins: rejected.get(ev.pod) || [] });
        break;
      case "Unschedulable":
        rejected.set(ev.pod, d.plugins || []);
        where.set(ev.pod, { q: "unschedulable", plugins: d.plugins || [] });
        break;
      case "Pop":
        where.set(ev.pod, { q: "in_flight", attempts: d.attempts });
        break;
      case "Delete":
        where.delete(ev.pod);
        rejected.delete(ev.pod);
        break;
      case "Bind":
        if (ev.code === "Success") {
          where.delete(ev.pod);
          rejected.delete(ev.pod);
        }
        break;
      default:
        break;
    }
  });
  const out = { active: [], backoff: [], unschedulable: [], gated: [], in_flight: [], now };
  where.forEach((info, pod) => {
    const row = Object.assign({ pod }, info);
    if (info.q === "backoff" && info.until !== undefined && info.until !== null)
      row.remaining = Math.max(0, info.until - now);
    (out[info.q] = out[info.q] || []).push(row);
  });
  return out;
}

function renderQueue() {
  stepper.renderQueue();
}

// Pods waiting at Permit, with their countdowns (static/playground/run_waiting.js).
const waiting = runWaiting({ state, sendCommand });
function renderWaiting() {
  waiting.renderWaiting();
}

function renderProgress() {
  const pods = new Set();
  const bound = new Set();
  state.events.forEach((ev) => {
    if (ev.type === "Enqueue" || ev.type === "CycleStart") pods.add(ev.pod);
    else if (ev.type === "Bind" && ev.code === "Success") bound.add(ev.pod);
    else if (ev.type === "Delete") bound.delete(ev.pod);
  });
  const n = [...bound].filter((p) => pods.has(p)).length;
  const total = Math.max(pods.size, state.progress ? state.progress.total : 0);
  const bar = $("progress");
  bar.max = Math.max(1, total);
  bar.value = n;
  $("progress-text").textContent = interpolate(gettext("%(bound)s of %(pods)s pods bound, %(cycles)s cycles"), {
    bound: n,
    pods: total,
    cycles: state.cycles.size,
  });
}

// -- one cycle -------------------------------------------------------------------------------

async function fetchDetail(cycle) {
  const response = await take(cycleUrl(cycle, state));
  state.tookEarly = tookEarly;
  if (!response.ok) return null;
  return response.json();
}

async function selectCycle(cycle, step) {
  state.selected = cycle;
  state.filterPage = null;
  state.scorePage = 0;
  const detail = await fetchDetail(cycle);
  if (state.selected !== cycle || !detail) return;
  state.detail = detail;
  const last = detail.steps.length - 1;
  const wanted = step === null || step === undefined ? 0 : Math.max(0, step);
  state.step = Math.min(wanted, Math.max(0, last));
  keepWanted(cycle, wanted);
  renderDetail();
  renderTimeline();
  writeHash();
  if (!state.usageLoaded) {
    state.usageLoaded = true;
    loadUsage();
  } // after the first panels
}

const refetchDetail = debounce(async () => {
  if (state.selected === null) return;
  const cycle = state.selected;
  const detail = await fetchDetail(cycle);
  if (state.selected !== cycle || !detail) return;
  const atEnd = state.detail && state.step >= state.detail.steps.length - 1;
  state.detail = detail;
  const wanted = state.wantedStep;
  if (wanted && wanted.cycle === cycle && wanted.step <= detail.steps.length - 1) {
    state.step = wanted.step; // the step a link named has arrived
    state.wantedStep = null;
    renderDetail();
    writeHash();
    return;
  }
  if (atEnd) state.step = detail.steps.length - 1;
  renderDetail();
}, 150);

// A link may name a step of a cycle still growing (its queue steps come after the cycle, while
// the run goes on): the page shows the last step there is, and the named one once it arrives.
function keepWanted(cycle, step) {
  const last = state.detail ? state.detail.steps.length - 1 : -1;
  state.wantedStep = step > last && !state.terminal ? { cycle, step } : null;
}

// A page, a sort, a search or the top N changed: the server cuts the cycle's panels again.
async function reloadDetail() {
  if (state.selected === null) return;
  const cycle = state.selected;
  const detail = await fetchDetail(cycle);
  if (state.selected !== cycle || !detail) return;
  state.detail = detail;
  state.step = Math.min(state.step, Math.max(0, detail.steps.length - 1));
  renderDetail();
}

function renderDetail() {
  const d = state.detail;
  // When the first cycle's panels were drawn (ms since navigation), for the page benchmark.
  if (state.firstPanelsAt === undefined)
    requestAnimationFrame(() => {
      state.firstPanelsAt = performance.now();
    });
  $("cycle-detail").hidden = false;
  $("cycle-title").textContent = interpolate(gettext("Cycle %(cycle)s: %(pod)s"), { cycle: d.cycle, pod: d.pod });
  $("cycle-result").textContent =
    d.result === "Scheduled"
      ? interpolate(gettext("Scheduled on %(node)s."), { node: d.node })
      : d.message || d.note || resultWord(d.result);
  $("cycle-sampling").textContent = d.sampling || "";
  $("cycle-sampling").hidden = !d.sampling;
  renderPreFilter(d);
  renderFilter(d);
  renderPreemption(d);
  renderScores(d);
  renderCombine(d);
  renderBinding(d);
  renderStep();
}

function renderPreFilter(d) {
  const tbody = $("prefilter").querySelector("tbody");
  tbody.innerHTML = "";
  d.prefilter.forEach((p) => {
    const nodes = p.node_names ? interpolate(gettext(" nodes: %(nodes)s"), { nodes: listed(p.node_names) }) : "";
    tbody.appendChild(
      el(
        "tr",
        { "data-plugin": p.merged ? "" : p.plugin, class: p.merged ? "verdict" : "" },
        el("td", {}, p.merged ? gettext("result") + (p.plugin ? ` (${p.plugin})` : "") : p.plugin),
        el("td", { class: `code-${(p.code || "").toLowerCase()}` }, p.code),
        el("td", {}, p.reasons.join("; ") + nodes),
      ),
    );
  });
}

function renderFilter(d) {
  const f = d.filter;
  $("filter-summary").textContent = interpolate(
    gettext("%(feasible)s feasible of %(evaluated)s evaluated (%(total)s in snapshot)"),
    { feasible: f.feasible_count, evaluated: f.evaluated, total: f.total_rows },
  );
  const fit = $("fit-error");
  fit.hidden = !f.message;
  fit.textContent = f.message || "";
  const thead = $("filter-matrix").querySelector("thead");
  thead.innerHTML = "";
  thead.appendChild(
    el(
      "tr",
      {},
      el("th", {}, gettext("Node")),
      f.plugins.map((p) => el("th", { "data-plugin": p }, breakable(p))),
      el("th", {}, gettext("Verdict")),
    ),
  );
  state.filterPage = f.page;
  const tbody = $("filter-matrix").querySelector("tbody");
  tbody.innerHTML = "";
  f.rows.forEach((r) => {
    const cells = r.cells.map((c, j) => {
      const plugin = f.plugins[j];
      if (!c) return el("td", { class: "cell-none", "data-plugin": plugin, title: gettext("not run") }, "·");
      const first = r.rejector === plugin;
      const cls = `cell-${c.code === "Success" ? "pass" : "reject"}${first ? " first-reject" : ""}`;
      return el(
        "td",
        {
          class: `${cls} explain-cell`,
          "data-plugin": plugin,
          "data-mode": "filter",
          tabindex: "0",
          title: interpolate(gettext("%(why)s (Enter or click: explain)"), { why: c.reasons.join("; ") || c.code }),
        },
        c.code === "Success" ? "✓" : `✗ ${c.reasons.join("; ") || c.code}`,
      );
    });
    const verdict =
      r.verdict === null
        ? gettext("not evaluated")
        : r.verdict === "Success"
          ? r.dropped
            ? gettext("passed, not kept: enough found")
            : gettext("feasible")
          : `${r.verdict} (${r.rejector || "?"})`;
    tbody.appendChild(
      el("tr", { "data-node": r.node }, el("th", {}, r.node), cells, el("td", { class: "verdict" }, verdict)),
    );
  });
  if (f.query)
    $("filter-matching").textContent = interpolate(gettext("%(matching)s of %(count)s nodes match"), {
      matching: f.matching,
      count: f.total_rows,
    });
  else $("filter-matching").textContent = "";
  pager($("filter-pager"), f.page, f.pages, (p) => {
    state.filterPage = p;
    reloadDetail();
  });
}

function renderPreemption(d) {
  const p = d.preemption;
  $("preemption-section").hidden = !p;
  const box = $("preemption");
  box.innerHTML = "";
  if (p) {
    // One line per PostFilter plugin that answered (charts.post_filter_parts).
    const parts = p.code === "Success" ? [{ plugin: p.plugin, reasons: p.reasons }] : p.by_plugin;
    box.appendChild(
      el(
        "ul",
        { id: "preemption-outcome" },
        parts.map((part) =>
          el(
            "li",
            { "data-plugin": part.plugin || "" },
            `${part.plugin || "PostFilter"}: ${p.code}${part.reasons.length ? " — " + part.reasons.join("; ") : ""}`,
          ),
        ),
      ),
    );
    if (p.candidates.length) {
      box.appendChild(
        el(
          "table",
          { class: "list compact", id: "candidates" },
          el("thead", {}, el("tr", {}, el("th", {}, gettext("Candidate node")), el("th", {}, gettext("Victims")))),
          el(
            "tbody",
            {},
            p.candidates.map((c) =>
              el(
                "tr",
                { class: c.node === p.chosen ? "chosen" : "", "data-node": c.node },
                el("td", {}, c.node + (c.node === p.chosen ? gettext(" (chosen)") : "")),
                el("td", {}, listed(c.victims) || gettext("none")),
              ),
            ),
          ),
        ),
      );
    }
    box.appendChild(
      el(
        "p",
        { id: "nominated" },
        p.chosen
          ? interpolate(gettext("Nominated: %(pod)s → %(node)s"), { pod: p.nominated_pod, node: p.chosen })
          : gettext("No node nominated."),
      ),
    );
    // Victims' priorities, start times, PDBs and the ordering of the candidates: run_explain.js.
    box.appendChild(el("div", { id: "preemption-explain" }));
  }
  // The cycle's panels are drawn (this is the last one renderDetail draws before the scores):
  // run_explain.js draws its own sections and closes a stale explanation.
  document.dispatchEvent(new CustomEvent("run:panels", { detail: d }));
}

// -- Score and Combine (static/playground/run_scores.js) -------------------------------------

const scores = runScores({ state, pager, reloadDetail });
function renderScores(d) {
  scores.renderScores(d);
}
function renderCombine(d) {
  scores.renderCombine(d);
}

function renderBinding(d) {
  $("binding-state").textContent = d.binding_state ? `(${bindingWord(d.binding_state)})` : "";
  const ol = $("binding");
  ol.innerHTML = "";
  if (!d.binding.length) {
    ol.appendChild(
      el(
        "li",
        { class: "help" },
        d.result === "Scheduled" ? gettext("pending…") : gettext("no binding cycle (not scheduled)"),
      ),
    );
    return;
  }
  d.binding.forEach((b) => {
    const extra =
      b.timeout !== null && b.timeout !== undefined && b.code === "Wait"
        ? interpolate(gettext(" (timeout %(timeout)s)"), { timeout: fmtSeconds(b.timeout) })
        : "";
    ol.appendChild(
      el(
        "li",
        {
          "data-seq": b.seq,
          "data-point": b.point,
          "data-plugin": b.plugin,
          class: `code-${(b.code || "").toLowerCase()}`,
        },
        el("strong", {}, b.point),
        " " +
          interpolate(gettext("%(plugin)s on %(node)s: %(code)s"), { plugin: b.plugin, node: b.node, code: b.code }) +
          extra,
        b.reasons.length ? ` — ${b.reasons.map(reasonText).join("; ")}` : "",
      ),
    );
  });
}

// -- step-through (static/playground/run_stepper.js) ----------------------------------------

// Framed by a lesson, the page gives the cycle's panels the whole width (run.css: .embedded).
if (window.self !== window.top) document.body.classList.add("embedded");
const stepper = runStepper({
  state,
  writeHash,
  selectCycle,
  queueState,
  redraw: () => {
    if (state.detail) renderDetail();
  },
});
function markStep() {
  stepper.markStep();
}
function renderStep() {
  stepper.renderStep();
}

function writeHash() {
  if (state.selected === null) return;
  const hash = `#cycle=${state.selected}&step=${state.step}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
  $("permalink").href = location.pathname + hash;
  tellFramingPage();
}

// A live class frames this page: the presenter steps through the run here and the class
// follows, so the framing page hears each step shown (same origin only; a lesson ignores it).
function tellFramingPage() {
  if (window.parent === window) return;
  const d = state.detail;
  const s = d && d.steps ? d.steps[state.step] : null;
  const message = {
    type: "run:step",
    cycle: state.selected,
    step: state.step,
    point: s ? s.point : null,
    plugin: s ? s.plugin || null : null,
  };
  window.parent.postMessage(message, location.origin);
}

// -- cluster usage ---------------------------------------------------------------------------

async function loadUsage() {
  const response = await fetch(withShare(cfg.usage), { headers: { Accept: "application/json" } });
  if (!response.ok) return;
  const body = await response.json();
  ["cpu", "memory", "pods"].forEach((res) => {
    drawServerFigure(`usage-${res}`, body.figures[res]);
  });
}

// -- wiring ----------------------------------------------------------------------------------

stepper.wire();
// The charts are drawn at their box's width: drawn again when it changes.
window.addEventListener(
  "resize",
  debounce(() => {
    if (state.detail) {
      renderScores(state.detail);
      renderCombine(state.detail);
      markStep();
    }
  }, 200),
);
$("filter-sort").addEventListener("change", () => {
  state.filterSort = $("filter-sort").value;
  state.filterPage = 0;
  reloadDetail();
});
$("filter-search").addEventListener(
  "input",
  debounce(() => {
    state.filterQuery = $("filter-search").value.trim();
    state.filterPage = 0;
    reloadDetail();
  }, 250),
);
$("score-search").addEventListener(
  "input",
  debounce(() => {
    state.scoreQuery = $("score-search").value.trim();
    state.scorePage = 0;
    reloadDetail();
  }, 250),
);
$("timeline-search").addEventListener(
  "input",
  debounce(() => {
    state.timelineQuery = $("timeline-search").value.trim();
    state.timelinePage = state.timelineQuery ? 0 : null;
    renderTimeline();
  }, 200),
);
document.querySelectorAll("[name=score-mode]").forEach((r) =>
  r.addEventListener("change", () => {
    state.mode = r.value;
    // The page holds every mode's values, but a sort by a plugin reads the chosen mode's.
    if (state.scoreSort.key !== "total" && state.scoreSort.key !== "node") reloadDetail();
    else if (state.detail) {
      renderScores(state.detail);
      markStep();
    }
  }),
);
$("top-n").addEventListener("change", () => {
  state.topN = Math.max(1, Math.min(200, Number($("top-n").value) || 20));
  reloadDetail();
});
$("more-nodes").addEventListener("click", () => {
  state.topN = Math.min(200, state.topN + 20);
  $("top-n").value = String(state.topN);
  reloadDetail();
});
$("cancel-run").addEventListener("click", () => sendCommand({ command: "cancel" }));
window.addEventListener("hashchange", () => {
  const h = readHash();
  if (h.cycle !== null && h.cycle !== state.selected) selectCycle(h.cycle, h.step);
  else if (h.step !== null && state.detail && h.step !== state.step) {
    state.step = Math.max(0, Math.min(h.step, state.detail.steps.length - 1));
    keepWanted(state.selected, h.step);
    renderStep();
  }
});

// Show a cycle at once (the permalink's, or the first the page lists), before the catch-up.
// The page's other parts are listening first: the first cycle's answer may be in already
// (run_urls.js asked early), and they must hear its panels drawn ("run:panels"). A module runs
// once the page is parsed: every element is there.
function start() {
  const firstRow = document.querySelector("#timeline tr[data-cycle]");
  const fromHash = readHash();
  if (fromHash.cycle !== null || firstRow)
    selectCycle(fromHash.cycle !== null ? fromHash.cycle : Number(firstRow.dataset.cycle), fromHash.step);

  if (state.terminal) {
    // A finished run replays its stream from the database, a page of envelopes per request.
    state.polling = true;
    poll();
  } else {
    connect();
  }
  // The usage charts wait for the first cycle's panels (selectCycle), or come now if none.
  if (!firstRow && fromHash.cycle === null) {
    state.usageLoaded = true;
    loadUsage();
  }
}
startLayout(state);
startExplain({ state, cfg, withShare });
startEvents();
startDevices();
startGangs(state);
start();
