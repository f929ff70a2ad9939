"""The decision record: what the engine did, as typed events and per-node columns.

- ``events``: one typed, JSON-ready event per extension point and per queue action;
- ``cycle_events``: a cycle's record made into its events, and folded back;
- ``verdicts``: one cycle's per-node results as columns, made into dicts on demand;
- ``event_columns``: per-node event fields that keep the columns they were made from.
"""
