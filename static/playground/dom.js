// The pages' one element builder and its small companions. Nothing runs at load: node's unit
// tests import the modules that import this one.

export const $ = (id) => document.getElementById(id);

// el("td", { class: "x", "data-node": n, onclick: f }, child, [more children], ...): an element
// with its attributes (null, undefined and false leave one out; "class" sets the class name,
// "text" the text, "onclick" adds a listener) and its children, nested arrays flattened; a child
// that is not a DOM node is written as text, never parsed as markup.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  Object.entries(attrs || {}).forEach(([key, value]) => {
    if (value === null || value === undefined || value === false) return;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, value);
  });
  children.flat(Infinity).forEach((child) => {
    if (child === null || child === undefined) return;
    node.append(child instanceof Node ? child : String(child));
  });
  return node;
}

// A table of ``items``, one body row each (``rowOf(item)`` gives the <tr>), at most ``limit`` of
// them: the rest are counted in a footer row across every column (``more(n)`` words it, in the
// page's language). ``heads``: the header cells (none: no header row); ``columns``: how many
// columns a row has when there is no header.
export function table(attrs, heads, items, rowOf, { limit = Infinity, more = null, caption = null, columns = 0 } = {}) {
  const shown = items.slice(0, limit);
  const left = items.length - shown.length;
  return el(
    "table",
    attrs,
    caption === null ? null : el("caption", {}, caption),
    heads.length
      ? el(
          "thead",
          {},
          el(
            "tr",
            {},
            heads.map((h) => el("th", {}, h)),
          ),
        )
      : null,
    el("tbody", {}, shown.map(rowOf)),
    left > 0 && more
      ? el("tfoot", {}, el("tr", {}, el("td", { colspan: String(heads.length || columns), class: "help" }, more(left))))
      : null,
  );
}

// A plugin name that may wrap between its words (NodeResources·Balanced·Allocation), so a
// narrow column shows it whole on two lines instead of cutting it.
export function breakable(name) {
  return wordsOf(name).flatMap((part, i) => (i ? [document.createElement("wbr"), part] : [part]));
}

// "NodeResourcesBalancedAllocation" -> ["Node", "Resources", "Balanced", "Allocation"].
export function wordsOf(name) {
  return String(name).split(/(?=[A-Z][a-z])/);
}
