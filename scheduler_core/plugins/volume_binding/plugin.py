"""VolumeBinding: place pods where their PersistentVolumeClaims are (or can be) bound.

Mirrors plugins/volumebinding (volume_binding.go, binder.go, scorer.go) in kube-scheduler v1.35
(the storage helpers it shares with the other volume plugins: ``plugins/shared/volumes``). Bound
claims must have a PV whose node affinity admits the node; unbound WaitForFirstConsumer claims need
a matching available PV or a class that can provision on the node. Reserve assumes the chosen
bindings in the cluster's objects (the PV gets the claim reference, a claim to provision gets the
selected-node annotation), so later cycles see them, as the assume cache and the API updates of
PreBind do upstream.

Not carried over: in-tree to CSI translation of PVs (it needs CSINode migration annotations) and
CSIStorageCapacity checks (no CSIDriver opts in without those objects). Scoring needs the
StorageCapacityScoring gate, off in v1.35, so PreScore always returns Skip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.events import ClusterEventWithHint
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
    unresolvable,
)
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.objects.labels import (
    NodeSelector,
    Selector,
    SelectorError,
    label_selector,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.volumes import (
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    bind_volume_to_claim,
    binding_mode,
    check_node_affinity,
    claim_storage_class,
    ephemeral_owner_error,
    is_claim_fully_bound,
    is_deleting,
    is_volume_bound_to_claim,
    match_topology_selector_terms,
    pod_claim_names,
    pv_capacity,
    pv_node_affinity,
    pv_storage_class,
    quote,
    storage_request,
    with_annotation,
)
from scheduler_core.plugins.volume_binding import hints
from scheduler_core.words import _, sentence_of

NAME: Final = names.VOLUME_BINDING

ERR_REASON_BIND_CONFLICT: Final = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT: Final = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE: Final = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST: Final = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)
ERR_REASON_UNBOUND_IMMEDIATE: Final = "pod has unbound immediate PersistentVolumeClaims"


_STATE_KEY: Final = NAME


# -- plugin state --------------------------------------------------------------------------------


class _PodVolumes:
    """The bindings and provisionings found for one node (PodVolumes)."""

    __slots__ = ("static_bindings", "dynamic_provisions")

    def __init__(
        self,
        static_bindings: list[tuple[KubeObject, KubeObject]],
        dynamic_provisions: list[KubeObject],
    ) -> None:
        self.static_bindings = static_bindings  # (pv, pvc)
        self.dynamic_provisions = dynamic_provisions


class _CandidatePV:
    """A PV of an unbound claim's class, with what matching reads from it parsed once."""

    __slots__ = ("pv", "capacity", "affinity", "claim_ref", "volume_mode", "vac", "modes")

    def __init__(self, pv: KubeObject) -> None:
        self.pv = pv
        self.capacity = pv_capacity(pv)
        self.affinity = pv_node_affinity(pv)
        self.claim_ref = pv.spec.get("claimRef")
        self.volume_mode = pv.spec.get("volumeMode") or "Filesystem"
        self.vac = pv.spec.get("volumeAttributesClassName") or ""
        self.modes = frozenset(pv.spec.get("accessModes") or ())


class _State:
    """stateData: shared by every clone of the cycle state, as upstream shares its pointer."""

    __slots__ = (
        "all_bound",
        "by_node",
        "bound_claims",
        "delay_claims",
        "pvs_by_class",
        "has_static_bindings",
        "assumed",
    )

    def __init__(
        self,
        bound_claims: list[tuple[KubeObject, KubeObject | None, NodeSelector | None]] | None = None,
        delay_claims: list[KubeObject] | None = None,
        pvs_by_class: dict[str, list[_CandidatePV]] | None = None,
    ) -> None:
        self.all_bound = False
        self.by_node: dict[str, _PodVolumes] | None = {} if bound_claims is not None else None
        # (claim, its PV or None when missing, the PV's node affinity)
        self.bound_claims = bound_claims or []
        self.delay_claims = delay_claims or []
        self.pvs_by_class = pvs_by_class or {}
        self.has_static_bindings = False
        # objects replaced by Reserve, to put back on Unreserve: (kind, key, before, after)
        self.assumed: list[tuple[str, str, KubeObject, KubeObject]] = []

    def clone(self) -> StateData:
        return self


