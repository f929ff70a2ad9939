// The run page's pods waiting at Permit: who waits on which plugin, Allow and Reject, and each
// timeout counting down. run.js calls runWaiting(api) once and delegates to what it
// returns; the list mirrors playground/runs/overview.waiting_pods.
import { gettext, interpolate, listed } from "./i18n.js";
import { $, el } from "./dom.js";
import { fmtSeconds } from "./format.js";

export function runWaiting(api) {
  const { state, sendCommand } = api;

  // Mirrors overview.waiting_pods.
  function waitingPods() {
    const waits = new Map();
    state.events.forEach((ev) => {
      if (ev.type === "Permit" && ev.code === "Wait") {
        const w = waits.get(ev.pod) || { pod: ev.pod, node: ev.node, plugins: new Map(), since: ev.time };
        w.plugins.set(ev.plugin, { timeout: ev.timeout, deadline: ev.timeout === null ? null : ev.time + ev.timeout });
        waits.set(ev.pod, w);
      } else if (ev.type === "Permit" && waits.has(ev.pod)) {
        const w = waits.get(ev.pod);
        w.plugins.delete(ev.plugin);
        if (!w.plugins.size || ev.code !== "Success") waits.delete(ev.pod);
      } else if (["Unreserve", "CycleStart", "Delete"].includes(ev.type)) {
        waits.delete(ev.pod);
      }
    });
    return [...waits.values()];
  }

  // The engine's time now: the latest event's, plus the real time since it was heard.
  function clockNow() {
    if (state.clockTime === undefined) return null;
    return state.clockTime + (performance.now() - state.clockHeardAt) / 1000;
  }

  function countdownText(plugin, deadline, timeout) {
    const now = clockNow();
    if (deadline === null || deadline === undefined || now === null) return `${plugin}: ${fmtSeconds(timeout)}`;
    const left = Math.max(0, Math.ceil(deadline - now));
    return left > 0
      ? interpolate(gettext("%(plugin)s: %(left)s s left of %(timeout)s"), {
          plugin,
          left,
          timeout: fmtSeconds(timeout),
        })
      : interpolate(gettext("%(plugin)s: timing out…"), { plugin });
  }

  // Each second, the Permit countdowns tick down.
  setInterval(() => {
    document.querySelectorAll("#waiting .countdown").forEach((span) => {
      const deadline = span.dataset.deadline === "" ? null : Number(span.dataset.deadline);
      span.textContent = countdownText(span.dataset.plugin, deadline, Number(span.dataset.timeout));
    });
  }, 1000);

  function renderWaiting() {
    const waits = state.terminal ? [] : waitingPods();
    $("waiting-section").hidden = !waits.length;
    const tbody = $("waiting").querySelector("tbody");
    tbody.innerHTML = "";
    waits.forEach((w) => {
      const plugins = [...w.plugins.entries()];
      const timeout = plugins.map(([p, v]) =>
        el(
          "span",
          {
            class: "countdown",
            "data-plugin": p,
            "data-deadline": v.deadline === null ? "" : String(v.deadline),
            "data-timeout": v.timeout,
          },
          countdownText(p, v.deadline, v.timeout),
        ),
      );
      const decide = (command) => (event) => {
        event.target.disabled = true;
        sendCommand({ command, pod: w.pod });
      };
      tbody.appendChild(
        el(
          "tr",
          { "data-pod": w.pod },
          el("td", {}, w.pod),
          el("td", {}, w.node),
          el("td", {}, listed(plugins.map(([p]) => p))),
          el(
            "td",
            {},
            timeout.flatMap((span, i) => (i ? [", ", span] : [span])),
          ),
          el(
            "td",
            {},
            el("button", { type: "button", class: "allow", onclick: decide("allow") }, gettext("Allow")),
            " ",
            el("button", { type: "button", class: "reject danger", onclick: decide("reject") }, gettext("Reject")),
          ),
        ),
      );
    });
  }

  return { renderWaiting };
}
