"""The scheduling framework: what plugins implement and what runs them.

Mirrors pkg/scheduler/framework (and staging k8s.io/kube-scheduler/framework) of kube-scheduler
v1.35. Plugins import this package, never the queue or the loop.

- ``interfaces``: one Protocol per extension point, and the Handle plugins receive;
- ``status``: Code and Status; ``cycle_state``: CycleState; ``types``: NodeInfo, Snapshot and
  the small result types; ``columns``: node state as columns for the batch paths;
  ``rejections``: Filter's per-node statuses, kept as runs until a node is looked up;
- ``events``: ClusterEvent, ActionType, QueueingHint and the well-known events;
- ``registry``: plugin name -> factory; ``build``: a profile's plugins made and sorted into
  extension points; ``score_weights``: the weight check NewFramework runs;
- ``runtime``: Framework, running each extension point; ``plugin_scores``: one Score plugin's
  results; ``binding_points``: Reserve, Permit, PreBind, Bind, PostBind;
- ``preemption``: the preemption evaluator DefaultPreemption uses (framework/preemption);
- ``explaining``: what a plugin's explanation of its own verdict or score reads and returns
  (not upstream: the Protocols ``ExplainsFilter`` and ``ExplainsScore`` the plugins implement
  beside their rules, so ``explain`` calls them without knowing the plugin).
"""
