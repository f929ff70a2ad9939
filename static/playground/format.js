// Small pure formatting helpers the run page's panels share (unit-tested in tests/js/).

// Seconds to one decimal ("2.5 s"), "-" when unknown.
export function fmtSeconds(s) {
  return s === null || s === undefined ? "-" : `${Math.round(s * 10) / 10} s`;
}

// A pod of the default namespace by its name alone (the lists are narrow); others in full.
export function shortPod(key) {
  return key.startsWith("default/") ? key.slice("default/".length) : key;
}

// A sentence cut around the names it mentions, so each name can be kept on one line (a browser
// may break "node-12" after its hyphen): [{ text, name }] in order, ``name`` true for a name.
// A name counts only as a whole word (never the "a" of "at"); the longest are tried first.
export function nameSegments(text, names) {
  const wanted = [...new Set(names.filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!wanted.length) return [{ text, name: false }];
  const escaped = wanted.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(?<![\\w.-])(${escaped.join("|")})(?![\\w-]|\\.\\w)`, "g");
  return text
    .split(pattern)
    .filter((part) => part !== "")
    .map((part) => ({ text: part, name: wanted.includes(part) }));
}
