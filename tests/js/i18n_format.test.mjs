// The shared helpers without a page: the i18n fallback (no catalog loaded) and the catalog when
// one is, the small formatters.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { fmtSeconds, shortPod } from "../../static/playground/format.js";
import { gettext, interpolate, listed, ngettext, pgettext } from "../../static/playground/i18n.js";

afterEach(() => {
  delete globalThis.window;
});

test("without a catalog the words stay as written and named values are filled in", () => {
  assert.equal(gettext("Node"), "Node");
  assert.equal(pgettext("run status", "running"), "running");
  assert.equal(ngettext("%(count)s attempt", "%(count)s attempts", 1), "%(count)s attempt");
  assert.equal(ngettext("%(count)s attempt", "%(count)s attempts", 2), "%(count)s attempts");
  assert.equal(interpolate("%(pod)s on %(node)s: %(pod)s", { pod: "web-1", node: "n2" }), "web-1 on n2: web-1");
  assert.equal(listed(["n1", "n2", "n3"]), "n1, n2, n3");
  assert.equal(listed([]), "");
});

test("with a catalog (Django's /jsi18n/) its words and its enumeration comma are used", () => {
  const words = { ", ": "、", Node: "节点" };
  globalThis.window = {
    gettext: (s) => words[s] || s,
    interpolate: (f, o, named) => (named ? f.replace(/%\((\w+)\)s/g, (_m, k) => `[${o[k]}]`) : "positional"),
  };
  assert.equal(gettext("Node"), "节点");
  assert.equal(listed(["n1", "n2"]), "n1、n2");
  // Always the named form of the catalog's interpolate.
  assert.equal(interpolate("%(node)s", { node: "n1" }), "[n1]");
});

test("seconds to one decimal, a dash when unknown; default-namespace pods by their name", () => {
  assert.equal(fmtSeconds(2.46), "2.5 s");
  assert.equal(fmtSeconds(0), "0 s");
  assert.equal(fmtSeconds(null), "-");
  assert.equal(fmtSeconds(undefined), "-");
  assert.equal(shortPod("default/web-1"), "web-1");
  assert.equal(shortPod("team-a/web-1"), "team-a/web-1");
  assert.equal(shortPod("defaulted/x"), "defaulted/x");
});
