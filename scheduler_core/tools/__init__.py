"""Tools that drive the engine from outside a live scheduler.

- ``case``: run a conformance or bench case (cluster, configuration, queue of pods): CaseRun;
- ``loop_case``: run a loop case (cluster changes in steps) through the Scheduler: loop_case;
- ``rebuild``: compute one cycle of a run again from its start and the bindings before it;
- ``gcpause``: keep Python's cycle collector off the engine's state while it is built and used.

The command lines ``python -m scheduler_core.conformance`` and ``python -m scheduler_core.bench``
are the modules ``conformance`` and ``bench`` at the package root.
"""
