// Small pure formatting helpers the run page's panels share (unit-tested in tests/js/).

// Seconds to one decimal ("2.5 s"), "-" when unknown.
export function fmtSeconds(s) {
  return s === null || s === undefined ? "-" : `${Math.round(s * 10) / 10} s`;
}

// A pod of the default namespace by its name alone (the lists are narrow); others in full.
export function shortPod(key) {
  return key.startsWith("default/") ? key.slice("default/".length) : key;
}
