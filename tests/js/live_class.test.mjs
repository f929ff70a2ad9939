// A live class's pure pieces: the step's label and link, answers compared, the tally chart (its
// bars are students' free text).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  choiceLabel,
  frameStep,
  framedRunStep,
  same,
  stepLabel,
  stepUrl,
  tallyFigure,
} from "../../static/playground/classes/live_class.js";

test("a step reads as its cycle, point, plugin and node; Combine is select host", () => {
  assert.equal(
    stepLabel({ cycle: 1, point: "Filter", plugin: "NodeResourcesFit" }),
    "cycle 1, Filter · NodeResourcesFit",
  );
  assert.equal(stepLabel({ cycle: 2, point: "Combine", node: "n1" }), "cycle 2, select host · n1");
  assert.equal(stepLabel({ cycle: null }), "");
  assert.equal(stepLabel(null), "");
});

test("a step's page: the run's permalink, else the lesson's step", () => {
  const cfg = { runUrl: "/runs/7/", lessonUrl: "/lessons/x/" };
  assert.equal(stepUrl(cfg, { cycle: 3, runStep: 4 }), "/runs/7/#cycle=3&step=4");
  assert.equal(stepUrl(cfg, { cycle: null }, 2), "/lessons/x/?step=2");
  assert.equal(stepUrl({}, { cycle: 1 }), "");
});

test("answers compare as names: case, spaces, order and the default namespace aside", () => {
  assert.equal(same("N2, default/n1"), same("n1,n2"));
  assert.notEqual(same("n1"), same("n1,n2"));
  assert.equal(choiceLabel({ labels: { a: "节点 A" } }, "a"), "节点 A");
  assert.equal(choiceLabel({ labels: {} }, "b"), "b");
});

test("the tally: choices in order, other answers after, the revealed one green, text plain", () => {
  const hostile = '<a href="https://evil.example">free</a><span style="font-size:99px">x</span>';
  const question = { choices: ["n1", "n2"], labels: { n1: "Node 1" } };
  const fig = tallyFigure(question, { n2: 3, [hostile]: 1 }, { answer: "N2" });
  assert.deepEqual(fig.keys, ["n1", "n2", hostile]);
  assert.deepEqual(fig.counts, [0, 3, 1]);
  const bar = fig.data[0];
  assert.equal(bar.x[0], "Node 1");
  assert.ok(!bar.x[2].includes("<") && bar.x[2].includes("evil.example"), bar.x[2]);
  assert.deepEqual(bar.marker.color, ["#326ce5", "#2e7d32", "#326ce5"]);
  assert.equal(fig.layout.yaxis.dtick, 1);
  // A free-text question: the answers given, sorted.
  assert.deepEqual(tallyFigure({ choices: [] }, { b: 1, a: 2 }, null).keys, ["a", "b"]);
});

test("the framed run's step: only its own frame's, same origin, well formed", () => {
  globalThis.location = { origin: "http://room:8000" };
  const frame = { contentWindow: {} };
  const message = (data, over = {}) => ({ origin: "http://room:8000", source: frame.contentWindow, data, ...over });
  const step = { type: "run:step", cycle: 3, step: 2, point: "Score", plugin: "ImageLocality" };
  assert.deepEqual(framedRunStep(message(step), frame), {
    cycle: 3,
    point: "Score",
    plugin: "ImageLocality",
    runStep: 2,
  });
  assert.equal(framedRunStep(message(step, { origin: "http://evil" }), frame), null);
  assert.equal(framedRunStep(message(step, { source: {} }), frame), null);
  assert.equal(framedRunStep(message({ ...step, cycle: "3" }), frame), null);
  assert.equal(framedRunStep(message({ type: "other" }), frame), null);
  assert.equal(framedRunStep(message(step), null), null);
});

test("the class's step moves the run frame once: a load first, then only the hash", () => {
  const cfg = { runUrl: "/runs/7/" };
  const frame = { dataset: {}, contentWindow: { location: { hash: "" } }, addEventListener() {} };
  assert.equal(frameStep(frame, cfg, { cycle: 1, runStep: 0 }), true);
  assert.equal(frame.src, "/runs/7/#cycle=1&step=0");
  assert.equal(frameStep(frame, cfg, { cycle: 1, runStep: 0 }), false); // already there
  frame.dataset.loaded = "1";
  assert.equal(frameStep(frame, cfg, { cycle: 2, runStep: 5 }), true);
  assert.equal(frame.contentWindow.location.hash, "cycle=2&step=5");
  assert.equal(frame.src, "/runs/7/#cycle=1&step=0"); // not loaded again
  assert.equal(frameStep(frame, { runUrl: "" }, { cycle: 2 }), false);
});
