"""PodTopologySpread: spread matching pods evenly across topology domains.

Mirrors plugins/podtopologyspread in kube-scheduler v1.35. Modules:

- ``plugin``: the plugin (PreFilter, Filter, PreScore, Score, NormalizeScore, the add/remove-pod
  hooks preemption uses) and its ``new`` factory;
- ``constraints``: reading a pod's constraints, the system defaults and the default selector;
- ``counting``: counting matching pods per domain and the skew checks over them;
- ``hints``: the cluster events it registers and their queueing hints;
- ``explain``: its Filter and Score explained (not upstream): each constraint's counts and
  skew, and the score terms.
"""
