// A live class's websocket and the pieces both of its pages draw (presenter and student).
//
// The socket reconnects by itself (the server sends the whole state on every connect, so a
// reconnect catches up); it stops for good when the class ends (4404) or refuses us (4403).
(function () {
  "use strict";
  const gt = (s) => (typeof window.gettext === "function" ? window.gettext(s) : s);
  const fmt = (text, values) =>
    typeof window.interpolate === "function"
      ? window.interpolate(text, values, true)
      : text.replace(/%\((\w+)\)s/g, (_m, k) => String(values[k]));

  function config() {
    return JSON.parse(document.getElementById("class-config").textContent);
  }

  function connect(cfg, handlers) {
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
        say(gt("Live"), "open");
      };
      ws.onmessage = (ev) => {
        const message = JSON.parse(ev.data);
        if (message.type === "ended") over = true;
        handlers.message(message);
      };
      ws.onclose = (ev) => {
        if (over || ev.code === 4404 || ev.code === 4403) {
          over = true;
          say(ev.code === 4403 ? gt("Not admitted") : gt("Ended"), "closed");
          if (handlers.closed) handlers.closed(ev.code);
          return;
        }
        say(gt("Reconnecting…"), "retry");
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
  function stepLabel(step) {
    if (!step || step.cycle === null || step.cycle === undefined) return "";
    let text = fmt(gt("cycle %(cycle)s"), { cycle: step.cycle });
    if (step.point) text += `, ${step.point === "Combine" ? gt("select host") : step.point}`;
    if (step.plugin) text += ` · ${step.plugin}`;
    if (step.node) text += ` · ${step.node}`;
    return text;
  }

  // The page that shows a step: the run page at #cycle=K&step=N, or the lesson page's step.
  function stepUrl(cfg, step, lessonStep) {
    if (cfg.runUrl && step && step.cycle !== null && step.cycle !== undefined) {
      return `${cfg.runUrl}#cycle=${step.cycle}&step=${step.runStep || 0}`;
    }
    if (cfg.lessonUrl) return `${cfg.lessonUrl}?step=${lessonStep || 1}`;
    return "";
  }

  function setCount(id, n) {
    const node = document.getElementById(id);
    if (!node) return;
    node.dataset.n = String(n);
    node.querySelector("strong").textContent = String(n);
  }

  function showError(text) {
    const node = document.getElementById("class-error");
    if (!node) return;
    node.textContent = text || "";
    node.hidden = !text;
  }

  // An answer as compared (the server's lessons.checks.normalize, for names).
  const same = (text) =>
    text.split(",").map((s) => s.trim().toLowerCase().replace(/^default\//, "")).sort().join(",");

  // How a choice value reads in the class's language (the value is what is sent and tallied).
  const choiceLabel = (question, value) =>
    (question && question.labels && question.labels[value]) || value;

  // The revealed answer: the right answer, the engine's explanation, the run step it is about.
  function drawReveal(box, reveal, mine) {
    box.replaceChildren();
    const answer = document.createElement("p");
    answer.className = "answer";
    answer.id = "reveal-answer";
    answer.textContent = fmt(gt("Answer: %(answer)s"), { answer: reveal.answerLabel || reveal.answer });
    box.append(answer);
    if (mine !== undefined) {
      const verdict = document.createElement("p");
      verdict.id = "my-verdict";
      const right = mine !== null && same(mine) === same(String(reveal.answer));
      verdict.className = right ? "right" : "wrong";
      verdict.textContent =
        mine === null ? gt("You did not answer.") : right ? gt("You were right.") : gt("Not this time.");
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
      link.textContent = where ? fmt(gt("See it in the run: %(step)s"), { step: where }) : gt("See it in the run");
      box.append(link);
    }
    box.hidden = false;
  }

  window.LiveClass = {
    gt, fmt, config, connect, stepLabel, stepUrl, setCount, showError, drawReveal, choiceLabel,
  };
})();
