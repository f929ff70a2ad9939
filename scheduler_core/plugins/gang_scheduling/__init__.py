"""GangScheduling: the pods of a gang are placed all together or not at all.

Mirrors plugins/gangscheduling in kube-scheduler v1.35 (alpha, behind the GenericWorkload and
GangScheduling feature gates).

- ``plugin``: the plugin (PreEnqueue, Reserve, Permit, its queueing hints);
- ``workload``: reading a pod's ``spec.workloadRef`` and a Workload's pod groups.
"""
