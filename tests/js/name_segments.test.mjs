// format.js's nameSegments: a sentence cut around the node names it mentions.
import assert from "node:assert/strict";
import { test } from "node:test";

import { nameSegments } from "../../static/playground/format.js";

const names = (segments) => segments.filter((s) => s.name).map((s) => s.text);

test("each whole name is its own segment, and the text is kept whole", () => {
  const text = "3 nodes tied at 300: node-1, node-10, node-2; picked node-1: by name.";
  const segments = nameSegments(text, ["node-1", "node-10", "node-2"]);
  assert.equal(segments.map((s) => s.text).join(""), text);
  assert.deepEqual(names(segments), ["node-1", "node-10", "node-2", "node-1"]);
});

test("a short name is never cut out of a word or a longer name", () => {
  const segments = nameSegments("2 nodes tied at 10: a, b; picked a (b.c is not b).", ["a", "b"]);
  assert.deepEqual(names(segments), ["a", "b", "a", "b"]);
  assert.ok(segments.some((s) => !s.name && s.text.includes("tied at")));
  assert.ok(segments.some((s) => !s.name && s.text.includes("b.c")));
});

test("names with regular-expression characters are matched literally", () => {
  assert.deepEqual(names(nameSegments("x+y and x.y won", ["x+y", "x.y"])), ["x+y", "x.y"]);
  assert.deepEqual(nameSegments("no names here", []), [{ text: "no names here", name: false }]);
});