def _read(state: CycleState) -> _State:
    value = state.get(_STATE_KEY)
    if value is None:
        raise KeyError("not found")
    if not isinstance(value, _State):
        raise TypeError("unable to convert state into stateData")
    return value


# -- the plugin ----------------------------------------------------------------------------------


class VolumeBinding:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    # PreFilter

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return hints.events_to_register()

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.volumes:
            state.write(_STATE_KEY, _State())
            return None, SKIP
        objs = self.handle.snapshot.objects
        claims = pod_claim_names(pod)
        if not claims:
            state.write(_STATE_KEY, _State())
            return None, SKIP
        found: list[KubeObject] = []
        for claim_name, ephemeral, _source in claims:
            pvc = objs.pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None:
                if ephemeral:
                    return None, unresolvable(
                        "waiting for ephemeral volume controller to create the "
                        f"persistentvolumeclaim {quote(claim_name)}"
                    )
                return None, unresolvable(f"persistentvolumeclaim {quote(claim_name)} not found")
            if pvc.status.get("phase") == "Lost":
                return None, unresolvable(
                    f"persistentvolumeclaim {quote(pvc.name)} bound to non-existent "
                    f"persistentvolume {quote(str(pvc.spec.get('volumeName') or ''))}"
                )
            if is_deleting(pvc):
                return None, unresolvable(
                    f"persistentvolumeclaim {quote(pvc.name)} is being deleted"
                )
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err is not None:
                    return None, unresolvable(err)
            found.append(pvc)

        bound: list[tuple[KubeObject, KubeObject | None, NodeSelector | None]] = []
        delay: list[KubeObject] = []
        immediate = False
        for pvc in found:
            if is_claim_fully_bound(pvc):
                pv = objs.pvs.get(str(pvc.spec.get("volumeName")))
                bound.append((pvc, pv, pv_node_affinity(pv) if pv is not None else None))
                continue
            class_name = claim_storage_class(pvc)
            sc = objs.storage_classes.get(class_name) if class_name else None
            delayed = sc is not None and binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER
            if delayed and not pvc.spec.get("volumeName"):
                delay.append(pvc)
            else:
                immediate = True
        if immediate:
            return None, unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        pvs_by_class: dict[str, list[_CandidatePV]] = {}
        for pvc in delay:
            class_name = claim_storage_class(pvc)
            if class_name not in pvs_by_class:
                pvs_by_class[class_name] = [
                    _CandidatePV(pv)
                    for pv in objs.pvs.values()
                    if pv_storage_class(pv) == class_name
                ]
        state.write(_STATE_KEY, _State(bound, delay, pvs_by_class))
        return None, SUCCESS

    # Filter

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        try:
            s = _read(state)
        except (KeyError, TypeError) as err:
            return error(str(err).strip("'\""))
        node = node_info.node
        try:
            volumes, reasons = self._find_pod_volumes(s, node.name, node.labels)
        except _BinderError as err:
            return error(str(err))
        if reasons:
            return unresolvable(*reasons)
        if s.by_node is not None:
            s.by_node[node.name] = volumes
        if volumes.static_bindings:
            s.has_static_bindings = True
        return SUCCESS

    def node_volumes(self, state: CycleState, node_info: NodeInfo) -> dict[str, Any] | None:
        """What Filter weighs on the node: the bound claims (their PV and whether its node
        affinity matches), the unbound claims' chosen PVs and those left to provision."""
        try:
            s = _read(state)
            labels = node_info.node.labels
            volumes, reasons = self._find_pod_volumes(s, node_info.node.name, labels)
        except (KeyError, TypeError, _BinderError):
            return None
        return {
            "boundClaims": [
                {
                    "claim": claim.key,
                    "pv": pv.name if pv is not None else None,
                    "nodeAffinityMatches": pv is not None and check_node_affinity(affinity, labels),
                }
                for claim, pv, affinity in s.bound_claims
            ],
            "unboundClaims": [claim.key for claim in s.delay_claims],
            "staticBindings": {claim.key: pv.name for pv, claim in volumes.static_bindings},
            "toProvision": [claim.key for claim in volumes.dynamic_provisions],
            "reasons": reasons,
        }

    def _find_pod_volumes(
        self, s: _State, node_name: str, node_labels: Mapping[str, str]
    ) -> tuple[_PodVolumes, list[str]]:
        """FindPodVolumes: the node's bindings and provisionings, or the conflict reasons."""
        bound_ok = True
        unbound_ok = True
        sufficient = True
        pvs_found = True
        static: list[tuple[KubeObject, KubeObject]] = []
        dynamic: list[KubeObject] = []

        for _claim, pv, affinity in s.bound_claims:
            if pv is None:
                pvs_found = False
                break
            if not check_node_affinity(affinity, node_labels):
                bound_ok = False
                break

        if s.delay_claims:
            to_match: list[KubeObject] = []
            to_provision: list[KubeObject] = []
            selected_elsewhere = False
            for claim in s.delay_claims:
                selected = claim.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node_name:
                        selected_elsewhere = True
                        break
                    to_provision.append(claim)
                else:
                    to_match.append(claim)
            if selected_elsewhere:
                unbound_ok = False
            else:
                if to_match:
                    unbound_ok, static, unmatched = self._find_matching_volumes(
                        s, to_match, node_labels
                    )
                    to_provision.extend(unmatched)
                if to_provision:
                    unbound_ok, sufficient, dynamic = self._check_provisions(
                        to_provision, node_labels
                    )

        reasons: list[str] = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return _PodVolumes(static, dynamic), reasons

    def _find_matching_volumes(
        self, s: _State, claims: list[KubeObject], node_labels: Mapping[str, str]
    ) -> tuple[bool, list[tuple[KubeObject, KubeObject]], list[KubeObject]]:
        """findMatchingVolumes: smallest claims first, each PV chosen at most once."""
        claims = sorted(claims, key=storage_request)
        chosen: set[str] = set()
        bindings: list[tuple[KubeObject, KubeObject]] = []
        unmatched: list[KubeObject] = []
        found_all = True
        for claim in claims:
            candidates = s.pvs_by_class.get(claim_storage_class(claim), [])
            pv = _find_matching_volume(claim, candidates, node_labels, chosen)
            if pv is None:
                unmatched.append(claim)
                found_all = False
                continue
            chosen.add(pv.name)
            bindings.append((pv, claim))
        return found_all, bindings, unmatched

    def _check_provisions(
        self, claims: list[KubeObject], node_labels: Mapping[str, str]
    ) -> tuple[bool, bool, list[KubeObject]]:
        """checkVolumeProvisions: (provisioning possible, enough storage, claims to provision)."""
        objs = self.handle.snapshot.objects
        out: list[KubeObject] = []
        for claim in claims:
            class_name = claim_storage_class(claim)
            if not class_name:
                raise _BinderError(f"no class for claim {quote(claim.key)}")
            sc = objs.storage_classes.get(class_name)
            if sc is None:
                raise _BinderError(f"failed to find storage class {quote(class_name)}")
            provisioner = str(sc.raw.get("provisioner") or "")
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(sc.raw.get("allowedTopologies"), node_labels):
                return False, True, []
            # Capacity is only checked for CSI drivers that opt in through a CSIDriver object.
            out.append(claim)
        return True, True, out

    # PreScore and Score

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        # Without StorageCapacityScoring (off in v1.35) there is no scorer.
        return SKIP

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        return 0, SUCCESS

    # Reserve, Unreserve, PreBind

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        try:
            s = _read(state)
        except (KeyError, TypeError) as err:
            return error(str(err).strip("'\""))
        volumes = s.by_node.get(node_name) if s.by_node is not None else None
        if volumes is None:
            s.all_bound = True  # the pod references no claim
            return SUCCESS
        objs = self.handle.snapshot.objects
        if self._pod_volumes_bound(pod):
            s.all_bound = True
            return SUCCESS
        new_bindings: list[tuple[KubeObject, KubeObject]] = []
        for pv, pvc in volumes.static_bindings:
            new_pv, dirty = bind_volume_to_claim(pv, pvc)
            if dirty:
                before = objs.pvs.get(pv.name, pv)
                objs.pvs[pv.name] = new_pv
                s.assumed.append(("pv", pv.name, before, new_pv))
            new_bindings.append((new_pv, pvc))
        provisions: list[KubeObject] = []
        for pvc in volumes.dynamic_provisions:
            clone = with_annotation(pvc, ANN_SELECTED_NODE, node_name)
            before = objs.pvcs.get(pvc.key, pvc)
            objs.pvcs[pvc.key] = clone
            s.assumed.append(("pvc", pvc.key, before, clone))
            provisions.append(clone)
        volumes.static_bindings = new_bindings
        volumes.dynamic_provisions = provisions
        s.all_bound = False
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        try:
            s = _read(state)
        except (KeyError, TypeError):
            return
        objs = self.handle.snapshot.objects
        for kind, key, before, after in reversed(s.assumed):
            store = objs.pvs if kind == "pv" else objs.pvcs
            if store.get(key) is after:
                store[key] = before
        s.assumed.clear()

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        try:
            s = _read(state)
        except (KeyError, TypeError) as err:
            return error(str(err).strip("'\""))
        if s.all_bound:
            return SUCCESS
        if s.by_node is None or node_name not in s.by_node:
            return error(f"no pod volume found for node {quote(node_name)}")
        # The API updates are the objects Reserve already wrote into the cluster. Completing the
        # binding is the PV controller's job, outside the scheduler.
        return SUCCESS

    def _pod_volumes_bound(self, pod: Pod) -> bool:
        """arePodVolumesBound over the cluster's current claims."""
        objs = self.handle.snapshot.objects
        for claim_name, _ephemeral, _source in pod_claim_names(pod):
            pvc = objs.pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None or not is_claim_fully_bound(pvc):
                return False
        return True

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        found = self.node_volumes(view.state, view.node_info)
        if found is None:
            return {}, "", ""
        texts = []
        for b in found["boundClaims"]:
            where = {"claim": b["claim"], "pv": b["pv"]}
            if b["pv"] is None:
                line = _("%(claim)s is bound to a PersistentVolume that does not exist")
            elif b["nodeAffinityMatches"]:
                line = _("%(claim)s is bound to %(pv)s, whose node affinity matches")
            else:
                line = _("%(claim)s is bound to %(pv)s, whose node affinity does not match")
            texts.append(line % where)
        for claim in found["unboundClaims"]:
            pv = found["staticBindings"].get(claim)
            if pv is not None:
                line = _("%(claim)s would bind to the available volume %(pv)s")
            elif claim in found["toProvision"]:
                line = _("%(claim)s would be provisioned by its StorageClass")
            else:
                line = _("%(claim)s finds no volume to bind on this node")
            texts.append(line % {"claim": claim, "pv": pv})
        formula = _(
            "bound claims' PVs reachable from the node; each unbound claim matched to an available "
            "PV or provisionable"
        )
        return found, formula, sentence_of(texts)


