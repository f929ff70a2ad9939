// A cycle's result and a binding state read in the page's language, looked up in the catalog
// under their own contexts; unknown tokens pass through as they are.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { bindingWord, inputKey, normalizeKind, reasonText, resultWord } from "../../static/playground/run_words.js";

afterEach(() => {
  delete globalThis.window;
});

test("without a catalog the upstream tokens stay", () => {
  assert.equal(resultWord("Scheduled"), "Scheduled");
  assert.equal(bindingWord("Bound"), "Bound");
  assert.equal(bindingWord(""), "");
  assert.equal(resultWord(undefined), "");
});

test("with a catalog each token reads in its context", () => {
  const words = {
    "cycle result\u0004Scheduled": "已调度",
    "cycle result\u0004Unschedulable": "不可调度",
    "binding state\u0004Bound": "已绑定",
    "binding state\u0004Waiting": "等待中",
  };
  globalThis.window = { pgettext: (c, s) => words[`${c}\u0004${s}`] || s };
  assert.equal(resultWord("Scheduled"), "已调度");
  assert.equal(resultWord("Unschedulable"), "不可调度");
  assert.equal(bindingWord("Bound"), "已绑定");
  assert.equal(bindingWord("Waiting"), "等待中");
  // a token the page does not know is shown as it came, not dropped
  assert.equal(bindingWord("Parked"), "Parked");
});

test("an explanation's input names read in words, API fields and unknown names as they are", () => {
  const words = { "explain input\u0004requested": "已请求", "explain input\u0004raw": "原始" };
  globalThis.window = { pgettext: (c, s) => words[`${c}\u0004${s}`] || s };
  assert.equal(inputKey("requested"), "已请求");
  assert.equal(inputKey("raw"), "原始");
  assert.equal(inputKey("topologyKey"), "topologyKey");
  // an object's own property name, not an input the page translates
  assert.equal(inputKey("constructor"), "constructor");
});

test("the ApprovalGate's own words are translated, upstream's reasons are not", () => {
  const words = { "rejected by a user": "被用户拒绝" };
  globalThis.window = { gettext: (s) => words[s] || s };
  assert.equal(reasonText("rejected by a user"), "被用户拒绝");
  assert.equal(reasonText("Insufficient cpu"), "Insufficient cpu");
});

test("a NormalizeScore's kind reads in words; English keeps the token", () => {
  assert.equal(normalizeKind("reverse"), "reverse");
  const words = { "normalize rule\u0004reverse": "按最高分缩放后反转" };
  globalThis.window = { pgettext: (c, s) => words[`${c}\u0004${s}`] || s };
  assert.equal(normalizeKind("reverse"), "按最高分缩放后反转");
  assert.equal(normalizeKind("constructor"), "constructor");
});
