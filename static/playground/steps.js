// The arithmetic of the run page's step-through, apart from the page (unit-tested in
// tests/js/): which framework box a step lights, where the step keys move to, and the
// scheduling queue replayed up to a step. Nothing here touches the DOM.

export const BINDING = new Set([
  "Reserve",
  "Permit",
  "WaitOnPermit",
  "PreBind",
  "Bind",
  "PostBind",
  "Unreserve",
  "DeviceAllocation",
]);
// The diagram's box for a step's extension point (CycleEnd lights the whole scheduling cycle).
export const DIAGRAM = {
  CycleStart: "QueueSort",
  PreFilter: "PreFilter",
  Filter: "Filter",
  DeviceMatches: "Filter",
  PostFilter: "PostFilter",
  PreScore: "PreScore",
  Score: "Score",
  NormalizeScore: "NormalizeScore",
  Combine: "Select",
  Reserve: "Reserve",
  DeviceAllocation: "Reserve",
  Unreserve: "Reserve",
  Permit: "Permit",
  WaitOnPermit: "WaitOnPermit",
  PreBind: "PreBind",
  Bind: "Bind",
  PostBind: "PostBind",
};

// A Permit step after a Wait is the binding cycle's WaitOnPermit being answered.
export function diagramPoint(steps, i) {
  const s = steps[i];
  if (
    s.point === "Permit" &&
    s.code !== "Wait" &&
    steps.slice(0, i).some((x) => x.point === "Permit" && x.code === "Wait")
  ) {
    return "WaitOnPermit";
  }
  return DIAGRAM[s.point] || null;
}

// The step the keys move to from `step`: `delta` steps on, or (byPoint) to the next extension
// point, or back to the first plugin of the previous one (of this one, if mid-way). Clamped to
// the cycle's steps.
export function moveIndex(steps, step, delta, byPoint) {
  let i = step;
  if (!byPoint) {
    i += delta;
  } else if (delta > 0) {
    const p = steps[i].point;
    while (i < steps.length - 1 && steps[i].point === p) i++;
  } else {
    const p = steps[i].point;
    while (i > 0 && steps[i - 1].point === p) i--;
    if (i === step && i > 0) {
      i--;
      const q = steps[i].point;
      while (i > 0 && steps[i - 1].point === q) i--;
    }
  }
  return Math.max(0, Math.min(steps.length - 1, i));
}

// The queue block of cycles/<n>.json replayed up to the current step: every move up to the
// latest step reached (all of them at the last step, which ends the cycle).
export function queueAtStep(d, step) {
  const q = d && d.queue;
  if (!q) return null;
  const pods = new Map();
  const counts = Object.assign({}, q.counts);
  Object.entries(q.pods).forEach(([, rows]) => rows.forEach((r) => pods.set(r.pod, Object.assign({}, r))));
  const steps = d.steps;
  const last = step >= steps.length - 1;
  const upto = Math.max(-1, ...steps.slice(0, step + 1).map((s) => s.seq));
  const before = step > 0 ? Math.max(-1, ...steps.slice(0, step).map((s) => s.seq)) : -Infinity;
  const moved = new Set();
  // The clock at the step: the latest time among the steps reached and the moves done (a
  // binding cycle's steps may come seconds after the cycle began, a Permit wait's end).
  let now = Math.max(
    q.now,
    ...steps
      .slice(0, step + 1)
      .map((s) => s.time)
      .filter((t) => typeof t === "number"),
  );
  const moves = q.moves.map((m) => {
    const done = last || m.seq <= upto;
    const fresh = done && !(m.seq <= before); // reached at this very step
    if (done && m.row) {
      if (m.from && counts[m.from] !== undefined) counts[m.from] = Math.max(0, counts[m.from] - 1);
      if (m.to && counts[m.to] !== undefined) counts[m.to] += 1;
      pods.delete(m.pod);
      if (m.to) pods.set(m.pod, Object.assign({}, m.row));
      if (fresh && m.from !== m.to) moved.add(m.pod);
    }
    if (done && m.time !== undefined) now = Math.max(now, m.time);
    return Object.assign({ done, fresh }, m);
  });
  const by = { active: [], backoff: [], unschedulable: [], gated: [], in_flight: [] };
  pods.forEach((r) => {
    if (by[r.queue]) by[r.queue].push(r);
  });
  by.active.sort((a, b) => b.priority - a.priority || a.queued_at - b.queued_at || a.order - b.order);
  by.backoff.sort((a, b) => (a.until || 0) - (b.until || 0) || b.priority - a.priority || a.order - b.order);
  ["unschedulable", "gated", "in_flight"].forEach((p) =>
    by[p].sort((a, b) => a.queued_at - b.queued_at || a.order - b.order),
  );
  return { by, counts, moves, moved, now, order: q.order, more: q.more_moves };
}
