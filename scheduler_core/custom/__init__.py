"""Custom plugins written as CEL expressions, and the CEL machinery that keeps them cheap.

Not an upstream package: the playground's way to write an out-of-tree plugin without Go. Its
modules:

- ``plugin``: ``CustomPluginSpec``, the plugin classes built from a definition, their factory
  and registry (``new_factory``, ``registry_of``) and the run's ``Meter``;
- ``values``: what expressions see as ``pod`` and ``node``;
- ``examples``: the definitions the playground ships as demo custom plugins (data only);
- ``sandbox``: where every expression is evaluated: a worker process with hard CPU and memory
  limits (``python -m scheduler_core.custom.sandbox`` is the worker), used by DRA selectors too;
- ``cel_parse``: the lexer and parser of the CEL subset, into the tree the analysis walks;
- ``cel_cost``: the cost bound of an expression over that tree, and the budgets it is held to
  (also used by DRA device selectors, ``scheduler_core.dra.cel_env``);
- ``cel_bench``: ``python -m scheduler_core.custom.cel_bench``, the measurements behind the
  budgets (reads the wall clock: not part of the engine).

Nothing here imports the ``cel`` extension at package import: only ``plugin``, ``cel_bench``
and the sandbox's worker do.
"""
