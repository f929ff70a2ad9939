// Lesson page: answer a question in place; the server checks it against the engine's run.
import { gettext, interpolate } from "../i18n.js";

async function check(form) {
  const result = form.querySelector(".result");
  // A new answer replaces the last verdict: nothing stale shows while it is being checked.
  result.hidden = true;
  result.querySelector(".verdict").textContent = "";
  result.querySelector(".explanation").textContent = "";
  const data = new FormData(form);
  const body = new URLSearchParams();
  body.set("csrfmiddlewaretoken", data.get("csrfmiddlewaretoken"));
  body.set("answer", data.get("answer") || "");
  const response = await fetch(form.action, {
    method: "POST",
    body,
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  });
  const reply = await response.json();
  result.hidden = false;
  const verdict = result.querySelector(".verdict");
  if (!response.ok) {
    verdict.textContent = gettext("Give an answer first.");
    verdict.className = "verdict wrong";
    return;
  }
  verdict.className = `verdict ${reply.correct ? "right" : "wrong"}`;
  verdict.textContent = reply.correct
    ? interpolate(
        reply.first_try ? gettext("Right: %(answer)s. First try!") : gettext("Right: %(answer)s."),
        reply,
        true,
      )
    : interpolate(gettext("Not quite: the engine says %(answer)s."), reply, true);
  result.querySelector(".explanation").textContent = reply.explanation;
  if (reply.correct) form.classList.add("solved");
  const progress = document.getElementById("lesson-progress");
  if (progress && reply.progress) {
    // Answered counts every question tried, right or wrong; right counts the solved ones.
    progress.textContent = `· ${reply.progress.text}`;
    progress.dataset.answered = String(reply.progress.answered);
    progress.dataset.right = String(reply.progress.right);
  }
  if (reply.lesson_done) document.body.classList.add("lesson-done");
}

document.querySelectorAll("form.question").forEach((form) => {
  form.addEventListener("submit", (event) => {
    const by = event.submitter;
    if (by && by.hasAttribute("formaction")) return; // starting the run: a normal POST
    event.preventDefault();
    check(form).catch(() => {
      const result = form.querySelector(".result");
      result.hidden = false;
      result.querySelector(".verdict").textContent = gettext("The answer could not be checked; try again.");
    });
  });
});

// The run's keys (→ ← j k J K f x ?) reach the framed run while it is in view, with no click
// into it first; Home and End stay the lesson page's, and typing in an answer stays typing.
const runFrame = document.getElementById("run-frame");
const FRAME_KEYS = new Set(["ArrowRight", "ArrowLeft", "j", "k", "J", "K", "f", "x", "?"]);

function frameInView(frame) {
  const r = frame.getBoundingClientRect();
  const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
  return r.height > 0 && seen >= Math.min(r.height, innerHeight) / 2;
}

if (runFrame) {
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || !FRAME_KEYS.has(event.key)) return;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    const doc = runFrame.contentDocument;
    if (!doc || !frameInView(runFrame)) return;
    const copy = new KeyboardEvent("keydown", {
      key: event.key,
      code: event.code,
      shiftKey: event.shiftKey,
      bubbles: true,
      cancelable: true,
    });
    doc.dispatchEvent(copy);
    if (copy.defaultPrevented) event.preventDefault();
  });
}

// "Show this step in the run" changes the framed run, which may sit below the fold: bring the
// frame into view, so that each press visibly shows its step.
document.querySelectorAll("a.open-step").forEach((link) =>
  link.addEventListener("click", () => {
    const box = document.getElementById("run-frame-box");
    if (box) box.scrollIntoView({ block: "start", behavior: "smooth" });
  }),
);
