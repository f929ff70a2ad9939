// The run page's "bring it into view": scrolls every box that holds an element (a table's own
// scroll box, then the page) so the element lies inside the viewport, clear of what is pinned:
// the step bar at the top of the page, a table's sticky header row, its sticky first column
// (node names) and sticky last columns (the filter matrix's Verdict, the score table's Total).
// Nothing moves when the element is in view already. run_stepper.js calls it for the step's
// cell and for the row or total that decides; the page is framed by a lesson too, where the same
// rules hold inside the frame.
const MARGIN = 6; // pixels left between the element and a pinned edge

function scrollable(node, axis) {
  const style = getComputedStyle(node);
  const overflow = axis === "x" ? style.overflowX : style.overflowY;
  if (overflow !== "auto" && overflow !== "scroll") return false;
  return axis === "x" ? node.scrollWidth > node.clientWidth + 1 : node.scrollHeight > node.clientHeight + 1;
}

// What a table pins over `el` inside `box`: its header row's height, and the widths of the
// sticky cells of el's row on either side (el itself never counts: a pinned cell is in view).
function pinned(box, el) {
  const out = { top: 0, left: 0, right: 0 };
  const table = el.closest("table");
  if (!table || !box.contains(table)) return out;
  const head = table.tHead;
  const first = head && head.rows.length && head.rows[0].cells[0];
  if (first && getComputedStyle(first).position === "sticky" && !head.contains(el)) {
    out.top = head.getBoundingClientRect().height;
  }
  const row = el.closest("tr");
  if (!row) return out;
  const r = el.getBoundingClientRect();
  [...row.cells].forEach((cell) => {
    if (cell === el || getComputedStyle(cell).position !== "sticky") return;
    const c = cell.getBoundingClientRect();
    const style = getComputedStyle(cell);
    if (style.left !== "auto" && c.left <= r.left) out.left = Math.max(out.left, c.width);
    else if (style.right !== "auto") out.right += c.width;
  });
  return out;
}

// How far to move a range [lo, hi] (the element's edges) to lie inside [min, max]; when the
// element is larger than the room, its start (left or top) goes first.
function delta(lo, hi, min, max) {
  if (lo >= min && hi <= max) return 0;
  if (hi - lo > max - min || lo < min) return lo - min;
  return hi - max;
}

function revealIn(box, el) {
  const pins = pinned(box, el);
  const b = box.getBoundingClientRect();
  const left = b.left + box.clientLeft;
  const top = b.top + box.clientTop;
  const style = getComputedStyle(el);
  if (style.position === "sticky") return; // a pinned cell is always in its box's view
  let r = el.getBoundingClientRect();
  if (scrollable(box, "x")) {
    const dx = delta(r.left, r.right, left + pins.left + MARGIN, left + box.clientWidth - pins.right - MARGIN);
    if (dx) box.scrollLeft += dx;
  }
  r = el.getBoundingClientRect();
  if (scrollable(box, "y")) {
    const dy = delta(r.top, r.bottom, top + pins.top + MARGIN, top + box.clientHeight - MARGIN);
    if (dy) box.scrollTop += dy;
  }
}

// The page's own scroll: below the pinned step bar (`topInset`), above the bottom edge.
function revealInPage(el, topInset) {
  const r = el.getBoundingClientRect();
  const dy = delta(r.top, r.bottom, topInset + MARGIN, window.innerHeight - MARGIN);
  const dx = delta(r.left, r.right, MARGIN, document.documentElement.clientWidth - MARGIN);
  if (dy || (dx && document.documentElement.scrollWidth > document.documentElement.clientWidth)) {
    window.scrollBy({ left: dx, top: dy, behavior: "instant" });
  }
}

// Bring `els` (the first one first: when both cannot be in view, it wins) into view.
export function reveal(els, topInset) {
  const list = els.filter(Boolean);
  if (!list.length) return;
  [...list].reverse().forEach((el) => {
    for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
      if (scrollable(box, "x") || scrollable(box, "y")) revealIn(box, el);
    }
  });
  // The page: the decider first, then the step's own element, so the latter wins a conflict.
  [...list].reverse().forEach((el) => revealInPage(el, topInset));
}

// Is `el` in the viewport and on top at its centre (no pinned bar or cell over it)?
export function onTop(el) {
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  if (r.top < 0 || r.left < 0 || r.bottom > window.innerHeight || r.right > document.documentElement.clientWidth)
    return false;
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return !!hit && (hit === el || el.contains(hit));
}
