"""Upstream's reason strings explained in a sentence, for a reader of another language.

A Filter or PostFilter reason stays in upstream's English, as kubectl and the events show it
("Insufficient cpu", "node(s) had untolerated taint(s)"); ``reason_note`` gives the sentence
shown beside it, in the reader's language (through the explanations' translation hook). The
reasons are the plugins' own constants; a few carry a name and are matched by a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from scheduler_core.plugins import (
    node_affinity,
    node_name,
    node_ports,
    node_unschedulable,
    node_volume_limits,
    taint_toleration,
    volume_restrictions,
    volume_zone,
)
from scheduler_core.plugins.dynamic_resources import plugin as dynamic_resources
from scheduler_core.plugins.inter_pod_affinity import state as inter_pod_affinity_state
from scheduler_core.plugins.node_resources import fit
from scheduler_core.plugins.pod_topology_spread import plugin as pod_topology_spread
from scheduler_core.plugins.volume_binding import plugin as volume_binding
from scheduler_core.words import _, gettext_noop, listed, sentences

# Reason -> what it means, for every fixed reason of the in-tree Filter plugins and preemption.
EXACT: Final[dict[str, str]] = {
    fit.ERR_REASON_TOO_MANY_PODS: gettext_noop(
        "The node already runs as many pods as its allocatable pods count allows."
    ),
    node_name.ERR_REASON: gettext_noop(
        "The pod's spec.nodeName names another node, so only that node may take it."
    ),
    node_ports.ERR_REASON: gettext_noop(
        "A hostPort the pod asks for is already used by a pod on this node."
    ),
    node_unschedulable.ERR_REASON_UNSCHEDULABLE: gettext_noop(
        "The node is cordoned (spec.unschedulable) and the pod does not tolerate the "
        "node.kubernetes.io/unschedulable taint."
    ),
    taint_toleration.ERR_REASON_UNTOLERATED: gettext_noop(
        "The node has a NoSchedule or NoExecute taint that no toleration of the pod tolerates."
    ),
    node_affinity.ERR_REASON_POD: gettext_noop(
        "The node's labels do not satisfy the pod's nodeSelector or its required node affinity."
    ),
    node_affinity.ERR_REASON_ENFORCED: gettext_noop(
        "The node's labels do not satisfy the addedAffinity that the profile's NodeAffinity "
        "arguments add to every pod."
    ),
    node_affinity.ERR_REASON_CONFLICT: gettext_noop(
        "The pod's node affinity terms contradict each other, so no node can match them."
    ),
    inter_pod_affinity_state.ERR_REASON_AFFINITY_RULES_NOT_MATCH: gettext_noop(
        "No pod matching the pod's required pod affinity runs in this node's topology domain."
    ),
    inter_pod_affinity_state.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: gettext_noop(
        "A pod matching the pod's required pod anti-affinity already runs in this node's "
        "topology domain."
    ),
    inter_pod_affinity_state.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: gettext_noop(
        "A pod already in this node's topology domain has a required anti-affinity that this "
        "pod matches, so it refuses the pod as a neighbour."
    ),
    pod_topology_spread.ERR_REASON_CONSTRAINTS_NOT_MATCH: gettext_noop(
        "Placing the pod here would make the skew of a DoNotSchedule topology spread "
        "constraint larger than its maxSkew."
    ),
    pod_topology_spread.ERR_REASON_NODE_LABEL_NOT_MATCH: gettext_noop(
        "The node lacks the topologyKey label of a DoNotSchedule topology spread constraint, "
        "so it belongs to no topology domain."
    ),
    volume_binding.ERR_REASON_BIND_CONFLICT: gettext_noop(
        "For an unbound PersistentVolumeClaim of the pod, no available PersistentVolume can be "
        "used from this node and none can be provisioned."
    ),
    volume_binding.ERR_REASON_NODE_CONFLICT: gettext_noop(
        "A PersistentVolume the pod's claims are bound to has a node affinity this node does "
        "not satisfy."
    ),
    volume_binding.ERR_REASON_NOT_ENOUGH_SPACE: gettext_noop(
        "The storage capacity the CSI driver reports for this node is too small for the "
        "volume to provision."
    ),
    volume_binding.ERR_REASON_PV_NOT_EXIST: gettext_noop(
        "A claim of the pod is bound to a PersistentVolume that does not exist."
    ),
    volume_binding.ERR_REASON_UNBOUND_IMMEDIATE: gettext_noop(
        "A claim with volumeBindingMode Immediate is not bound yet: the pod waits until the "
        "volume controller binds it."
    ),
    volume_restrictions.ERR_REASON_DISK_CONFLICT: gettext_noop(
        "A volume of the pod is already mounted by a pod on this node in a way that cannot be "
        "shared."
    ),
    volume_restrictions.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT: gettext_noop(
        "A claim of the pod has the ReadWriteOncePod access mode and another pod already uses it."
    ),
    volume_zone.ERR_REASON_CONFLICT: gettext_noop(
        "A PersistentVolume of the pod lives in a zone or region this node is not in."
    ),
    node_volume_limits.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: gettext_noop(
        "With the pod's volumes the node would exceed how many volumes its CSI driver may attach."
    ),
    dynamic_resources.ERR_REASON_CANNOT_ALLOCATE: gettext_noop(
        "The devices this node reaches cannot serve every request of the pod's ResourceClaims "
        "at once."
    ),
    dynamic_resources.ERR_REASON_NOT_AVAILABLE: gettext_noop(
        "A ResourceClaim of the pod is allocated already, to devices this node cannot reach."
    ),
    dynamic_resources.ERR_REASON_IN_USE: gettext_noop(
        "A ResourceClaim of the pod is reserved for other pods and cannot be shared."
    ),
    "Preemption is not helpful for scheduling": gettext_noop(
        "Evicting lower-priority pods would not let the pod fit on any node."
    ),
    "No preemption victims found for incoming pod": gettext_noop(
        "No pod on this node has a lower priority than the pod: there is nothing to evict."
    ),
    "not eligible due to preemptionPolicy=Never.": gettext_noop(
        "The pod's preemptionPolicy is Never: it waits and never evicts other pods."
    ),
    "not eligible due to a terminating pod on the nominated node.": gettext_noop(
        "A pod evicted for this pod is still terminating on its nominated node: the pod "
        "waits for it instead of preempting again."
    ),
}

# Reasons with a name in them: (pattern, what it means with the name as %(name)s).
PATTERNS: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (
        re.compile(r"^Insufficient (?P<name>\S+)$"),
        gettext_noop(
            "The node's allocatable %(name)s minus what its pods already request is less than "
            "the pod requests (requests count, not actual use)."
        ),
    ),
    (
        re.compile(r"^waiting for scheduling gates: \[(?P<name>.*)\]$"),
        gettext_noop(
            "The pod still has scheduling gates (%(name)s): it is not scheduled until every "
            "gate is removed."
        ),
    ),
    (
        re.compile(r"^persistentvolumeclaim \"(?P<name>[^\"]*)\" not found$"),
        gettext_noop("The pod uses the claim %(name)s, which does not exist."),
    ),
    (
        re.compile(r"^persistentvolumeclaim \"(?P<name>[^\"]*)\" is being deleted$"),
        gettext_noop("The pod uses the claim %(name)s, which is being deleted."),
    ),
    (
        re.compile(r"^storageclass\.storage\.k8s\.io \"(?P<name>[^\"]*)\" not found$"),
        gettext_noop("A claim of the pod names the StorageClass %(name)s, which does not exist."),
    ),
    (
        re.compile(r"device class (?P<name>\S+) does not exist$"),
        gettext_noop(
            "A request of the pod's claims names the DeviceClass %(name)s, which does not exist."
        ),
    ),
)


def reason_note(reason: str) -> str | None:
    """What ``reason`` means, in the reader's language; None for a reason not known here."""
    return reasons_note([reason])


def reasons_note(reasons: Iterable[str]) -> str | None:
    """The notes of several reasons in one paragraph, each once; the reasons of one pattern share
    a note ("Insufficient cpu" and "Insufficient memory": one sentence naming both). None when
    no reason is known here."""
    notes: dict[str, list[str]] = {}  # the note's msgid -> the names it is said of
    for reason in reasons:
        reason = reason.removeprefix("preemption: ")
        if reason in EXACT:
            notes.setdefault(EXACT[reason], [])
            continue
        for pattern, note in PATTERNS:
            m = pattern.search(reason)
            if m is not None:
                names = notes.setdefault(note, [])
                if m.group("name") not in names:
                    names.append(m.group("name"))
                break
    out = [_(note) % {"name": listed(names)} if names else _(note) for note, names in notes.items()]
    return sentences(out) or None
