// The presenter page: drive the step, ask, watch the answers come in, reveal.
import { gettext, interpolate } from "../i18n.js";
import * as L from "./live_class.js";
import * as students from "./students.js";
import { draw } from "../plot_text.js";
const cfg = L.config();
const root = document.getElementById("live-class");
const $ = (id) => document.getElementById(id);
const state = { step: {}, stepSeq: 0, question: null, tally: {}, revealed: null, ended: false };
const cycleSteps = {}; // cycle -> [{index, point, plugin, label}]
const cycleAsks = {}; // cycle -> the one-click questions it answers ("winner", "rejector", "victims")
let stateSeen = false; // the class's state has come: its step is known

const socket = L.connect(cfg, { message: onMessage, closed: () => setEnded() });

function send(obj) {
  L.showError("");
  if (!socket.send(obj)) L.showError(gettext("Not connected; trying again…"));
}

students.setup(send);

function onMessage(m) {
  students.onMessage(m);
  if (m.type === "state") {
    Object.assign(state, {
      step: m.step,
      stepSeq: m.stepSeq,
      question: m.question,
      tally: m.tally || {},
      revealed: m.revealed,
      ended: m.ended,
    });
    L.setCount("joined-count", m.joined);
    L.setCount("answered-count", m.answered);
    stateSeen = true;
    drawStep();
    drawQuestion();
  } else if (m.type === "step") {
    state.step = m.step;
    state.stepSeq = m.stepSeq;
    drawStep();
  } else if (m.type === "question") {
    Object.assign(state, { question: m.question, tally: {}, revealed: null });
    L.setCount("answered-count", 0);
    drawQuestion();
  } else if (m.type === "tally") {
    if (state.question && m.questionId === state.question.id) {
      state.tally = m.counts;
      L.setCount("answered-count", m.answered);
      drawChart();
    }
    L.setCount("joined-count", m.joined);
  } else if (m.type === "joined") {
    L.setCount("joined-count", m.joined);
  } else if (m.type === "reveal") {
    state.revealed = m;
    state.tally = m.counts;
    drawQuestion();
  } else if (m.type === "ended") {
    setEnded();
  } else if (m.type === "error") {
    L.showError(m.message);
  }
}

function setEnded() {
  state.ended = true;
  root.classList.add("ended");
  root.querySelectorAll("button").forEach((b) => (b.disabled = true));
}

// -- the step ------------------------------------------------------------------------------

function drawStep() {
  root.dataset.stepSeq = String(state.stepSeq);
  const s = state.step || {};
  const label = L.stepLabel(s);
  $("run-step").textContent = label ? interpolate(gettext("Run step: %(step)s"), { step: label }) : "";
  if (cfg.steps.length) {
    const n = s.lessonStep || 1;
    const step = cfg.steps[n - 1];
    $("step-heading").textContent = interpolate(gettext("Step %(n)s of %(total)s"), { n, total: cfg.steps.length });
    $("step-text").innerHTML = `<h3>${step.title}</h3>${step.html}`; // the lesson files are trusted
    $("step-prev").disabled = n <= 1;
    $("step-next").disabled = n >= cfg.steps.length;
    fillLessonQuestions(n);
    drawAsks((cfg.lessonAsks || {})[String(n)] || []);
  } else {
    $("step-heading").textContent = label || gettext("Step");
    drawRunSelects();
  }
  const framed =
    s.cycle !== undefined && s.cycle !== null
      ? s
      : cfg.cycles.length
        ? { cycle: cfg.cycles[0].cycle, runStep: 0 }
        : null;
  if (framed) L.frameStep($("class-run-frame"), cfg, framed);
}

// The presenter steps through the framed run page: each step it shows becomes the class's
// step (the frame echoing the class's own step is no change, so nothing loops).
function sameStep(a, b) {
  return a.cycle === b.cycle && (a.runStep || 0) === (b.runStep || 0);
}
window.addEventListener("message", (ev) => {
  const step = L.framedRunStep(ev, $("class-run-frame"));
  // Not before the class's own step is known: a reload must not move the class.
  if (!step || !stateSeen || state.ended || sameStep(step, state.step || {})) return;
  sendStep(step);
});

