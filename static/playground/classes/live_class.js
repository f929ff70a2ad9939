// A live class's websocket and the pieces both of its pages draw (presenter and student).
//
// The socket reconnects by itself (the server sends the whole state on every connect, so a
// reconnect catches up); it stops for good when the class ends (4404) or refuses us (4403).
import { gettext, interpolate } from "../i18n.js";
import { plotText } from "../plot_text.js";

export function config() {
  return JSON.parse(document.getElementById("class-config").textContent);
}

export function connect(cfg, handlers) {
  const status = document.getElementById("conn-status");
  let ws = null;
  let retry = 0;
  let over = false;
  function say(text, state) {
    if (!status) return;
    status.textContent = text;
    status.dataset.state = state;
  }
  function open() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(`${proto}//${location.host}${cfg.ws}`);
    ws.onopen = () => {
      retry = 0;
      say(gettext("Live"), "open");
    };
    ws.onmessage = (ev) => {
      const message = JSON.parse(ev.data);
      if (message.type === "ended") over = true;
      handlers.message(message);
    };
    ws.onclose = (ev) => {
      if (over || ev.code === 4404 || ev.code === 4403) {
        over = true;
        say(ev.code === 4403 ? gettext("Not admitted") : gettext("Ended"), "closed");
        if (handlers.closed) handlers.closed(ev.code);
        return;
      }
      say(gettext("Reconnecting…"), "retry");
      setTimeout(open, Math.min(5000, 250 * 2 ** retry++));
    };
  }
  open();
  return {
    send(obj) {
      if (ws && ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify(obj));
        return true;
      }
      return false;
    },
  };
}

// "cycle 1, Filter · NodeResourcesFit" (the engine's Combine step is upstream's select host).
export function stepLabel(step) {
  if (!step || step.cycle === null || step.cycle === undefined) return "";
  let text = interpolate(gettext("cycle %(cycle)s"), { cycle: step.cycle });
  if (step.point) text += `, ${step.point === "Combine" ? gettext("select host") : step.point}`;
  if (step.plugin) text += ` · ${step.plugin}`;
  if (step.node) text += ` · ${step.node}`;
  return text;
}

// The page that shows a step: the run page at #cycle=K&step=N, or the lesson page's step.
export function stepUrl(cfg, step, lessonStep) {
  if (cfg.runUrl && step && step.cycle !== null && step.cycle !== undefined) {
    return `${cfg.runUrl}#cycle=${step.cycle}&step=${step.runStep || 0}`;
  }
  if (cfg.lessonUrl) return `${cfg.lessonUrl}?step=${lessonStep || 1}`;
  return "";
}

// Show the run at `step` in the class's run frame: a new hash moves the framed run page (it
// listens for hashchange) without loading it again. Returns whether the frame moved.
export function frameStep(frame, cfg, step) {
  const url = stepUrl(cfg, step, null);
  if (!frame || !cfg.runUrl || !url.startsWith(cfg.runUrl)) return false;
  if (frame.dataset.url === url) return false;
  frame.dataset.url = url;
  if (frame.contentWindow && frame.dataset.loaded === "1") frame.contentWindow.location.hash = url.split("#")[1];
  else frame.src = url;
  frame.addEventListener("load", () => (frame.dataset.loaded = "1"), { once: true });
  return true;
}

// The step a framed run page reports (run.js posts it from inside the frame): the class's step
// shape, or null when the message is not the frame's.
export function framedRunStep(ev, frame) {
  if (!frame || ev.origin !== location.origin || ev.source !== frame.contentWindow) return null;
  const d = ev.data || {};
  if (d.type !== "run:step" || typeof d.cycle !== "number" || typeof d.step !== "number") return null;
  return { cycle: d.cycle, point: d.point || null, plugin: d.plugin || null, runStep: d.step };
}

export function setCount(id, n) {
  const node = document.getElementById(id);
  if (!node) return;
  node.dataset.n = String(n);
  node.querySelector("strong").textContent = String(n);
}

export function showError(text) {
  const node = document.getElementById("class-error");
  if (!node) return;
  node.textContent = text || "";
  node.hidden = !text;
}

// An answer as compared (the server's lessons.checks.normalize, for names).
export const same = (text) =>
  text
    .split(",")
    .map((s) =>
      s
        .trim()
        .toLowerCase()
        .replace(/^default\//, ""),
    )
    .sort()
    .join(",");

// How a choice value reads in the class's language (the value is what is sent and tallied).
export const choiceLabel = (question, value) => (question && question.labels && question.labels[value]) || value;

// The revealed answer: the right answer, the engine's explanation, the run step it is about.
export function drawReveal(box, reveal, mine) {
  box.replaceChildren();
  const answer = document.createElement("p");
  answer.className = "answer";
  answer.id = "reveal-answer";
  answer.textContent = interpolate(gettext("Answer: %(answer)s"), { answer: reveal.answerLabel || reveal.answer });
  box.append(answer);
  if (mine !== undefined) {
    const verdict = document.createElement("p");
    verdict.id = "my-verdict";
    const right = mine !== null && same(mine) === same(String(reveal.answer));
    verdict.className = right ? "right" : "wrong";
    verdict.textContent =
      mine === null ? gettext("You did not answer.") : right ? gettext("You were right.") : gettext("Not this time.");
    box.append(verdict);
  }
  if (reveal.explanation) {
    const why = document.createElement("p");
    why.className = "explanation";
    why.id = "reveal-explanation";
    why.textContent = reveal.explanation;
    box.append(why);
  }
  if (reveal.show && reveal.show.url) {
    const link = document.createElement("a");
    link.id = "reveal-link";
    link.href = reveal.show.url;
    link.target = "_blank";
    link.rel = "noopener";
    const where = stepLabel(reveal.show);
    link.textContent = where
      ? interpolate(gettext("See it in the run: %(step)s"), { step: where })
      : gettext("See it in the run");
    box.append(link);
  }
  box.hidden = false;
}

// The presenter's tally of the open question: one bar per choice (the choices in their order,
// then any other answer given, free text included), the revealed answer's bar green. Every
// answer is a student's text: plain text in the chart.
export function tallyFigure(question, tally, revealed) {
  const keys = question.choices.length ? [...question.choices] : Object.keys(tally).sort();
  for (const k of Object.keys(tally)) if (!keys.includes(k)) keys.push(k);
  const counts = keys.map((k) => tally[k] || 0);
  const answer = revealed ? String(revealed.answer).toLowerCase() : null;
  const colors = keys.map((k) => (answer !== null && k.toLowerCase() === answer ? "#2e7d32" : "#326ce5"));
  return {
    keys,
    counts,
    data: [
      {
        type: "bar",
        x: keys.map((k) => plotText(choiceLabel(question, k))),
        y: counts,
        marker: { color: colors },
        text: counts.map(String),
        textposition: "auto",
        hovertemplate: "%{x}: %{y}<extra></extra>",
      },
    ],
    layout: {
      margin: { l: 40, r: 10, t: 10, b: 60 },
      height: 260,
      yaxis: { rangemode: "tozero", tickformat: "d", dtick: Math.max(1, Math.ceil(Math.max(...counts, 1) / 5)) },
      xaxis: { type: "category" },
    },
  };
}
