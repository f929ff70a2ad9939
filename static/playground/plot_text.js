// Every string a user wrote (node, pod and profile names, nicknames, free-text answers, custom
// plugins' names, labels) reaches a Plotly chart through plotText: Plotly reads its text as
// pseudo-HTML (<a href>, <br>, <b>, <span style>), so a name like "<a href=...>" would draw a
// link. plotText makes it plain text: Plotly shows the entities as the characters they stand for.

const ENTITIES = { "&": "&#38;", "<": "&lt;", ">": "&gt;" };

export function plotText(value) {
  return String(value).replace(/[&<>]/g, (c) => ENTITIES[c]);
}

// The strings of a figure the server built from user data, made plain text: every trace's
// categories, text and names, the titles, tick texts and annotations. Templates
// (hovertemplate, texttemplate) are the server's own markup and stay as they are.
const TRACE_TEXT = ["x", "y", "text", "name", "labels", "hovertext"];

function plainList(value) {
  if (Array.isArray(value)) return value.map(plainList);
  return typeof value === "string" ? plotText(value) : value;
}

function plainTitle(title) {
  if (typeof title === "string") return plotText(title);
  if (title && typeof title.text === "string") return { ...title, text: plotText(title.text) };
  return title;
}

export function plainFigure(figure) {
  const data = (figure.data || []).map((trace) => {
    const out = { ...trace };
    TRACE_TEXT.forEach((key) => {
      if (key in out) out[key] = plainList(out[key]);
    });
    return out;
  });
  const layout = { ...(figure.layout || {}) };
  Object.keys(layout).forEach((key) => {
    const part = layout[key];
    if (key === "title") layout.title = plainTitle(part);
    else if (/^[xy]axis\d*$/.test(key) && part) {
      layout[key] = { ...part };
      if (part.title !== undefined) layout[key].title = plainTitle(part.title);
      if (part.ticktext) layout[key].ticktext = plainList(part.ticktext);
      if (part.tickvals) layout[key].tickvals = plainList(part.tickvals);
      if (part.categoryarray) layout[key].categoryarray = plainList(part.categoryarray);
    }
  });
  if (layout.annotations) {
    layout.annotations = layout.annotations.map((a) => ({
      ...a,
      text: typeof a.text === "string" ? plotText(a.text) : a.text,
      ...(typeof a.x === "string" ? { x: plotText(a.x) } : {}),
      ...(typeof a.y === "string" ? { y: plotText(a.y) } : {}),
    }));
  }
  return { ...figure, data, layout };
}

// Draws a figure: the page's charts all go through here (Plotly is the pages' classic global).
export const PLOT_CONFIG = { displayModeBar: false, responsive: true };

export function draw(node, figure) {
  return Plotly.react(node, figure.data, figure.layout, PLOT_CONFIG);
}

// A figure built by the server (usage, compare): drawn as plain text.
export function drawServerFigure(node, figure) {
  return draw(node, plainFigure(figure));
}
