"""Custom plugins written in the browser: CEL expressions stored per user, usable in any profile.

models (CustomPlugin), forms (one expression per extension point, compiled as you type),
services (writes, demo examples, placeholders, the registry a user's runs use), selectors (reads
and export documents) and views. The engine side is ``scheduler_core.custom.plugin``.
"""
