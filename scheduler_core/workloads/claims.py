"""What the resourceclaim controller does for a pod that names a ResourceClaimTemplate.

On a real cluster the controller creates one ResourceClaim per such entry of
``spec.resourceClaims`` (generateName ``<pod>-<entry>-``, owned by the pod, its spec copied from
the template) and records it in the pod's ``status.resourceClaimStatuses``; only then can the
scheduler see the claim. The engine does it when a cluster is loaded, deterministically.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from scheduler_core.workloads.naming import GeneratedNames, Key, ensure_uid

API: Final = "resource.k8s.io/v1"
POD_CLAIM_NAME_ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"

TemplateIndex = Mapping[tuple[str, str], Mapping[str, Any]]  # (namespace, name) -> template


def template_index(templates: list[Mapping[str, Any]]) -> dict[tuple[str, str], Any]:
    """ResourceClaimTemplates by (namespace, name)."""
    return {
        (
            str((m.get("metadata") or {}).get("namespace") or "default"),
            str((m.get("metadata") or {}).get("name") or ""),
        ): m
        for m in templates
    }


def claims_for_pod(
    pod: dict[str, Any],
    templates: TemplateIndex,
    existing: set[Key],
    names: GeneratedNames | None = None,
) -> list[dict[str, Any]]:
    """The claims to create for ``pod`` (whose status gains their names); may set its uid.

    Entries whose template is unknown are left alone (the scheduler then reports "ResourceClaim
    not created yet"); a claim already in the cluster (``existing`` holds (kind, namespace,
    name)) under the name the controller would pick first is recorded in the status but not
    created again. ``names`` holds the names taken; a new claim never reuses one.
    """
    names = names if names is not None else GeneratedNames(existing)
    spec = pod.get("spec") or {}
    refs = [
        r
        for r in spec.get("resourceClaims") or ()
        if isinstance(r, dict) and r.get("resourceClaimTemplateName")
    ]
    if not refs:
        return []
    meta = pod.setdefault("metadata", {})
    namespace = meta.get("namespace") or "default"
    statuses = pod.setdefault("status", {}).setdefault("resourceClaimStatuses", [])
    done = {s.get("name") for s in statuses if isinstance(s, dict)}
    created = []
    for ref in refs:
        template = templates.get((namespace, str(ref["resourceClaimTemplateName"])))
        if ref.get("name") in done or template is None:
            continue
        uid = ensure_uid(pod)
        prefix = f"{meta['name']}-{ref['name']}-"
        seed = (namespace, meta["name"], ref["name"])
        name = names.first_choice(prefix, *seed)
        if ("ResourceClaim", namespace, name) in existing:
            statuses.append({"name": ref["name"], "resourceClaimName": name})
            continue
        name = names.generate("ResourceClaim", namespace, prefix, *seed)
        statuses.append({"name": ref["name"], "resourceClaimName": name})
        tmeta = template.get("metadata") or {}
        claim_meta: dict[str, Any] = {"name": name, "namespace": namespace}
        if tmeta.get("labels"):
            claim_meta["labels"] = dict(tmeta["labels"])
        claim_meta["annotations"] = {
            **(tmeta.get("annotations") or {}),
            POD_CLAIM_NAME_ANNOTATION: ref["name"],
        }
        owner = {"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": uid}
        claim_meta["ownerReferences"] = [{**owner, "controller": True, "blockOwnerDeletion": True}]
        created.append(
            {
                "apiVersion": API,
                "kind": "ResourceClaim",
                "metadata": claim_meta,
                "spec": copy.deepcopy((template.get("spec") or {}).get("spec") or {}),
            }
        )
    return created
