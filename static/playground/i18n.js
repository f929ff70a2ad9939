// Words in the page's language: Django's JavaScript catalog (/jsi18n/, a classic script that
// base.html loads before every module) defines window.gettext and friends. Without it (a page
// that does not load it, or node's unit tests) the words stay as written. The catalog is looked
// up at each call, not when this module loads, so the order of the scripts cannot matter.

const catalog = () => (typeof window === "undefined" ? {} : window);

export function gettext(text) {
  const c = catalog();
  return typeof c.gettext === "function" ? c.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  const c = catalog();
  if (typeof c.ngettext === "function") return c.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

export function pgettext(context, text) {
  const c = catalog();
  return typeof c.pgettext === "function" ? c.pgettext(context, text) : text;
}

// "%(name)s" filled from `values` (named interpolation only: every caller names its values).
export function interpolate(format, values) {
  const c = catalog();
  if (typeof c.interpolate === "function") return c.interpolate(format, values, true);
  return format.replace(/%\((\w+)\)s/g, (_m, key) => String(values[key]));
}

// Names listed in a sentence as the page's language lists them: ", " in English, the
// enumeration comma "、" in Chinese (the catalog's translation of ", ").
export function listed(items) {
  return items.join(gettext(", "));
}
