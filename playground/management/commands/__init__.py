"""One module per ``manage.py`` command.

- ``load_demo``: create or refresh the built-in clusters, profiles and lessons;
- ``serve``: migrate, load the demo content and run daphne (embedded mode, one process);
- ``requeue_runs``: hand pending runs to the broker again (full stack, at web start);
- ``import_cluster``: a cluster from a file of any size;
- ``lessons``: list the course, or (``--check``) verify every answer against the engine;
- ``explain_runs``: (``--check``) every kind of run made and explained cell by cell;
- ``translations``: (``--check``) every marked string translated in every language;
- ``bench_run``: how fast a run is, end to end;
- ``bench_class``: a live class at scale.
"""
