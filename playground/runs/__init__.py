"""Runs of the playground: one simulation of a profile over a cluster snapshot, and all about it.

A run goes through the layers below once each: ``http/`` (the Run button) -> ``services``
(stored, counted, queued through ``execution/dispatch``) -> ``execution/`` (a worker runs the
engine) -> ``storage/`` (cycle rows) and ``live/`` (websocket messages) -> ``panels/`` (a
cycle's page data) -> ``http/`` (``cycles/<n>.json``) -> the chart in the browser.

- ``services``: start, command, cancel and execute a run (the engine, storage, broadcasts);
- ``selectors``: who may watch or command a run, and its stored data;
- ``try_change``: "try a change": a finished run re-run with one profile change;
- ``said``: sentences the worker stores in English, shown in the reader's language;
- ``refs``: signed run references in URLs and websocket paths;
- ``gates``: a run's feature gates: v1.35's defaults, their help, the Features a run runs with;
- ``live/``: the run as it happens: channel groups, websocket messages, the run websocket;
- ``execution/``: executing a run: the Celery task, the runners, the engine loop, fair shares;
- ``storage/``: a run's cycles and small events as rows: written in bulk, read back as columns;
- ``panels/``: page data built from stored records: a cycle's panels, run-wide ones, compare;
- ``explain/``: a stored run replayed to explain a decision, and the explain check;
- ``http/``: the run pages and JSON endpoints, their forms and URL routes.

- ``models``: ``Run`` and what it records (snapshot, events, cycles, commands, inputs).
"""
