"""A run as it happens, over websockets: messages out of the worker, to every reader of the run.

- ``stream``: channel groups and websocket messages, and the broadcast helpers the worker uses;
- ``catchup``: stored stream envelopes read once per page for the websocket readers;
- ``consumers``: the run websocket (``ws/runs/<ref>/``) and the refusal of any other path;
- ``routing``: the run's websocket route (the root list is ``playground/routing.py``).
"""
