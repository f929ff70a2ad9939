"""Custom plugins written in the browser: CEL expressions stored per user, usable in any profile.

The engine side is ``scheduler_core.custom.plugin``.

- ``urls``: its URL routes, included by ``playground/urls.py``;
- ``models``: ``CustomPlugin``, one user's CEL plugin definition (demo ones have no owner);
- ``forms``: one CEL expression per extension point, compiled on clean;
- ``services``: writes, demo examples, and the registry a profile's owner resolves names with;
- ``selectors``: reads: the custom plugins a user may see, and their export documents;
- ``views``: the HTTP layer: list, define, edit, share and delete; a live compile check;
- ``demo``: the shipped custom plugins' demo cluster and profile.
"""
