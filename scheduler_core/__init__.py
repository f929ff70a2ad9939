"""scheduler_core: a faithful, pure-Python re-implementation of kube-scheduler v1.35.

The public API, importable from the package itself::

    from scheduler_core import Scheduler, load_config

    sched = Scheduler(load_config(config_yaml), manifests, on_event=events.append)
    sched.run_until_idle()
    sched.placements()  # pod key -> node name, or None while pending

- configuration: ``load_config`` (defaults, validation), ``decode_config`` (no defaults),
  ``KubeSchedulerConfiguration``, ``ConfigError``;
- the loop: ``Scheduler`` (built from manifests, ``Features`` its feature gates), ``Outcome``,
  ``WaitingPod``, ``CycleRecord`` (one scheduling cycle's record), ``SimulatedClock`` /
  ``RealClock``;
- plugins: ``in_tree_registry`` and ``Registry`` (merge one to add out-of-tree plugins);
- the decision record: ``Event`` (every event type derives from it), ``cycle_events`` (a cycle's
  record made into events), ``fold_cycle`` (events folded into a conformance trace cycle);
- conformance: ``trace_case`` (a case's trace, as ``python -m scheduler_core.conformance``
  prints it), ``CaseRun`` (drive a case cycle by cycle) and ``loop_case`` (a loop case's
  outcomes, through the Scheduler);
- errors: ``SchedulerCoreError``, ``ManifestError``.

Packages and modules (see each package's docstring for its modules):

- ``objects``: views of Kubernetes objects, labels and quantities;
- ``config``: KubeSchedulerConfiguration (types, wire format, defaults, validation, migration);
- ``framework``: the scheduling framework (interfaces, runtime, cluster events, preemption);
- ``plugins``: the in-tree plugins and their registry;
- ``custom``: custom plugins written in CEL;
- ``dra``: Dynamic Resource Allocation (claims, devices, the allocator);
- ``workloads``: the controllers' part of an import (Deployments, Jobs, ... into Pods);
- ``queue``: the scheduling queue;
- ``loop``: the scheduler, one cycle, node sampling, the cluster;
- ``record``: the decision record (events, per-node verdict columns);
- ``extenders``: HTTP scheduler extenders;
- ``explain``: explanations of decisions, computed on demand;
- ``tools``: running cases, rebuilding a cycle, pausing the cycle collector;
- ``errors``, ``clock``, ``gosort``: exceptions, injectable clocks, Go's sort.Slice;
- ``words``: the translation hook of every sentence the engine writes (explanations, reasons);
- ``features``: the feature gates (``Features``, v1.35's defaults and the traces' set);
- ``conformance``, ``bench``: the command lines ``python -m scheduler_core.conformance`` and
  ``python -m scheduler_core.bench``; ``python -m scheduler_core`` runs ``simulate``.
"""

from __future__ import annotations

from scheduler_core.clock import RealClock, SimulatedClock
from scheduler_core.config import (
    ConfigError,
    KubeSchedulerConfiguration,
    decode_config,
    load_config,
)
from scheduler_core.conformance import loop_case, trace_case
from scheduler_core.errors import ManifestError, SchedulerCoreError
from scheduler_core.features import Features
from scheduler_core.framework.registry import Registry
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Outcome, Scheduler, WaitingPod
from scheduler_core.plugins import in_tree_registry
from scheduler_core.record.cycle_events import cycle_events, fold_cycle
from scheduler_core.record.events import Event
from scheduler_core.tools.case import CaseRun

__all__ = [
    "CaseRun",
    "ConfigError",
    "CycleRecord",
    "Event",
    "Features",
    "KubeSchedulerConfiguration",
    "ManifestError",
    "Outcome",
    "RealClock",
    "Registry",
    "Scheduler",
    "SchedulerCoreError",
    "SimulatedClock",
    "WaitingPod",
    "cycle_events",
    "decode_config",
    "fold_cycle",
    "in_tree_registry",
    "load_config",
    "loop_case",
    "trace_case",
]
