"""VolumeBinding: fit a pod's claims to bound, matching or provisionable volumes on a node.

Mirrors plugins/volumebinding in kube-scheduler v1.35. Modules:

- ``plugin``: the plugin (PreFilter, Filter, Reserve, PreBind, Score) and its ``new`` factory;
- ``hints``: the cluster events it registers and their queueing hints.

The claim and volume helpers it shares with the other volume plugins are in
``scheduler_core.plugins.shared.volumes``.
"""
