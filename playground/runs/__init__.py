"""Runs of the playground: one simulation of a profile over a cluster snapshot, and all about it.

- ``services``: start, command, cancel and execute a run (the engine, storage, broadcasts);
- ``tasks``: the Celery task that executes a run, and how a new run reaches a worker;
- ``selectors``: who may watch or command a run, and its stored data;
- ``stream``: channel groups and websocket messages; ``consumers``/``routing``: the websocket;
- ``execution``: one attempt at a run: the engine, the cycle records, commands, the end;
- ``columns``: a scheduling cycle's events as compact columns (one ``RunCycle`` row each);
- ``charts``: one cycle's panels; ``overview``: the run-wide ones (cycle list, queue, usage);
- ``paging``: a cycle's panels cut to one page and top N for ``cycles/<n>.json``;
- ``views``: the run pages and JSON endpoints.

The models (``Run``, ``RunCycle``, ``RunEvent``, ``RunCommand``) stay in ``playground.models``
for migrations.
"""
