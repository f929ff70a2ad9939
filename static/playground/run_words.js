// Upstream's tokens for a cycle's result and a binding cycle's state, as the reader's language
// says them. The token itself (what kube-scheduler and the trace say) stays beside the word as
// its title, and is what filters and classes compare.

import { pgettext } from "./i18n.js";

const RESULTS = {
  Scheduled: () => pgettext("cycle result", "Scheduled"),
  Unschedulable: () => pgettext("cycle result", "Unschedulable"),
  Error: () => pgettext("cycle result", "Error"),
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
