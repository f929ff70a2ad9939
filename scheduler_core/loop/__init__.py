"""The scheduling loop: the scheduler, one cycle, node sampling, the cluster and its changes.

Mirrors pkg/scheduler/schedule_one.go, scheduler.go and backend/cache of kube-scheduler v1.35.

- ``scheduler``: Scheduler, the loop (schedule_one: the scheduling then the binding cycle);
- ``cycle``: one scheduling cycle (PreFilter to host selection) and its CycleRecord;
- ``batching``: opportunistic batching (pod signatures, a like pod taking the next ranked node);
- ``sampling``: how many nodes Filter looks at, from where, and the walk that stops early;
- ``cluster``: the cluster the engine schedules into (a stand-in for the scheduler cache);
- ``node_changes``: adding, updating and removing nodes between cycles, with their events;
- ``pod_changes``: pods added, updated and deleted, and preemption victims evicted;
- ``pod_groups``: Workloads and the gangs their pods form (the workload manager).
"""
