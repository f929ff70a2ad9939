// The run page's devices (Dynamic Resource Allocation), for runs whose pods use ResourceClaims.
//
// Two parts, both drawn from what the server recorded (nothing is decided here):
// - gettext("Devices allocated"): pod → claim → request → device (driver/pool/device) with the device's
//   attributes and capacity, from devices.json (playground/dra/selectors.run_devices: the claims
//   as the run's binding cycles left them, and the devices of the run's ResourceSlices);
// - in a cycle whose pod has claims, a "Devices" panel under Filter: the device each request got
//   on the chosen node, and per node how many devices matched each request and why the others did
//   not (the cycle's DeviceMatches event, as charts.cycle_detail hands it over in "run:panels").
// Clicking a DynamicResources cell of the filter matrix explains one node device by device.
import { gettext, interpolate, listed } from "./i18n.js";
import { el } from "./dom.js";
import { shortPod } from "./format.js";
import { withShare } from "./run_urls.js";
export function startDevices() {
  const root = document.getElementById("run-devices");
  if (!root) return;
  const POLL_MS = 2000;
  const SHOWN = 4;
  let index = {}; // "driver/pool/device" -> {node, attributes, capacity}
  let lastPanels = null;

  function url() {
    const base = root.dataset.url;
    return withShare(base);
  }

  // "model l4, memory 24Gi": the attributes (model first, no index) and then the capacity.
  function traits(info) {
    if (!info) return "";
    const attrs = Object.entries(info.attributes || {}).filter(([k]) => k !== "index");
    attrs.sort(([a], [b]) => (a === "model" ? -1 : b === "model" ? 1 : a.localeCompare(b)));
    const caps = Object.entries(info.capacity || {});
    return [...attrs, ...caps].map(([k, v]) => `${k} ${v}`).join(", ");
  }

  function deviceText(id) {
    const t = traits(index[id]);
    return t ? `${id} (${t})` : id;
  }

  // -- Devices allocated (the whole run) --------------------------------------------------------

  function renderSummary(data) {
    root.innerHTML = "";
    const rows = data.rows || [];
    if (!Object.keys(index).length && !rows.length) {
      root.hidden = true;
      return;
    }
    root.hidden = false;
    root.append(el("h2", {}, gettext("Devices allocated")));
    if (!data.final) {
      root.append(
        el(
          "p",
          { class: "help" },
          gettext(
            "The table fills in when the run finishes: it lists the claims as the run's binding cycles left them.",
          ),
        ),
      );
      return;
    }
    root.append(
      el(
        "p",
        { class: "help" },
        gettext(
          "Each pod of the run that uses ResourceClaims, the device each request of its claims got (DynamicResources allocated it in Filter, Reserve kept it, PreBind wrote it into the claim), with the device's attributes and capacity as its ResourceSlice publishes them.",
        ),
      ),
    );
    const body = el("tbody");
    rows.forEach((r) => {
      const info = r.device ? index[r.device] || { attributes: r.attributes, capacity: r.capacity } : null;
      const attrs = info ? Object.entries(info.attributes || {}).filter(([k]) => k !== "model" && k !== "index") : [];
      body.append(
        el(
          "tr",
          { "data-pod": r.pod, "data-device": r.device || "" },
          el("td", {}, shortPod(r.pod)),
          el("td", {}, r.node || gettext("not scheduled")),
          el("td", {}, shortPod(r.claim)),
          el("td", {}, r.request || "—"),
          el("td", { class: "device" }, r.device || gettext("no device")),
          el("td", { class: "model" }, info ? String((info.attributes || {}).model ?? "") : ""),
          el("td", { class: "memory" }, info ? String((info.capacity || {}).memory ?? "") : ""),
          el(
            "td",
            {},
            [...attrs, ...Object.entries(info ? info.capacity || {} : {}).filter(([k]) => k !== "memory")]
              .map(([k, v]) => `${k}=${v}`)
              .join(" "),
          ),
        ),
      );
    });
    if (!rows.length)
      body.append(el("tr", {}, el("td", { colspan: "8" }, gettext("No pod of this run uses a claim."))));
    root.append(
      el(
        "table",
        { class: "list compact", id: "devices-allocated" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            [
              gettext("Pod"),
              gettext("Node"),
              gettext("Claim"),
              gettext("Request"),
              gettext("Device (driver/pool/device)"),
              gettext("Model"),
              gettext("Memory"),
              gettext("Other attributes"),
            ].map((h) => el("th", {}, h)),
          ),
        ),
        body,
      ),
    );
  }

  async function load() {
    let data;
    try {
      const response = await fetch(url(), { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      data = await response.json();
    } catch (err) {
      return;
    }
    index = data.devices || {};
    renderSummary(data);
    if (lastPanels) {
      renderCycle(lastPanels);
      annotateBinding();
    }
    if (!data.terminal) setTimeout(load, POLL_MS); // the table fills in when the run ends
  }

  // -- one cycle's Devices panel ----------------------------------------------------------------

  function firstFew(items) {
    const more = items.length - SHOWN;
    return listed(items.slice(0, SHOWN)) + (more > 0 ? interpolate(gettext(" and %(more)s more"), { more }) : "");
  }

  function rejectedText(rejected) {
    const byReason = {};
    rejected.forEach((d) => {
      const why = d.why || d.verdict;
      (byReason[why] = byReason[why] || []).push(d.device.split("/").slice(-2).join("/"));
    });
    return Object.entries(byReason)
      .map(([why, names]) => `${firstFew(names)}: ${why}`)
      .join("; ");
  }

  function verdictText(p) {
    if (p.filter === "") return gettext("devices can be allocated");
    if (p.filter === null || p.filter === undefined)
      return gettext("not checked (an earlier Filter plugin rejected the node)");
    return p.filter;
  }

  // The allocation Filter chose on ``node``, one line per device, with the claim it is for.
  function allocationLines(panel) {
    const pending = [];
    panel.requests.forEach((r) => {
      if (r.request && !pending.includes(r.claim)) pending.push(r.claim);
    });
    const lines = [];
    (panel.allocation || []).forEach((devices, i) => {
      devices.forEach((d) => {
        const id = `${d.driver}/${d.pool}/${d.device}`;
        lines.push(
          el(
            "li",
            { "data-device": id },
            el(
              "strong",
              {},
              interpolate(gettext("%(claim)s request %(request)s"), {
                claim: shortPod(pending[i] || gettext("claim")),
                request: d.request,
              }),
            ),
            " → ",
            deviceText(id),
          ),
        );
      });
    });
    return lines;
  }

  function renderCycle(d) {
    let panel = document.getElementById("cycle-devices");
    const panels = d.devices;
    if (!panels) {
      if (panel) panel.hidden = true;
      return;
    }
    if (!panel) {
      panel = el("div", { id: "cycle-devices", class: "cycle-devices" });
      const filter = document.getElementById("section-filter");
      if (!filter) return;
      filter.append(panel);
    }
    panel.hidden = false;
    panel.innerHTML = "";
    panel.append(
      el("h4", {}, interpolate(gettext("Devices (DynamicResources) for %(pod)s"), { pod: shortPod(d.pod) })),
    );
    const chosen = d.node ? panels.find((p) => p.node === d.node) : null;
    const lines = chosen ? allocationLines(chosen) : [];
    if (lines.length) {
      panel.append(
        el("p", {}, interpolate(gettext("Allocated on %(node)s:"), { node: d.node })),
        el("ul", { class: "devices-chosen" }, lines),
      );
    } else if (d.node) {
      panel.append(
        el(
          "p",
          { class: "help" },
          interpolate(gettext("Every claim of %(pod)s was allocated before this cycle: no new device on %(node)s."), {
            pod: shortPod(d.pod),
            node: d.node,
          }),
        ),
      );
    } else {
      panel.append(
        el("p", { class: "help" }, gettext("No device was allocated: no node had an allocation for every claim.")),
      );
    }
    const body = el("tbody");
    panels.forEach((p) => {
      const reqs = p.requests.map((r) => {
        if (!r.request) return el("div", {}, `${shortPod(r.claim)}: ${r.note}`);
        const need = typeof r.count === "number" ? r.count : gettext("all");
        const matched = r.matched.map((id) => id.split("/").slice(-2).join("/"));
        const parts = [
          interpolate(gettext("%(claim)s %(request)s (class %(class)s): %(need)s needed, %(matched)s matched"), {
            claim: shortPod(r.claim),
            request: r.request,
            class: r.class,
            need,
            matched: r.matched.length,
          }),
        ];
        if (matched.length) parts.push(` — ${firstFew(matched)}`);
        const why = rejectedText(r.rejected);
        if (why) parts.push(`; ${why}`);
        if (r.note) parts.push(`; ${r.note}`);
        return el("div", {}, parts.join(""));
      });
      const elsewhere = Object.keys(p.elsewhere || {});
      body.append(
        el(
          "tr",
          { "data-node": p.node },
          el("td", {}, p.node),
          el("td", {}, verdictText(p)),
          el(
            "td",
            {},
            reqs,
            elsewhere.length
              ? el(
                  "div",
                  { class: "help" },
                  interpolate(gettext("pools of other nodes: %(pools)s"), { pools: firstFew(elsewhere) }),
                )
              : null,
          ),
        ),
      );
    });
    panel.append(
      el(
        "table",
        { class: "list compact", id: "cycle-devices-nodes" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", {}, gettext("Node")),
            el("th", {}, gettext("DynamicResources Filter")),
            el("th", {}, gettext("Devices per request")),
          ),
        ),
        body,
      ),
    );
    panel.append(
      el(
        "p",
        { class: "help" },
        gettext(
          "Click a DynamicResources cell of the filter matrix for that node's devices one by one: attributes, capacity, the class's and the request's selectors, and who holds a taken device.",
        ),
      ),
    );
  }

  // Reserve and PreBind of DynamicResources in the binding list (drawn by run.js after the
  // panels, and again as binding events arrive) say which devices they keep and write.
  function chosenDevices(d) {
    if (!d || !d.devices || !d.node) return [];
    const panel = d.devices.find((p) => p.node === d.node);
    if (!panel) return [];
    const pending = [];
    panel.requests.forEach((r) => {
      if (r.request && !pending.includes(r.claim)) pending.push(r.claim);
    });
    const out = [];
    (panel.allocation || []).forEach((devices, i) =>
      devices.forEach((x) =>
        out.push(
          interpolate(gettext("%(device)s for %(claim)s"), {
            device: deviceText(`${x.driver}/${x.pool}/${x.device}`),
            claim: shortPod(pending[i] || gettext("a claim")),
          }),
        ),
      ),
    );
    return out;
  }

  const BINDING_NOTES = {
    Reserve: (devices) => interpolate(gettext(" — keeps the allocation Filter found: %(devices)s"), { devices }),
    PreBind: (devices) =>
      interpolate(gettext(" — writes %(devices)s into the claim's status.allocation and reserves it for the pod"), {
        devices,
      }),
  };

  function annotateBinding() {
    const devices = chosenDevices(lastPanels).join("; ");
    if (!devices) return;
    document.querySelectorAll("#binding li[data-point]").forEach((li) => {
      const note = BINDING_NOTES[li.dataset.point];
      if (!note || !li.classList.contains("code-success")) return;
      const old = li.querySelector(".binding-devices");
      if (old) old.remove(); // drawn again once the devices' attributes are known
      if (li.dataset.plugin !== "DynamicResources") return;
      li.append(el("span", { class: "binding-devices" }, note(devices)));
    });
  }

  const bindingList = document.getElementById("binding");
  if (bindingList) new MutationObserver(annotateBinding).observe(bindingList, { childList: true });

  document.addEventListener("run:panels", (event) => {
    lastPanels = event.detail;
    renderCycle(event.detail);
  });
  load();
}
