// Names users wrote reach the charts as plain text: Plotly's pseudo-HTML (links, line breaks,
// styled spans) in a name is shown as written, never drawn.
import assert from "node:assert/strict";
import { test } from "node:test";

import { plainFigure, plotText } from "../../static/playground/plot_text.js";

const HOSTILE = '<a href="https://evil.example">click</a><br><span style="font-size:80px;color:red">big</span> & co';

// No tag Plotly would read survives: no "<" is left, and "&" only starts the entities we wrote.
function inert(text) {
  return !text.includes("<") && !text.includes(">") && !/&(?!#38;|lt;|gt;)/.test(text);
}

test("plotText leaves no markup and keeps every character readable", () => {
  const out = plotText(HOSTILE);
  assert.ok(inert(out), out);
  assert.equal(out.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#38;/g, "&"), HOSTILE);
  assert.equal(plotText("node-1"), "node-1");
  assert.equal(plotText(42), "42");
  // Already-escaped text is escaped again: a name "&lt;b&gt;" shows as typed, not as "<b>".
  assert.equal(plotText("&lt;b&gt;"), "&#38;lt;b&#38;gt;");
});

test("plainFigure makes a server-built figure's names plain, its templates untouched", () => {
  const figure = {
    data: [
      {
        type: "bar",
        x: [HOSTILE, "n2"],
        y: [1, 2],
        name: HOSTILE,
        text: [[HOSTILE]],
        hovertemplate: "%{y}: %{x}<extra>cpu</extra>",
      },
    ],
    layout: {
      title: { text: HOSTILE },
      xaxis: { title: { text: HOSTILE }, tickvals: [HOSTILE], ticktext: [HOSTILE] },
      yaxis2: { title: HOSTILE },
      annotations: [{ x: HOSTILE, y: 1, text: HOSTILE }],
      height: 300,
    },
  };
  const out = plainFigure(figure);
  const trace = out.data[0];
  assert.ok(inert(trace.x[0]) && inert(trace.name) && inert(trace.text[0][0]));
  assert.equal(trace.x[1], "n2");
  assert.deepEqual(trace.y, [1, 2]);
  assert.equal(trace.hovertemplate, "%{y}: %{x}<extra>cpu</extra>");
  assert.ok(inert(out.layout.title.text));
  assert.ok(inert(out.layout.xaxis.title.text) && inert(out.layout.xaxis.ticktext[0]));
  assert.equal(out.layout.xaxis.tickvals[0], trace.x[0], "tick values still name the categories");
  assert.ok(inert(out.layout.yaxis2.title));
  assert.ok(inert(out.layout.annotations[0].text) && inert(out.layout.annotations[0].x));
  assert.equal(out.layout.height, 300);
  // The server's figure is left as it was.
  assert.equal(figure.data[0].x[0], HOSTILE);
});
