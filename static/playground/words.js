// Names listed in a sentence as the page's language lists them: ", " in English, the
// enumeration comma "、" in Chinese (the catalog's translation of ", ").
(function () {
  "use strict";
  window.listed = (items) => items.join(gettext(", "));
})();