function fillLessonQuestions(n) {
  const select = $("lesson-question");
  if (!select || select.dataset.step === String(n)) return;
  select.dataset.step = String(n);
  select.replaceChildren();
  const ordered = [...cfg.questions.filter((q) => q.step === n), ...cfg.questions.filter((q) => q.step !== n)];
  for (const q of ordered) {
    const option = document.createElement("option");
    option.value = q.id;
    option.textContent = `${interpolate(gettext("Step %(n)s"), { n: q.step })}: ${q.prompt}`;
    select.append(option);
  }
}

async function stepsOf(cycle) {
  if (!cycleSteps[cycle]) {
    const response = await fetch(`${cfg.cycleSteps}${cycle}/steps.json`, { headers: { Accept: "application/json" } });
    const got = response.ok ? await response.json() : { steps: [], asks: [] };
    cycleSteps[cycle] = got.steps;
    cycleAsks[cycle] = got.asks || [];
  }
  return cycleSteps[cycle];
}

async function drawRunSelects() {
  const cycles = $("cycle-select");
  if (!cycles) return;
  if (!cycles.options.length) {
    for (const c of cfg.cycles) {
      const option = document.createElement("option");
      option.value = String(c.cycle);
      option.textContent = `${c.cycle}: ${c.pod} → ${c.node || gettext("none")}`;
      cycles.append(option);
    }
  }
  const cycle = state.step.cycle || (cfg.cycles[0] && cfg.cycles[0].cycle) || 1;
  cycles.value = String(cycle);
  const points = $("point-select");
  const steps = await stepsOf(cycle);
  drawAsks(cycleAsks[cycle] || []);
  points.replaceChildren();
  for (const s of steps) {
    const option = document.createElement("option");
    option.value = String(s.index);
    option.textContent = s.label;
    points.append(option);
  }
  points.value = String(state.step.runStep || 0);
  const shown = steps[state.step.runStep || 0];
  const text = $("step-text");
  text.replaceChildren();
  for (const [cls, line] of [
    ["why", shown && shown.why],
    ["help", shown && shown.help],
  ]) {
    if (!line) continue;
    const p = document.createElement("p");
    p.className = `step-${cls}`;
    p.textContent = line;
    text.append(p);
  }
  const i = cfg.cycles.findIndex((c) => c.cycle === cycle);
  $("step-prev").disabled = i <= 0 && !(state.step.runStep > 0);
  $("step-next").disabled = i >= cfg.cycles.length - 1 && (state.step.runStep || 0) >= steps.length - 1;
}

function runStep(cycle, s) {
  return { cycle, point: s ? s.point : null, plugin: s ? s.plugin : null, runStep: s ? s.index : 0 };
}

async function moveRun(delta) {
  if (!cfg.cycles.length) return;
  const cycle = state.step.cycle || cfg.cycles[0].cycle;
  const steps = await stepsOf(cycle);
  const at = (state.step.runStep || 0) + delta;
  if (at >= 0 && at < steps.length) return sendStep(runStep(cycle, steps[at]));
  const i = cfg.cycles.findIndex((c) => c.cycle === cycle) + delta;
  if (i < 0 || i >= cfg.cycles.length) return;
  const next = cfg.cycles[i].cycle;
  const nextSteps = await stepsOf(next);
  sendStep(runStep(next, nextSteps[delta > 0 ? 0 : nextSteps.length - 1]));
}

function sendStep(step) {
  send({ action: "step", step, sentAt: Date.now() / 1000 });
}

function move(delta) {
  if (cfg.steps.length) {
    const n = (state.step.lessonStep || 1) + delta;
    if (n >= 1 && n <= cfg.steps.length) sendStep({ lessonStep: n });
  } else {
    moveRun(delta);
  }
}

