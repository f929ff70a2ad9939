// The run page's step-through arithmetic: the framework box a step lights, where the keys move,
// the scheduling queue replayed up to a step.
import assert from "node:assert/strict";
import { test } from "node:test";

import { diagramPoint, moveIndex, queueAtStep } from "../../static/playground/steps.js";

const STEPS = [
  { point: "CycleStart", seq: 1 },
  { point: "PreFilter", plugin: "A", seq: 2 },
  { point: "PreFilter", plugin: "B", seq: 3 },
  { point: "Filter", plugin: "A", seq: 4 },
  { point: "Filter", plugin: "B", seq: 5 },
  { point: "Filter", plugin: "C", seq: 6 },
  { point: "Score", plugin: "A", seq: 7 },
  { point: "CycleEnd", seq: 8 },
];

test("a step lights its extension point's box; Permit after a Wait is WaitOnPermit", () => {
  assert.equal(diagramPoint(STEPS, 0), "QueueSort");
  assert.equal(diagramPoint(STEPS, 3), "Filter");
  assert.equal(diagramPoint(STEPS, 7), null);
  const binding = [
    { point: "Reserve" },
    { point: "Permit", code: "Wait" },
    { point: "Permit", code: "Success" },
    { point: "Bind", code: "Success" },
  ];
  assert.equal(diagramPoint(binding, 1), "Permit");
  assert.equal(diagramPoint(binding, 2), "WaitOnPermit");
  assert.equal(diagramPoint(binding, 3), "Bind");
  assert.equal(diagramPoint([{ point: "DeviceAllocation" }], 0), "Reserve");
});

test("the keys move by step, by extension point, and stop at the cycle's ends", () => {
  assert.equal(moveIndex(STEPS, 0, 1, false), 1);
  assert.equal(moveIndex(STEPS, 0, -1, false), 0);
  assert.equal(moveIndex(STEPS, 7, 1, false), 7);
  // Next point: from the first PreFilter plugin to the first Filter plugin.
  assert.equal(moveIndex(STEPS, 1, 1, true), 3);
  assert.equal(moveIndex(STEPS, 4, 1, true), 6);
  assert.equal(moveIndex(STEPS, 7, 1, true), 7);
  // Back: mid-way to the point's first plugin, from its first plugin to the previous point's.
  assert.equal(moveIndex(STEPS, 5, -1, true), 3);
  assert.equal(moveIndex(STEPS, 3, -1, true), 1);
  assert.equal(moveIndex(STEPS, 1, -1, true), 0);
  assert.equal(moveIndex(STEPS, 0, -1, true), 0);
});

function detail() {
  return {
    steps: STEPS,
    queue: {
      now: 10,
      order: "priority",
      more_moves: 0,
      counts: { active: 2, backoff: 0, unschedulable: 1, gated: 0, in_flight: 0 },
      pods: {
        active: [
          { pod: "low", queue: "active", priority: 1, queued_at: 1, order: 1 },
          { pod: "high", queue: "active", priority: 9, queued_at: 2, order: 2 },
        ],
        unschedulable: [{ pod: "stuck", queue: "unschedulable", queued_at: 0, order: 0 }],
      },
      moves: [
        {
          seq: 2,
          pod: "high",
          from: "active",
          to: "in_flight",
          row: { pod: "high", queue: "in_flight", queued_at: 2, order: 2 },
          time: 11,
        },
        {
          seq: 6,
          pod: "stuck",
          from: "unschedulable",
          to: "active",
          row: { pod: "stuck", queue: "active", priority: 5, queued_at: 3, order: 0 },
          time: 12,
        },
      ],
    },
  };
}

test("the queue replayed up to a step: moves done, the step's own moves fresh, rows sorted", () => {
  const d = detail();
  const start = queueAtStep(d, 0);
  assert.deepEqual(
    start.by.active.map((r) => r.pod),
    ["high", "low"],
    "higher priority first",
  );
  assert.deepEqual(
    start.moves.map((m) => m.done),
    [false, false],
  );
  assert.equal(start.now, 10);

  const atPreFilter = queueAtStep(d, 1);
  assert.deepEqual(
    atPreFilter.by.active.map((r) => r.pod),
    ["low"],
  );
  assert.deepEqual(
    atPreFilter.by.in_flight.map((r) => r.pod),
    ["high"],
  );
  assert.deepEqual([...atPreFilter.moved], ["high"]);
  assert.equal(atPreFilter.counts.active, 1);
  assert.equal(atPreFilter.counts.in_flight, 1);
  assert.equal(atPreFilter.now, 11);

  // A step later the move is done but no longer fresh.
  const next = queueAtStep(d, 2);
  assert.deepEqual([...next.moved], []);
  assert.equal(next.moves[0].done && !next.moves[0].fresh, true);

  // The last step ends the cycle: every move is done.
  const end = queueAtStep(d, STEPS.length - 1);
  assert.deepEqual(
    end.by.active.map((r) => r.pod),
    ["stuck", "low"],
  );
  assert.equal(end.counts.unschedulable, 0);
  assert.equal(end.now, 12);
  assert.equal(queueAtStep({ steps: STEPS }, 0), null);
});

test("a late step shows its own time, as a binding cycle's steps come after a Permit wait", () => {
  const d = detail();
  const late = { ...d, steps: d.steps.map((s, i) => (i === d.steps.length - 1 ? { ...s, time: 40 } : s)) };
  assert.equal(queueAtStep(late, late.steps.length - 1).now, 40);
  assert.equal(queueAtStep(late, 0).now, 10, "an earlier step keeps the clock it had");
});
