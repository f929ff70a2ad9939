"""Executing a run: how a stored run reaches a worker, and what the worker does with it.

- ``dispatch``: ``enqueue_run`` as services call it (registered by ``tasks``), ``stop_holder``;
- ``tasks``: the Celery task that executes a run, the embedded runner pool, the lease watchdog;
- ``runners``: embedded mode's runner threads, shared fairly between owners;
- ``handoff``: embedded mode: a new run's snapshot handed to its execution in this process;
- ``recovery``: runs handed to a worker again (at start-up, and when a lease ran out);
- ``limits``: fair shares of the runners, and how many runs one owner may have at once;
- ``attempt``: one attempt at a run: the engine on a simulated clock, records, commands, the end;
- ``midcycle``: inside a long scheduling cycle: the lease renewed and a cancel honoured;
- ``outcome``: what a run's end says; a run that keeps erroring is stopped;
- ``tape``: everything that reached the engine from outside while the run went, in order;
- ``script``: a script of cluster changes between cycles: parsed, checked and applied;
- ``sample_extender``: the lessons' sample HTTP extender, served by the process that runs a run.
"""