class _BinderError(Exception):
    """An error of the volume binder: the Filter answers with an Error status."""


def _find_matching_volume(
    claim: KubeObject,
    candidates: Sequence[_CandidatePV],
    node_labels: Mapping[str, str],
    excluded: set[str],
) -> KubeObject | None:
    """FindMatchingVolume for a delayed-binding claim and a node: prebound PV or smallest fit."""
    requested = storage_request(claim)
    requested_class = claim_storage_class(claim)
    selector_raw = claim.spec.get("selector")
    selector: Selector | None = None
    if selector_raw is not None:
        try:
            selector = label_selector(selector_raw)
        except SelectorError as err:
            raise _BinderError(
                f"error creating internal label selector for claim: {claim.key}: {err}"
            ) from err
    claim_mode = claim.spec.get("volumeMode") or "Filesystem"
    claim_vac = claim.spec.get("volumeAttributesClassName") or ""
    claim_modes = tuple(claim.spec.get("accessModes") or ())
    smallest: _CandidatePV | None = None
    for c in candidates:
        pv = c.pv
        if pv.name in excluded:
            continue
        if c.claim_ref is not None and not is_volume_bound_to_claim(pv, claim):
            continue
        if c.capacity < requested:
            continue
        if c.volume_mode != claim_mode:
            continue
        if c.vac != claim_vac:
            continue
        if is_deleting(pv):
            continue
        affinity_ok = check_node_affinity(c.affinity, node_labels)
        if c.claim_ref is not None:
            # Prebound to this claim: it is the only candidate.
            return pv if affinity_ok else None
        if pv.status.get("phase") != "Available":
            continue
        if selector is not None and not selector.matches(pv.labels):
            continue
        if pv_storage_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        if any(m not in c.modes for m in claim_modes):
            continue
        if smallest is None or smallest.capacity > c.capacity:
            smallest = c
    return smallest.pv if smallest is not None else None


def new(args: Any, handle: Handle) -> VolumeBinding:
    return VolumeBinding(handle)