$("step-prev").addEventListener("click", () => move(-1));
$("step-next").addEventListener("click", () => move(1));
document.addEventListener("keydown", (ev) => {
  if (ev.target.closest("input, select, textarea")) return;
  if (ev.key === "ArrowRight" || ev.key === "PageDown") move(1);
  if (ev.key === "ArrowLeft" || ev.key === "PageUp") move(-1);
  if (ev.key === "f" && !ev.ctrlKey && !ev.metaKey && !ev.altKey) toggleLarge();
});

// The projector view: large type for the back row of a big room; the join panel steps aside.
function toggleLarge() {
  const on = root.classList.toggle("large");
  $("large-view").setAttribute("aria-pressed", String(on));
  drawChart();
}
$("large-view").addEventListener("click", toggleLarge);
if ($("cycle-select")) {
  $("cycle-select").addEventListener("change", async (ev) => {
    const cycle = Number(ev.target.value);
    sendStep(runStep(cycle, (await stepsOf(cycle))[0]));
  });
  $("point-select").addEventListener("change", async (ev) => {
    const cycle = state.step.cycle;
    sendStep(runStep(cycle, (await stepsOf(cycle))[Number(ev.target.value)]));
  });
}

// -- the question --------------------------------------------------------------------------

function drawQuestion() {
  const q = state.question;
  root.dataset.questionId = q ? String(q.id) : "";
  $("question-prompt").textContent = q ? `${q.number}. ${q.prompt}` : gettext("No question is open.");
  $("reveal").disabled = !q || !!state.revealed || state.ended;
  $("reveal").dataset.revealed = String(!!(q && state.revealed));
  const box = $("reveal-box");
  if (state.revealed && q && state.revealed.questionId === q.id) {
    L.drawReveal(box, state.revealed);
  } else {
    box.hidden = true;
  }
  drawChart();
}

function drawChart() {
  const q = state.question;
  const node = $("tally-chart");
  // Hidden until the reveal unless the lecturer shows it: the room answers without following
  // the crowd.
  const shown = !!q && (!!state.revealed || $("show-tally").checked);
  if (!shown || typeof Plotly === "undefined") {
    node.hidden = !shown;
    return;
  }
  node.hidden = false;
  const fig = L.tallyFigure(q, state.tally, state.revealed);
  if (root.classList.contains("large")) Object.assign(fig.layout, { height: 420, font: { size: 24 } });
  node.dataset.counts = JSON.stringify(Object.fromEntries(fig.keys.map((k, i) => [k, fig.counts[i]])));
  draw(node, fig);
}

const lessonAsk = $("ask-lesson");
if (lessonAsk) {
  lessonAsk.addEventListener("click", () => send({ action: "ask", lessonQuestion: $("lesson-question").value }));
}
// One click asks about the cycle shown: its winner, the plugin that rejects a node, the pods
// evicted. Only the questions the cycle has an answer to are offered.
function drawAsks(kinds) {
  const row = $("ask-run");
  for (const button of row.querySelectorAll("button[data-about]")) {
    button.hidden = !kinds.includes(button.dataset.about);
  }
  row.hidden = !kinds.length;
}
for (const button of $("ask-run").querySelectorAll("button[data-about]")) {
  button.addEventListener("click", () => {
    const cycle = state.step.cycle ?? (cfg.cycles[0] && cfg.cycles[0].cycle);
    send({ action: "ask", about: button.dataset.about, ...(typeof cycle === "number" ? { cycle } : {}) });
  });
}
$("quick-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const data = new FormData(ev.target);
  // split as the prompt says: at commas, full-width commas or enumeration commas (、)
  const choices = String(data.get("choices"))
    .split(/[,，、]/)
    .map((s) => s.trim())
    .filter(Boolean);
  send({
    action: "ask",
    quick: {
      prompt: data.get("prompt"),
      choices,
      answer: String(data.get("answer")).trim(),
      explanation: data.get("explanation"),
      show: state.step,
    },
  });
});
$("reveal").addEventListener("click", () => send({ action: "reveal" }));
$("show-tally").addEventListener("change", drawChart);
