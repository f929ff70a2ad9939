// The run page's URLs, and its first cycle's panels asked for at once.
//
// This module comes before Plotly's script (deferred, so the page is parsed without waiting
// for it): a browser that has not cached Plotly spends about a second compiling it, and run.js,
// which comes after, could only ask for the first cycle then. So the
// request for the cycle the page opens on (the permalink's, or the first listed) starts here,
// and run.js takes its answer when it asks for the same URL (`take`); any other URL, or a second
// ask, is a request of its own.
const cfgNode = document.getElementById("run-config");
export const cfg = cfgNode ? JSON.parse(cfgNode.textContent) : {};

// A shared cluster's run is readable with its share token only: every request carries it.
export function withShare(path, params) {
  const query = new URLSearchParams(params || {});
  if (cfg.share) query.set("share", cfg.share);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

// How the panels are cut (paging.PageParams on the server): run.js keeps these in its state.
export function initialView() {
  return {
    mode: "weighted",
    topN: 20,
    filterPage: null, // null: the server opens the page holding the evaluated nodes
    scorePage: 0,
    scoreSort: { key: "total", dir: "desc" }, // key: "total", "node" or a Score plugin's name
    filterSort: "snapshot",
    filterQuery: "",
    scoreQuery: "",
  };
}

export function cycleUrl(cycle, view) {
  const p = new URLSearchParams({
    mode: view.mode,
    top: String(view.topN),
    fsort: view.filterSort,
    spage: String(view.scorePage),
    ssort: view.scoreSort.key,
    sdir: view.scoreSort.dir,
    smode: view.scoreSort.mode || "weighted",
  });
  if (view.filterPage !== null) p.set("fpage", String(view.filterPage));
  if (view.filterQuery) p.set("fq", view.filterQuery);
  if (view.scoreQuery) p.set("sq", view.scoreQuery);
  return withShare(`${cfg.cycle}${cycle}.json`, p);
}

export function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const cycle = params.has("cycle") ? Number(params.get("cycle")) : null;
  const step = params.has("step") ? Number(params.get("step")) : null;
  return { cycle: Number.isFinite(cycle) ? cycle : null, step: Number.isFinite(step) ? step : null };
}

const HEADERS = { headers: { Accept: "application/json" } };
let early = null; // { url, response }
const firstRow = document.querySelector("#timeline tr[data-cycle]");
const fromHash = readHash();
const first = fromHash.cycle !== null ? fromHash.cycle : firstRow ? Number(firstRow.dataset.cycle) : null;
if (cfgNode && first !== null) {
  const url = cycleUrl(first, initialView());
  early = { url, response: fetch(url, HEADERS) };
  early.response.catch(() => {}); // run.js sees a failure when it takes the answer
}

// The answer to a GET of `url`: the early one, if the page's first ask is for its URL (a later
// ask may want a fresher answer: a running cycle's binding goes on), else a new fetch.
export let tookEarly = false; // read by the browser tests (through run.js's state)
export function take(url) {
  const asked = early;
  early = null;
  if (asked && asked.url === url) {
    tookEarly = true;
    return asked.response;
  }
  return fetch(url, HEADERS);
}
