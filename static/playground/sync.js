// Keeps a node/pod form and its YAML pane in step through the server's converters.
function start() {
  const form = document.getElementById("object-form");
  if (!form) return;
  const url = form.dataset.syncUrl;
  const yamlArea = form.querySelector("[name=manifest_yaml]");
  const mode = form.querySelector("[name=mode]");
  const csrf = form.querySelector("[name=csrfmiddlewaretoken]").value;
  let timer = null;
  let seq = 0;

  function showErrors(errors) {
    form.querySelectorAll(".field-errors").forEach((ul) => {
      ul.innerHTML = "";
    });
    Object.entries(errors || {}).forEach(([name, msgs]) => {
      const ul =
        form.querySelector(`.field-errors[data-for="${name}"]`) || form.querySelector(".yaml-pane .field-errors");
      if (!ul) return;
      msgs.forEach((m) => {
        const li = document.createElement("li");
        li.textContent = m;
        ul.appendChild(li);
      });
    });
  }

  async function post(direction) {
    const mine = ++seq;
    const data = new FormData(form);
    data.set("direction", direction);
    const response = await fetch(url, { method: "POST", body: data, headers: { "X-CSRFToken": csrf } });
    // 400 carries the errors to show; any other failure leaves the form as it is.
    if ((!response.ok && response.status !== 400) || mine !== seq) return;
    const body = await response.json();
    showErrors(body.errors);
    if (direction === "to_yaml" && body.yaml !== undefined) {
      yamlArea.value = body.yaml;
    } else if (direction === "to_form" && body.fields) {
      Object.entries(body.fields).forEach(([name, value]) => {
        const input = form.querySelector(`[name="${name}"]`);
        if (!input || input === yamlArea || input.type === "hidden") return;
        if (input.type === "checkbox") input.checked = Boolean(value);
        else input.value = value;
      });
      // Container rows the form has no room for are kept in the YAML pane; submit from there.
    }
    form.dataset.synced = String(mine);
  }

  function schedule(direction) {
    clearTimeout(timer);
    timer = setTimeout(() => post(direction), 300);
  }

  form.addEventListener("input", (event) => {
    if (event.target === yamlArea) {
      mode.value = "yaml";
      schedule("to_form");
    } else if (event.target.name !== "count" && event.target.name !== "replicas") {
      mode.value = "form";
      schedule("to_yaml");
    }
  });
  form.addEventListener("change", (event) => {
    if (event.target.type === "checkbox") {
      mode.value = "form";
      schedule("to_yaml");
    }
  });
}

start();
