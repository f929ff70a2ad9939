"""InterPodAffinity: place a pod near, or away from, pods that match its terms.

Mirrors plugins/interpodaffinity in kube-scheduler v1.35. Modules:

- ``plugin``: the plugin (PreFilter, Filter, PreScore, Score, NormalizeScore, the add/remove-pod
  hooks preemption uses) and its ``new`` factory;
- ``state``: the cycle state it writes (terms, topology counts, score maps), its reasons and keys;
- ``tally``: the batch paths over the snapshot's node and pod columns (filter and score counts);
- ``hints``: the cluster events it registers and their queueing hints;
- ``explain``: its Filter and Score explained (not upstream): matching pods per domain for
  each required term, and who adds what to a score.
"""
