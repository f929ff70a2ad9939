// Custom plugin form: compiles the expressions while the user types and shows problems per point.
import { gettext } from "./i18n.js";
function start() {
  const form = document.getElementById("custom-plugin-form");
  if (!form) return;
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  const state = document.getElementById("compile-state");
  let timer = null;
  let seq = 0;

  async function check() {
    const mine = ++seq;
    const response = await fetch(form.dataset.checkUrl, {
      method: "POST",
      body: new FormData(form),
      headers: { "X-CSRFToken": csrf },
    });
    if (!response.ok || mine !== seq) return;
    const body = await response.json();
    form.querySelectorAll(".field-errors").forEach((ul) => {
      ul.innerHTML = "";
    });
    Object.entries(body.errors || {}).forEach(([name, msgs]) => {
      const ul =
        form.querySelector(`.field-errors[data-for="${name}"]`) || form.querySelector(".nonfield-errors") || state;
      msgs.forEach((m) => {
        const li = document.createElement("li");
        li.textContent = m;
        ul.appendChild(li);
      });
    });
    state.dataset.state = body.ok ? "compiles" : "errors";
    state.textContent = body.ok ? gettext("Every expression compiles.") : "";
  }

  form.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  });
}

start();
