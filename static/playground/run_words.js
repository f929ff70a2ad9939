// Upstream's tokens for a cycle's result and a binding cycle's state, as the reader's language
// says them. The token itself (what kube-scheduler and the trace say) stays beside the word as
// its title, and is what filters and classes compare.

import { gettext, pgettext } from "./i18n.js";

const RESULTS = {
  Scheduled: () => pgettext("cycle result", "Scheduled"),
  Unschedulable: () => pgettext("cycle result", "Unschedulable"),
  Error: () => pgettext("cycle result", "Error"),
  // Not upstream's: a pod no profile serves, which upstream never queues (it stays Pending).
  NotQueued: () => pgettext("cycle result", "Not queued"),
  Running: () => pgettext("cycle result", "Running"),
};

const BINDING = {
  Binding: () => pgettext("binding state", "Binding"),
  Waiting: () => pgettext("binding state", "Waiting"),
  Bound: () => pgettext("binding state", "Bound"),
  Rejected: () => pgettext("binding state", "Rejected"),
  Failed: () => pgettext("binding state", "Failed"),
};

// A cycle's result (Scheduled, Unschedulable, Error) in words; an unknown token as it is.
export function resultWord(token) {
  return RESULTS[token] ? RESULTS[token]() : token || "";
}

// A binding cycle's state (Binding, Waiting, Bound, Rejected, Failed) in words.
export function bindingWord(token) {
  return BINDING[token] ? BINDING[token]() : token || "";
}

// The name of an explanation's input (requested, allocatable, raw, max...) in words; an API field
// (topologyKey, maxSkew) or a name the page does not know stays as it is.
const INPUTS = {
  requested: () => pgettext("explain input", "requested"),
  allocatable: () => pgettext("explain input", "allocatable"),
  used: () => pgettext("explain input", "used"),
  free: () => pgettext("explain input", "free"),
  request: () => pgettext("explain input", "request"),
  raw: () => pgettext("explain input", "raw"),
  min: () => pgettext("explain input", "min"),
  max: () => pgettext("explain input", "max"),
  normalized: () => pgettext("explain input", "normalized"),
  weight: () => pgettext("explain input", "weight"),
  score: () => pgettext("explain input", "score"),
  scaled: () => pgettext("explain input", "scaled"),
  sum: () => pgettext("explain input", "sum"),
  mean: () => pgettext("explain input", "mean"),
  count: () => pgettext("explain input", "count"),
  matched: () => pgettext("explain input", "matched"),
  matching: () => pgettext("explain input", "matching"),
  taints: () => pgettext("explain input", "taints"),
  terms: () => pgettext("explain input", "terms"),
  reasons: () => pgettext("explain input", "reasons"),
  node: () => pgettext("explain input", "node"),
  pod: () => pgettext("explain input", "pod"),
  nodes: () => pgettext("explain input", "nodes"),
  pods: () => pgettext("explain input", "pods"),
  value: () => pgettext("explain input", "value"),
  resource: () => pgettext("explain input", "resource"),
  resources: () => pgettext("explain input", "resources"),
  priority: () => pgettext("explain input", "priority"),
  victims: () => pgettext("explain input", "victims"),
  domain: () => pgettext("explain input", "domain"),
  domains: () => pgettext("explain input", "domains"),
  counts: () => pgettext("explain input", "counts"),
  skew: () => pgettext("explain input", "skew"),
  strategy: () => pgettext("explain input", "strategy"),
  percentage: () => pgettext("explain input", "percentage"),
  evaluated: () => pgettext("explain input", "evaluated"),
  kept: () => pgettext("explain input", "kept"),
  selected: () => pgettext("explain input", "selected"),
  reverse: () => pgettext("explain input", "reverse"),
  points: () => pgettext("explain input", "points"),
  scale: () => pgettext("explain input", "scale"),
  values: () => pgettext("explain input", "values"),
  label: () => pgettext("explain input", "label"),
  key: () => pgettext("explain input", "key"),
  own: () => pgettext("explain input", "own"),
  kind: () => pgettext("explain input", "kind"),
  rule: () => pgettext("explain input", "rule"),
  intolerable: () => pgettext("explain input", "intolerable"),
};

export function inputKey(key) {
  return Object.hasOwn(INPUTS, key) ? INPUTS[key]() : key;
}

// How a plugin normalises its scores (a NormalizeScore explanation's kind) in words.
const NORMALIZE_KINDS = {
  none: () => pgettext("normalize rule", "none"),
  max: () => pgettext("normalize rule", "max"),
  reverse: () => pgettext("normalize rule", "reverse"),
  "min-max": () => pgettext("normalize rule", "min-max"),
  "reverse-min-max": () => pgettext("normalize rule", "reverse-min-max"),
  own: () => pgettext("normalize rule", "own"),
};

export function normalizeKind(token) {
  return Object.hasOwn(NORMALIZE_KINDS, token) ? NORMALIZE_KINDS[token]() : token;
}

// The playground's own ApprovalGate words in a status (upstream's reasons stay as they are).
const OWN_REASONS = {
  "waiting for a user to allow or reject the pod": () => gettext("waiting for a user to allow or reject the pod"),
  "rejected by a user": () => gettext("rejected by a user"),
  // the engine's reason for a Permit a user allowed (upstream's allow has none)
  allowed: () => pgettext("permit reason", "allowed"),
};

export function reasonText(reason) {
  return Object.hasOwn(OWN_REASONS, reason) ? OWN_REASONS[reason]() : reason;
}
