"""A stored run's decisions explained: the run replayed by the engine up to one cycle.

- ``replay``: a stored run played again up to one of its cycles, exactly as it went;
- ``views``: ``cycles/<n>/explain.json``: one decision explained on demand.

The check that explains every kind of run is ``playground/management/explain_check.py``.
"""
