// The run page's step-through: moving through one cycle's steps (buttons and keys), the
// framework diagram lighting the current extension point, the current step kept in view,
// presenter mode, the keyboard help, and the scheduling queue as it was at the step.
// run.js calls runStepper(api) once and delegates to what it returns. Nothing here
// decides anything: the steps come from charts.steps, the queue from runs/queue_view.py; the
// arithmetic on them is steps.js's.
import { gettext, ngettext, interpolate, listed } from "./i18n.js";
import { $, el } from "./dom.js";
import { fmtSeconds } from "./format.js";
import { reveal } from "./run_reveal.js";
import { BINDING, diagramPoint, moveIndex, queueAtStep } from "./steps.js";

const PRESENTER_KEY = "playground.runPresenter";
const QUEUES = ["active", "backoff", "unschedulable"];

export function runStepper(api) {
  const { state } = api;
  let lastMarked = null; // "cycle:step" last scrolled to, so a redraw does not scroll again

  // -- steps and their grouping ---------------------------------------------------------------

  // The section of the page that shows a step's extension point: PreScore and NormalizeScore
  // have their own sections when the cycle fills them, else the Score section shows them.
  function pointGroup(point) {
    if (BINDING.has(point)) return "Binding";
    if (point === "PreScore" || point === "NormalizeScore") {
      const own = document.querySelector(`#cycle-detail section.point[data-point="${point}"]`);
      return own && !own.hidden ? point : "Score";
    }
    return point;
  }

  function current() {
    const d = state.detail;
    return d && d.steps.length ? d.steps[state.step] : null;
  }

  function markStep() {
    const d = state.detail;
    const s = current();
    if (!s) return;
    const order = d.steps.map((x) => pointGroup(x.point));
    const group = pointGroup(s.point);
    const seen = new Set(order.slice(0, state.step + 1));
    document.querySelectorAll("#cycle-detail section.point").forEach((sec) => {
      const p = sec.dataset.point;
      sec.classList.toggle("current", p === group);
      sec.classList.toggle("future", !seen.has(p) && order.includes(p));
    });
    document.querySelectorAll("#cycle-detail .current-plugin").forEach((n) => n.classList.remove("current-plugin"));
    if (s.plugin) {
      const sel = `section[data-point="${group}"] [data-plugin="${CSS.escape(s.plugin)}"]`;
      document.querySelectorAll(sel).forEach((n) => n.classList.add("current-plugin"));
    }
    document
      .querySelectorAll("#binding li")
      .forEach((li) => li.classList.toggle("current-plugin", Number(li.dataset.seq) === s.seq));
    markTargets(s, group);
    // The cycle's start and end have no section: presenter mode shows the queue instead.
    document.body.classList.toggle("step-queue", s.point === "CycleStart" || s.point === "CycleEnd");
    markDiagram();
    const key = `${d.cycle}:${state.step}`;
    if (key !== lastMarked) {
      lastMarked = key;
      scrollToCurrent();
    }
  }

  // The element a step is about (`.current-cell`) and the one that decides it
  // (`.current-decider`): at Filter, the plugin's cell in the row it rejects (else the chosen
  // node's, else the first); at Score and NormalizeScore, the plugin's score for the chosen
  // node with that node's Total; at select host, the winner; elsewhere the plugin's row.
  function stepTargets(s, group) {
    const sec = document.querySelector(`#cycle-detail section.point[data-point="${group}"]:not([hidden])`);
    if (!sec) return { cell: null, decider: null };
    const d = state.detail;
    const plugin = s.plugin ? CSS.escape(s.plugin) : "";
    const pickRow = (rows, test) => rows.find(test) || rows.find((r) => r.dataset.node === d.node) || rows[0];
    if (group === "Filter") {
      const rows = [...sec.querySelectorAll("#filter-matrix tbody tr")];
      if (!rows.length) return { cell: null, decider: null };
      if (!plugin) {
        const row = pickRow(rows, (r) => r.querySelector("td.first-reject"));
        return { cell: row.querySelector("td.verdict"), decider: null };
      }
      const row = pickRow(rows, (r) => r.querySelector(`td.first-reject[data-plugin="${plugin}"]`));
      return { cell: row.querySelector(`td[data-plugin="${plugin}"]`), decider: row.querySelector("td.verdict") };
    }
    if (group === "Score") {
      const rows = [...sec.querySelectorAll("#score-table tbody tr")];
      if (!rows.length || !plugin) return { cell: sec.querySelector("h3"), decider: null };
      const row = pickRow(rows, () => false);
      const mode = s.point === "Score" ? "raw" : s.point === "NormalizeScore" ? "normalized" : null;
      const cell =
        (mode && row.querySelector(`td[data-plugin="${plugin}"][data-mode="${mode}"]`)) ||
        row.querySelector(`td[data-plugin="${plugin}"]`) ||
        sec.querySelector(`#score-table thead th.plugin-group[data-plugin="${plugin}"]`);
      return { cell, decider: row.querySelector("td.total") };
    }
    if (group === "Combine") {
      const winner = $("winner");
      return { cell: winner.textContent ? winner : $("combine"), decider: null };
    }
    if (group === "Binding")
      return {
        cell: sec.querySelector("#binding li.current-plugin") || sec.querySelector("#binding li"),
        decider: null,
      };
    const rows = [...sec.querySelectorAll("tbody tr[data-plugin], li[data-plugin]")];
    const row = rows.find((r) => plugin && r.dataset.plugin === s.plugin) || sec.querySelector("tr.verdict") || rows[0];
    return { cell: row || sec.querySelector("h3"), decider: null };
  }

  function markTargets(s, group) {
    document.querySelectorAll("#cycle-detail .current-cell, #cycle-detail .current-decider").forEach((n) => {
      n.classList.remove("current-cell", "current-decider");
    });
    const { cell, decider } = stepTargets(s, group);
    if (cell) cell.classList.add("current-cell");
    if (decider && decider !== cell) decider.classList.add("current-decider");
  }

  // The height the bar takes once pinned (measured when it was last pinned).
  let pinnedHeight = 80;
  function topInset() {
    const bar = $("stepper");
    if (bar.classList.contains("stuck")) pinnedHeight = bar.offsetHeight;
    const r = bar.getBoundingClientRect();
    // Not pinned but at the top of the screen: its whole height is in the way.
    if (!bar.classList.contains("stuck") && r.top <= 1 && r.bottom > 0) return Math.max(pinnedHeight, r.bottom);
    return pinnedHeight;
  }

  // The current section in view below the pinned bar, whole when it fits; then the step's
  // cell and the row or total that decides, scrolled to sideways inside their table too, clear
  // of the sticky columns. The bar's height changes as it pins, so a second pass follows.
  function scrollToCurrent() {
    const queueShown = document.body.classList.contains("presenter") && document.body.classList.contains("step-queue");
    const sec =
      document.querySelector("#cycle-detail section.point.current:not([hidden])") ||
      (queueShown ? $("queue-when").parentElement : null);
    if (!sec) return;
    const pass = () => {
      const inset = topInset();
      document.documentElement.style.scrollPaddingTop = `${inset + 8}px`;
      const room = window.innerHeight - inset;
      const cell = sec.querySelector(".current-cell");
      if (sec.tagName === "H2" || !cell) {
        reveal([sec.querySelector("h3") || sec], inset);
        return;
      }
      if (sec.getBoundingClientRect().height <= room) reveal([sec], inset);
      else reveal([sec.querySelector("h3")], inset);
      reveal([cell, sec.querySelector(".current-decider")], inset);
    };
    pass();
    requestAnimationFrame(() => requestAnimationFrame(pass));
  }

  function renderStep() {
    const d = state.detail;
    const s = current();
    if (!s) return;
    $("step-position").textContent = interpolate(gettext("step %(step)s / %(steps)s"), {
      step: state.step + 1,
      steps: d.steps.length,
    });
    $("step-position").dataset.step = String(state.step);
    // The engine's Combine step is upstream's weighted sum of scores and select host.
    $("step-label").textContent = s.point === "Combine" ? gettext("Select host") : s.label;
    $("step-label").dataset.point = s.point;
    $("step-label").dataset.plugin = s.plugin;
    $("step-why").textContent = s.why;
    $("step-help").textContent = s.help;
    $("step-plugin-help").textContent = s.plugin_help ? `${s.plugin}: ${s.plugin_help}` : "";
    markStep();
    renderQueue();
    api.writeHash();
  }

  function go(i) {
    const d = state.detail;
    if (!d || !d.steps.length) return;
    state.step = Math.max(0, Math.min(d.steps.length - 1, i));
    renderStep();
  }

  function move(delta, byPoint) {
    const d = state.detail;
    if (!d || !d.steps.length) return;
    go(moveIndex(d.steps, state.step, delta, byPoint));
  }

  function moveCycle(delta) {
    const keys = [...state.cycles.keys()];
    const next = keys[keys.indexOf(state.selected) + delta];
    if (next !== undefined) api.selectCycle(next, 0);
  }

  // -- the framework diagram ------------------------------------------------------------------

  function markDiagram() {
    const d = state.detail;
    const s = current();
    const points = new Set(d ? d.steps.map((x, i) => diagramPoint(d.steps, i)) : []);
    const here = s ? diagramPoint(d.steps, state.step) : null;
    document.querySelectorAll("#framework [data-dpoint]").forEach((box) => {
      const p = box.dataset.dpoint;
      const none = p !== "Queue" && !points.has(p);
      box.disabled = none;
      box.classList.toggle("fw-none", none);
      box.classList.toggle("fw-current", p === here);
      box.setAttribute("aria-current", p === here ? "step" : "false");
    });
    litInView();
    const group = here === null && s && s.point === "CycleEnd" ? "scheduling" : null;
    document.querySelectorAll("#framework [data-fwgroup]").forEach((g) => {
      const inGroup = g.querySelector(".fw-current") !== null;
      g.classList.toggle("fw-active", inGroup || g.dataset.fwgroup === group);
    });
  }

  // The pinned bar's diagram is one line that may scroll sideways: its current box in view.
  // Called after each step and when the bar pins: a step chosen while the bar is whole (a link,
  // the cycle list) is drawn before the page scrolls to its section and pins the bar, so its
  // box was in view in the whole diagram, not in the line (the binding cycle's boxes were cut).
  function litInView() {
    const lit = document.querySelector("#framework .fw-current");
    const nav = $("framework");
    if (lit && nav.scrollWidth > nav.clientWidth) {
      const a = lit.getBoundingClientRect();
      const b = nav.getBoundingClientRect();
      if (a.left < b.left || a.right > b.right) nav.scrollLeft += a.left - b.left - (b.width - a.width) / 2;
    }
  }

  function jumpToPoint(point) {
    const d = state.detail;
    if (point === "Queue") {
      $("queue").scrollIntoView({ block: "nearest", behavior: "smooth" });
      return;
    }
    if (!d) return;
    const i = d.steps.findIndex((x, j) => diagramPoint(d.steps, j) === point);
    if (i >= 0) go(i);
  }

  // -- presenter mode and the keyboard help ---------------------------------------------------

  // Presenter mode belongs to this run page: remembered for it alone (a reload keeps it), not
  // carried to other runs, other pages or a lesson's framed run.
  const presenterKey = `${PRESENTER_KEY}:${location.pathname}`;
  function setPresenter(on) {
    document.body.classList.toggle("presenter", on);
    $("presenter-toggle").setAttribute("aria-pressed", on ? "true" : "false");
    try {
      sessionStorage.setItem(presenterKey, on ? "1" : "0");
    } catch (err) {
      /* private mode */
    }
    lastMarked = null;
    // The charts and the score table are drawn for the mode's type size and the new width.
    if (state.detail && api.redraw) api.redraw();
    else if (state.detail) markStep();
    window.dispatchEvent(new Event("resize"));
  }
  function togglePresenter() {
    setPresenter(!document.body.classList.contains("presenter"));
  }

  function toggleHelp() {
    const dialog = $("key-help");
    if (dialog.open) dialog.close();
    else dialog.showModal();
  }

  // Every key the page answers to: the handler and the help dialog both read this table.
  const KEYS = [
    {
      keys: ["ArrowRight", "j"],
      label: ["→", "j"],
      text: gettext("next step (the next plugin)"),
      run: () => move(1, false),
    },
    {
      keys: ["ArrowLeft", "k"],
      label: ["←", "k"],
      text: gettext("previous step (the previous plugin)"),
      run: () => move(-1, false),
    },
    {
      keys: ["Shift+ArrowRight", "J"],
      label: ["Shift+→", "J"],
      text: gettext("next extension point"),
      run: () => move(1, true),
    },
    {
      keys: ["Shift+ArrowLeft", "K"],
      label: ["Shift+←", "K"],
      text: gettext("previous extension point (its first plugin)"),
      run: () => move(-1, true),
    },
    { keys: ["Home"], label: ["Home"], text: gettext("first step of the cycle"), run: () => go(0) },
    { keys: ["End"], label: ["End"], text: gettext("last step of the cycle"), run: () => go(Infinity) },
    { keys: ["n"], label: ["n"], text: gettext("next cycle"), run: () => moveCycle(1) },
    { keys: ["p"], label: ["p"], text: gettext("previous cycle"), run: () => moveCycle(-1) },
    {
      keys: ["x"],
      label: ["x"],
      text: gettext("the explanation on or off while the bar is pinned at the top"),
      run: toggleExplained,
    },
    {
      keys: ["f"],
      label: ["f"],
      text: gettext("presenter mode on or off (large type, one section per screen)"),
      run: togglePresenter,
    },
    { keys: ["?"], label: ["?"], text: gettext("this help"), run: toggleHelp },
  ];

  function keyName(event) {
    const base = event.key;
    return event.shiftKey && base.startsWith("Arrow") ? `Shift+${base}` : base;
  }

  // Typing goes to the field; a radio, checkbox or button never keeps the stepping keys.
  function typing(target) {
    if (!target || !target.tagName) return false;
    if (target.isContentEditable) return true;
    const tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select") return true;
    return tag === "input" && !["radio", "checkbox", "button", "submit", "reset"].includes(target.type);
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if ($("key-help").open && event.key !== "?") return; // the dialog handles Escape itself
    const name = keyName(event);
    const entry = KEYS.find((k) => k.keys.includes(name));
    if (!entry) {
      if (event.key === "Escape" && document.body.classList.contains("presenter")) setPresenter(false);
      return;
    }
    event.preventDefault(); // a focused radio would otherwise take the arrow for itself
    entry.run();
  }

  function renderHelp() {
    const tbody = $("key-help-table").querySelector("tbody");
    tbody.innerHTML = "";
    KEYS.forEach((k) =>
      tbody.appendChild(
        el(
          "tr",
          { "data-keys": k.keys.join(" ") },
          el(
            "th",
            {},
            k.label.flatMap((name, i) => [i ? gettext(" or ") : "", el("kbd", {}, name)]),
          ),
          el("td", {}, k.text),
        ),
      ),
    );
  }

  // -- the queue at this step ----------------------------------------------------------------

  // The stream's latest queue (run.js's queueState), in the same shape.
  function queueNow() {
    const q = api.queueState();
    const by = {
      active: q.active,
      backoff: q.backoff,
      unschedulable: q.unschedulable,
      gated: q.gated,
      in_flight: q.in_flight,
    };
    const counts = {};
    Object.keys(by).forEach((k) => {
      counts[k] = by[k].length;
    });
    return { by, counts, moves: [], moved: new Set(), now: q.now, order: "", more: 0 };
  }

  function podItem(name, row, now, moved) {
    const gated = row.queue === "gated" || row.q === "gated";
    const plugins = gated ? (row.plugin ? [row.plugin] : []) : row.plugins || [];
    const bits = [];
    if (plugins.length)
      bits.push(gated ? interpolate(gettext("gated by %(plugins)s"), { plugins: listed(plugins) }) : listed(plugins));
    if (row.priority !== undefined)
      bits.push(interpolate(gettext("priority %(priority)s"), { priority: row.priority }));
    if (row.attempts)
      bits.push(
        interpolate(ngettext("%(count)s attempt", "%(count)s attempts", row.attempts), { count: row.attempts }),
      );
    let remaining = row.remaining;
    if (name === "backoff" && row.until !== undefined && row.until !== null) {
      remaining = Math.max(0, row.until - now);
      bits.push(
        interpolate(gettext("backoff ends t=%(until)s s (%(left)s left)"), {
          until: Math.round(row.until * 10) / 10,
          left: fmtSeconds(remaining),
        }),
      );
    } else if (name === "backoff") {
      bits.push(interpolate(gettext("%(left)s left"), { left: fmtSeconds(remaining) }));
    }
    return el(
      "li",
      {
        "data-pod": row.pod,
        "data-plugins": plugins.join(" "),
        "data-remaining": remaining,
        "data-priority": row.priority,
        "data-attempts": row.attempts,
        class: moved.has(row.pod) ? "queue-moved" : null,
      },
      row.pod,
      el("small", {}, bits.length ? ` · ${bits.join(" · ")}` : ""),
    );
  }

  function renderQueue() {
    const live = $("queue-live").checked || !(state.detail && state.detail.queue);
    const q = live ? queueNow() : queueAtStep(state.detail, state.step);
    $("queue-when").textContent = live
      ? gettext("latest, from the stream")
      : interpolate(gettext("at cycle %(cycle)s, step %(step)s (t=%(time)s s)"), {
          cycle: state.detail.cycle,
          step: state.step + 1,
          time: Math.round(q.now * 10) / 10,
        });
    QUEUES.forEach((name) => {
      const ul = document.querySelector(`#queue [data-queue="${name}"]`);
      const items = name === "unschedulable" ? q.by.unschedulable.concat(q.by.gated) : q.by[name];
      const count = name === "unschedulable" ? q.counts.unschedulable + q.counts.gated : q.counts[name];
      document.querySelector(`#queue [data-q="${name}"]`).textContent = `(${count})`;
      ul.innerHTML = "";
      items.slice(0, 200).forEach((row) => ul.appendChild(podItem(name, row, q.now, q.moved)));
      if (count > items.length || items.length > 200)
        ul.appendChild(
          el(
            "li",
            { class: "help" },
            interpolate(gettext("… %(more)s more"), { more: count - Math.min(items.length, 200) }),
          ),
        );
    });
    const flying = q.by.in_flight || [];
    $("queue-flight").textContent = flying.length
      ? interpolate(gettext("In flight (popped: being scheduled, or waiting to bind): %(pods)s"), {
          pods: listed(
            flying.map(
              (r) =>
                r.pod + (r.attempts ? interpolate(gettext(" (attempt %(attempt)s)"), { attempt: r.attempts }) : ""),
            ),
          ),
        })
      : "";
    $("queue-order").textContent = q.order;
    const ol = $("queue-moves");
    ol.innerHTML = "";
    q.moves.forEach((m) =>
      ol.appendChild(
        el(
          "li",
          {
            "data-seq": m.seq,
            "data-pod": m.pod,
            "data-type": m.type,
            "data-from": m.from || "",
            "data-to": m.to || "",
            class: `${m.done ? "move-done" : "move-later"}${m.fresh ? " move-now" : ""}`,
          },
          m.text,
        ),
      ),
    );
    if (q.more)
      ol.appendChild(el("li", { class: "help" }, interpolate(gettext("… %(more)s more moves"), { more: q.more })));
    $("queue-moves-title").hidden = !q.moves.length;
  }

  // -- the bar pinned at the top ----------------------------------------------------------------

  // Scrolled down to the sections, the bar is pinned and slim (the diagram without its titles,
  // the step's sentence on two lines): the section in view gets the screen. The explanation
  // opens on demand ("explain", or x) and stays open for the following steps.
  // Near the page's end, pinning the slim bar would shorten the page under a scroll position
  // it no longer allows: the browser would scroll back, unpin the bar, and so on. There the
  // page keeps the bar's whole height in its flow (a margin takes up the difference); elsewhere
  // no blank space is left under the bar.
  let wholeHeight = 0;
  function roomBelow() {
    return document.documentElement.scrollHeight - window.innerHeight - window.scrollY;
  }
  function keepFlow(below) {
    const bar = $("stepper");
    const room = below === undefined ? roomBelow() : below;
    bar.style.marginBottom = "";
    if (!bar.classList.contains("stuck")) {
      wholeHeight = bar.offsetHeight;
      return;
    }
    const spare = wholeHeight - bar.offsetHeight;
    if (spare > 0 && room < spare + 8) bar.style.marginBottom = `calc(.6rem + ${spare}px)`;
  }

  function wirePinned() {
    const bar = $("stepper");
    const sentinel = $("stepper-sentinel");
    if (sentinel && "IntersectionObserver" in window) {
      // The sentinel sits right above the bar: once it is out of view the bar is pinned (a
      // pixel's margin, so a page scrolled exactly to the bar counts as pinned).
      const observer = new IntersectionObserver(
        (entries) => {
          const entry = entries[entries.length - 1];
          // A hidden sentinel (the cycle's detail not shown yet) has an empty box at the top:
          // that is not a page scrolled past the bar.
          const shown = sentinel.offsetParent !== null;
          const stuck = shown && !entry.isIntersecting && entry.boundingClientRect.top < 1;
          if (stuck === bar.classList.contains("stuck")) return;
          if (stuck) wholeHeight = bar.offsetHeight;
          const below = roomBelow(); // measured with the bar at its whole height
          bar.classList.toggle("stuck", stuck);
          keepFlow(below);
          requestAnimationFrame(litInView);
        },
        { rootMargin: "-1px 0px 0px 0px" },
      );
      observer.observe(sentinel);
      // An observer calls back on a change of intersection only: a detail shown with the page
      // already scrolled past the bar changes none. Shown or hidden, the sentinel is observed
      // afresh, and its first observation says where it is.
      const detail = $("cycle-detail");
      if (detail && "MutationObserver" in window) {
        new MutationObserver(() => {
          observer.unobserve(sentinel);
          observer.observe(sentinel);
        }).observe(detail, { attributes: true, attributeFilter: ["hidden"] });
      }
    }
    $("step-explain").addEventListener("click", toggleExplained);
  }

  function toggleExplained() {
    const open = $("stepper").classList.toggle("explained");
    $("step-explain").setAttribute("aria-expanded", open ? "true" : "false");
    $("step-explain").textContent = open ? gettext("explain ▴") : gettext("explain ▾");
    // The bar grows or shrinks: the step's cell stays clear of it.
    keepFlow();
    lastMarked = null;
    if (state.detail) markStep();
  }

  // -- wiring -----------------------------------------------------------------------------------

  function wire() {
    $("step-next").addEventListener("click", () => move(1, false));
    $("step-prev").addEventListener("click", () => move(-1, false));
    $("step-next-point").addEventListener("click", () => move(1, true));
    $("step-prev-point").addEventListener("click", () => move(-1, true));
    $("step-first").addEventListener("click", () => go(0));
    $("step-last").addEventListener("click", () => go(Infinity));
    $("presenter-toggle").addEventListener("click", togglePresenter);
    $("key-help-open").addEventListener("click", toggleHelp);
    $("key-help-close").addEventListener("click", () => $("key-help").close());
    $("queue-live").addEventListener("change", renderQueue);
    document
      .querySelectorAll("#framework [data-dpoint]")
      .forEach((box) => box.addEventListener("click", () => jumpToPoint(box.dataset.dpoint)));
    document.addEventListener("keydown", onKey, true);
    // A select keeps the arrow keys once chosen from: hand them back to the page.
    document.addEventListener("change", (event) => {
      if (event.target && event.target.tagName === "SELECT") event.target.blur();
    });
    wirePinned();
    renderHelp();
    let saved = null;
    try {
      saved = sessionStorage.getItem(presenterKey);
    } catch (err) {
      /* private mode */
    }
    if (saved === "1" && !document.body.classList.contains("embedded")) setPresenter(true);
  }

  return { pointGroup, markStep, renderStep, move, moveCycle, go, renderQueue, wire, keys: KEYS };
}
