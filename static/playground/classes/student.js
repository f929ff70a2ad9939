// The student page: follow the lecturer's step (or look around and come back), answer, see the
// revealed answer.
import { gettext, interpolate } from "../i18n.js";
import * as L from "./live_class.js";
const cfg = L.config();
const root = document.getElementById("live-class");
const $ = (id) => document.getElementById(id);
const state = { step: {}, stepSeq: 0, question: null, myAnswer: null, revealed: null, ended: false };
let looking = null; // the lesson step the student looks at, or null while following

const socket = L.connect(cfg, { message: onMessage, closed: () => setEnded() });

function onMessage(m) {
  if (m.type === "state") {
    Object.assign(state, {
      step: m.step,
      stepSeq: m.stepSeq,
      question: m.question,
      myAnswer: m.myAnswer,
      revealed: m.revealed,
      ended: m.ended,
    });
    drawStep();
    drawQuestion();
  } else if (m.type === "step") {
    state.step = m.step;
    state.stepSeq = m.stepSeq;
    drawStep();
  } else if (m.type === "question") {
    Object.assign(state, { question: m.question, myAnswer: null, revealed: null });
    drawStep();
    drawQuestion();
    announceQuestion();
  } else if (m.type === "answered") {
    if (state.question && m.questionId === state.question.id) state.myAnswer = m.choice;
    drawQuestion();
  } else if (m.type === "reveal") {
    state.revealed = m;
    dismissBanner();
    drawStep();
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
  $("class-ended").hidden = false;
  if ($("run-frame-panel")) $("run-frame-panel").hidden = true; // the run was the class's
  root.querySelectorAll("button, input").forEach((b) => (b.disabled = true));
}

// -- the step ------------------------------------------------------------------------------

function drawStep() {
  root.dataset.stepSeq = String(state.stepSeq);
  const s = state.step || {};
  const n = looking !== null ? looking : s.lessonStep || 1;
  root.dataset.lessonStep = String(n);
  $("following").hidden = looking !== null;
  $("back-to-class").hidden = looking === null;
  if (cfg.steps.length) {
    const step = cfg.steps[n - 1];
    $("step-heading").textContent = interpolate(gettext("Step %(n)s of %(total)s"), { n, total: cfg.steps.length });
    $("step-text").innerHTML = `<h3>${step.title}</h3>${step.html}`; // the lesson files are trusted
    $("look-prev").disabled = n <= 1;
    $("look-next").disabled = n >= cfg.steps.length;
  } else {
    $("step-heading").textContent = gettext("Step");
  }
  // The run step panel names the lecturer's run step (while following).
  const label = looking === null ? L.stepLabel(s) : "";
  const url = L.stepUrl(cfg, looking === null ? s : null, n);
  $("run-step").textContent = label || (cfg.steps.length ? "" : gettext("not yet chosen"));
  $("run-step-link").href = url || "#";
  // The run page shows each cycle's winner: no link to it while a question waits for its reveal.
  $("run-step-link").hidden = !url || (!!cfg.runUrl && !!state.question && !state.revealed);
  $("run-step-box").hidden = !label && !url;
  drawRunFrame();
}

// The run itself, at the lecturer's step; hidden while a question waits for its reveal (the
// run page shows each cycle's outcome).
function drawRunFrame() {
  const frame = $("class-run-frame");
  if (!frame) return;
  const hide = !!state.question && !state.revealed && !state.ended;
  frame.hidden = hide;
  $("run-frame-hidden").hidden = !hide;
  if (!hide && state.step && state.step.cycle !== undefined && state.step.cycle !== null) {
    L.frameStep(frame, cfg, state.step);
  }
}

function look(delta) {
  const from = looking !== null ? looking : state.step.lessonStep || 1;
  const n = Math.min(Math.max(from + delta, 1), cfg.steps.length);
  looking = n === (state.step.lessonStep || 1) ? null : n;
  drawStep();
}

if ($("look-prev")) {
  $("look-prev").addEventListener("click", () => look(-1));
  $("look-next").addEventListener("click", () => look(1));
}
$("back-to-class").addEventListener("click", () => {
  looking = null;
  drawStep();
});

// -- the question --------------------------------------------------------------------------

function answer(choice) {
  L.showError("");
  if (!state.question) return;
  if (!socket.send({ action: "answer", questionId: state.question.id, choice })) {
    L.showError(gettext("Not connected; trying again…"));
  }
}

function drawQuestion() {
  const q = state.question;
  root.dataset.questionId = q ? String(q.id) : "";
  $("question-prompt").textContent = q ? `${q.number}. ${q.prompt}` : gettext("No question yet: watch the step.");
  const choices = $("choices");
  choices.replaceChildren();
  const closed = !q || !!state.revealed || state.ended;
  if (q && q.choices.length) {
    for (const c of q.choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button choice" + (state.myAnswer === c ? " chosen" : "");
      button.dataset.choice = c;
      button.textContent = L.choiceLabel(q, c);
      button.disabled = closed;
      button.addEventListener("click", () => answer(c));
      choices.append(button);
    }
  }
  $("free-answer").hidden = !q || q.choices.length > 0 || closed;
  $("my-answer").textContent =
    state.myAnswer !== null && q
      ? interpolate(gettext("Your answer: %(answer)s"), { answer: L.choiceLabel(q, state.myAnswer) }) +
        (closed ? "" : ` ${gettext("(you may change it until the reveal)")}`)
      : "";
  const box = $("reveal-box");
  if (q && state.revealed && state.revealed.questionId === q.id) {
    L.drawReveal(box, state.revealed, state.myAnswer);
  } else {
    box.hidden = true;
  }
}

// A new question is hard to miss on a phone, where the question sits below the step: the page
// scrolls to it, and a banner stays at the top until the student answers or taps it.
function announceQuestion() {
  const panel = $("question-panel");
  const banner = $("question-banner");
  banner.hidden = false;
  panel.classList.add("new-question");
  panel.scrollIntoView({ block: "start", behavior: "smooth" });
}

function dismissBanner() {
  $("question-banner").hidden = true;
  $("question-panel").classList.remove("new-question");
}

$("question-banner").addEventListener("click", () => {
  $("question-panel").scrollIntoView({ block: "start" });
  dismissBanner();
});
$("question-panel").addEventListener("click", dismissBanner);

$("free-answer").addEventListener("submit", (ev) => {
  ev.preventDefault();
  answer($("free-answer-input").value);
});
