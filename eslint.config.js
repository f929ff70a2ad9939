// ESLint for the playground's browser scripts (static/, ES modules served as they are) and their
// node unit tests (tests/js/). Formatting is Prettier's (.prettierrc.json), not ESLint's.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      // Plotly is the one classic global script the pages load (plotly.min.js, before the modules).
      globals: { ...globals.browser, Plotly: "readonly" },
    },
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      // A helper named like another in scope once called itself (a stack overflow on every DRA cycle).
      "no-shadow": ["error", { builtinGlobals: false, hoist: "functions" }],
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];
