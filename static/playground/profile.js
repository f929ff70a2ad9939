// Profile editor: shows the effective configuration and upstream messages while the user types.
import { gettext, interpolate, listed } from "./i18n.js";
function start() {
  const form = document.getElementById("profile-form");
  if (!form) return;
  const url = form.dataset.effectiveUrl;
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  const yamlArea = form.querySelector("[name=config_yaml]");
  const mode = form.querySelector("[name=mode]");
  const effective = document.getElementById("effective");
  const problems = document.getElementById("config-problems");
  let timer = null;
  let seq = 0;

  function addError(ul, text) {
    const li = document.createElement("li");
    li.textContent = text;
    ul.appendChild(li);
  }

  async function refresh() {
    const mine = ++seq;
    let response;
    try {
      response = await fetch(url, { method: "POST", body: new FormData(form), headers: { "X-CSRFToken": csrf } });
    } catch {
      return; // no answer (the page is being left, or the server is away): the next edit asks again
    }
    if (!response.ok || mine !== seq) return;
    const body = await response.json();
    form.querySelectorAll(".field-errors").forEach((ul) => {
      ul.innerHTML = "";
    });
    problems.innerHTML = "";
    Object.entries(body.errors || {}).forEach(([name, msgs]) => {
      const ul = form.querySelector(`.field-errors[data-for="${name}"]`) || problems;
      msgs.forEach((m) => addError(ul, m));
    });
    (body.problems || []).forEach((p) => {
      const ul = (p.field && form.querySelector(`.field-errors[data-for="${p.field}"]`)) || problems;
      addError(ul, p.text);
    });
    effective.textContent = body.ok ? body.effective_yaml : "";
    const fields = body.fields || {};
    const count = form.querySelector("[name=profile_count]");
    if (fields.profile_count !== undefined && String(fields.profile_count) !== count.value) {
      addError(
        problems,
        interpolate(
          gettext(
            "The YAML now has %(count)s profiles: save to edit them all in the form (the YAML is what gets saved).",
          ),
          { count: fields.profile_count },
        ),
      );
    }
    Object.entries(fields).forEach(([name, value]) => {
      const input = form.querySelector(`[name="${name}"]`);
      if (!input || input === yamlArea || input.type === "hidden") return;
      if (typeof value === "boolean") {
        input.value = value ? "true" : "false"; // Django's NullBooleanSelect
      } else if (input.tagName === "SELECT" && value === "" && [...input.options].some((o) => o.value === "unknown")) {
        input.value = "unknown";
      } else {
        input.value = value;
      }
    });
    showMigration(body.migration, body.config_yaml);
    effective.dataset.state = body.ok ? "valid" : "invalid";
    if (mode.value === "form" && body.config_yaml) yamlArea.value = body.config_yaml;
    form.dataset.refreshed = String(mine);
  }

  // An older configuration pasted in the YAML pane: where it came from and what changed.
  function showMigration(migration, converted) {
    const box = document.getElementById("migration");
    if (!box) return;
    box.hidden = !migration;
    if (!migration) return;
    document.getElementById("migration-source").textContent = interpolate(
      gettext("Converted from %(source)s to kubescheduler.config.k8s.io/v1"),
      { source: migration.source },
    );
    const list = document.getElementById("migration-changes");
    list.innerHTML = "";
    (migration.changes.length ? migration.changes : [gettext("nothing to change")]).forEach((c) => {
      addError(list, c);
    });
    document.getElementById("migration-plugins").textContent = migration.custom_plugins.length
      ? interpolate(gettext("Not in-tree, define as custom plugins: %(names)s"), {
          names: listed(migration.custom_plugins),
        })
      : "";
    document.getElementById("migration-yaml").textContent = converted || "";
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 300);
  }

  form.addEventListener("input", (event) => {
    if (event.target.name === "name" || event.target.name === "description") return;
    mode.value = event.target === yamlArea ? "yaml" : "form";
    schedule();
  });
  form.addEventListener("change", (event) => {
    if (event.target.tagName === "SELECT") {
      mode.value = "form";
      schedule();
    }
  });
  schedule();
}

start();
