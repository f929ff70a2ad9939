"""Scheduler profiles: the editor, export, and the import of older configurations.

- ``urls``: its URL routes, included by ``playground/urls.py``;
- ``models``: ``Profile``, a whole configuration as its user wrote it;
- ``forms``: one profile's plugin sets and args, and the whole configuration;
- ``importing``: a configuration of any version (or a Policy), with custom plugin documents;
- ``services``: writes: each stored configuration passes upstream validation first;
- ``selectors``: reads: which profiles a user may see, and their export;
- ``views``: the HTTP layer: the editor, export and deletion, the effective configuration, import.
"""
