"""Runs of the playground: one simulation of a profile over a cluster snapshot, and all about it.

- ``services``: start, command, cancel and execute a run (the engine, storage, broadcasts);
- ``tasks``: the Celery task that executes a run, and how a new run reaches a worker;
- ``selectors``: who may watch or command a run, and its stored data;
- ``stream``: channel groups and websocket messages; ``consumers``/``routing``: the websocket;
- ``charts``: plain data for the run page's panels; ``views``: the run pages and JSON endpoints.

The models (``Run``, ``RunEvent``, ``RunCommand``) stay in ``playground.models`` for migrations.
"""
