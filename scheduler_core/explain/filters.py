"""Filter explained: a plugin's verdict on a node, with the inputs that decided it.

The verdict always comes from the plugin's own Filter, run on the same CycleState and NodeInfo
the cycle used; the per-plugin details add the amounts, taints, labels or ports behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.explain.context import CycleContext, ExplainError, FilterView
from scheduler_core.explain.plugins.custom import custom_filter, is_custom
from scheduler_core.explain.record import Explanation, explanation, quantity_text, verdict
from scheduler_core.explain.words import _, clauses, listed, sentences
from scheduler_core.framework.status import SUCCESS
from scheduler_core.plugins import names
from scheduler_core.plugins.node_resources.fit import fits_request, pre_filter_request
from scheduler_core.plugins.shared.helpers import do_not_schedule_taint, find_untolerated_taint

# A detail function: (context, the plugin, the deciding pass) -> (inputs, formula, text).
Detail = Callable[[CycleContext, Any, FilterView], tuple[dict[str, Any], str, str]]


def filter_detail(name: str) -> Callable[[Detail], Detail]:
    """Register the detail function of a plugin's Filter explanation."""

    def register(fn: Detail) -> Detail:
        _DETAILS[name] = fn
        return fn

    return register


def explain_filter(ctx: CycleContext, plugin: str, node: str) -> Explanation:
    """Why ``plugin`` let ``node`` pass or rejected it in this cycle."""
    pl = ctx.plugin(plugin)
    order = [p.name for p in ctx.fwk.filter_plugins]
    if plugin not in order:
        raise ExplainError(f"{plugin} is not a Filter plugin of profile {ctx.fwk.profile_name}")
    if plugin in ctx.state.skip_filter_plugins:
        return explanation(
            ctx,
            "Filter",
            plugin,
            node,
            inputs={},
            formula=_("PreFilter returned Skip"),
            value={"code": "Skip", "reasons": []},
            text=_(
                "%(plugin)s had nothing to check for this pod (its PreFilter returned Skip), "
                "so Filter did not run it on any node."
            )
            % {"plugin": plugin},
            ran=False,
        )
    views = ctx.filter_views(node)
    status, view = SUCCESS, views[-1]
    for v in views:
        st = pl.filter(v.state, ctx.pod, v.node_info)
        if not st.is_success():
            status, view = st, v
            break
    if is_custom(pl):
        inputs, formula, text = custom_filter(ctx, pl, view.state, view.node_info)
    else:
        inputs, formula, text = _DETAILS.get(plugin, _generic)(ctx, pl, view)
    if view.added:
        inputs["nominatedPodsAdded"] = list(view.added)
        text += _(" (evaluated %(label)s: %(pods)s)") % {
            "label": _(view.label),
            "pods": listed(view.added),
        }
    # Filter stops at the first plugin that rejects a node (an extender filters after them all).
    recorded = ctx.record.filter.get(node)
    if recorded is None:
        ran = False
    elif recorded.is_success() or recorded.plugin not in order:
        ran = True
    else:
        ran = order.index(plugin) <= order.index(recorded.plugin)
    where = {"plugin": plugin, "node": node}
    if status.is_success():
        head = _("%(plugin)s on %(node)s: passes.") % where
    else:
        # The code and the reasons are upstream's own words: they stay as kubectl shows them.
        head = _("%(plugin)s on %(node)s: %(code)s — %(reasons)s.") % {
            **where,
            "code": status.code.upstream,
            "reasons": status.message(),
        }
    if not ran:
        head += _(" (Filter stopped at an earlier plugin, so this verdict was not needed.)")
    return explanation(
        ctx,
        "Filter",
        plugin,
        node,
        inputs=inputs,
        formula=formula,
        value=verdict(status),
        text=sentences([head, text]),
        ran=ran,
    )


def _generic(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    return {}, "", ""


def _fit(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    request = pre_filter_request(view.state)
    if request is None:
        return {}, "", ""
    ni = view.node_info
    alloc, used = ni.allocatable, ni.requested
    rows: dict[str, dict[str, int]] = {
        "pods": {
            "requested": 1,
            "used": len(ni.pods),
            "allocatable": alloc.allowed_pod_number,
            "free": alloc.allowed_pod_number - len(ni.pods),
        }
    }
    for name, want, have, taken in (
        ("cpu", request.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        ("memory", request.memory, alloc.memory, used.memory),
        (
            "ephemeral-storage",
            request.ephemeral_storage,
            alloc.ephemeral_storage,
            used.ephemeral_storage,
        ),
    ):
        if want > 0:
            rows[name] = {
                "requested": want,
                "used": taken,
                "allocatable": have,
                "free": have - taken,
            }
    for name, want, _rest in request.scalars:
        have, taken = alloc.scalars.get(name, 0), used.scalars.get(name, 0)
        rows[name] = {"requested": want, "used": taken, "allocatable": have, "free": have - taken}
    short = fits_request(request, ni)
    parts = []
    for name, r in rows.items():
        op = ">" if any(s.resource_name == name for s in short) else "≤"
        parts.append(
            _("%(resource)s: %(requested)s %(op)s free %(allocatable)s − %(used)s = %(free)s")
            % {
                "resource": name,
                "requested": quantity_text(name, r["requested"]),
                "op": op,
                "allocatable": quantity_text(name, r["allocatable"]),
                "used": quantity_text(name, r["used"]),
                "free": quantity_text(name, r["free"]),
            }
        )
    lacking = []
    for s in short:
        amounts = {
            "reason": s.reason,
            "asks": quantity_text(s.resource_name, s.requested),
            "free": quantity_text(s.resource_name, s.capacity - s.used),
            "used": quantity_text(s.resource_name, s.used),
            "capacity": quantity_text(s.resource_name, s.capacity),
        }
        if s.unresolvable:
            line = _(
                "%(reason)s: the pod asks %(asks)s, the node has %(free)s free (%(used)s of "
                "%(capacity)s already requested) — more than the whole node, so unresolvable"
            )
        else:
            line = _(
                "%(reason)s: the pod asks %(asks)s, the node has %(free)s free (%(used)s of "
                "%(capacity)s already requested)"
            )
        lacking.append(line % amounts)
    if lacking:
        text = _("%(shortages)s.") % {"shortages": clauses(lacking)}
    else:
        text = _("Every requested resource fits in what is free.")
    return {"resources": rows}, "; ".join(parts), text


def _taints(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    node = view.node_info.node
    bad = find_untolerated_taint(node.taints, ctx.pod.tolerations, do_not_schedule_taint)
    inputs = {
        "taints": [f"{t.key}={t.value}:{t.effect}" for t in node.taints],
        "tolerations": [
            f"{t.key or '*'} {t.operator or 'Equal'} {t.value}:{t.effect or '*'}"
            for t in ctx.pod.tolerations
        ],
        "untolerated": f"{bad.key}={bad.value}:{bad.effect}" if bad else None,
    }
    if bad is None:
        text = _("Every NoSchedule/NoExecute taint of the node is tolerated by the pod.")
    else:
        text = _("The taint %(taint)s is not tolerated by any toleration of the pod.") % {
            "taint": inputs["untolerated"]
        }
    return inputs, _("first NoSchedule/NoExecute taint no toleration tolerates"), text


def _node_name(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    want = ctx.pod.node_name
    name = view.node_info.node.name
    inputs = {"spec.nodeName": want, "node": name}
    return (
        inputs,
        _("%(want)s is empty or == %(node)s") % {"want": repr(want), "node": repr(name)},
        (
            _("The pod names no node.")
            if not want
            else _("The pod asks for node %(node)s.") % {"node": repr(want)}
        ),
    )


def _unschedulable(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    cordoned = bool(view.node_info.node.unschedulable)
    inputs = {"spec.unschedulable": cordoned}
    text = (
        _(
            "The node is cordoned (spec.unschedulable); only a pod tolerating "
            "node.kubernetes.io/unschedulable:NoSchedule may go there."
        )
        if cordoned
        else _("The node is not cordoned.")
    )
    return inputs, _("not unschedulable, or the unschedulable taint is tolerated"), text


def _node_affinity(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    spec = ctx.pod.raw.get("spec") or {}
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    inputs = {
        "nodeSelector": dict(spec.get("nodeSelector") or {}),
        "requiredNodeAffinity": required,
        "addedAffinity": pl.added_node_selector is not None,
        "nodeLabels": dict(view.node_info.node.labels),
    }
    return (
        inputs,
        _("nodeSelector matches AND (any required term matches)"),
        _(
            "The node's labels are checked against the pod's nodeSelector and every required "
            "node-affinity term (terms are ORed, expressions within a term ANDed)."
        ),
    )


def _ports(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    ni = view.node_info
    wanted = [f"{p.protocol}/{p.port}" + (f"@{p.ip}" if p.ip else "") for p in ctx.pod.host_ports]
    taken = [
        f"{p.protocol}/{p.port}"
        for p in ctx.pod.host_ports
        if ni.port_conflict(p.ip, p.protocol, p.port)
    ]
    inputs = {
        "hostPorts": wanted,
        "inUse": sorted(f"{k[0]}/{k[1]}" for k in ni.used_ports),
        "conflicting": taken,
    }
    text = (
        _("Host port(s) %(ports)s already used on the node.") % {"ports": listed(taken)}
        if taken
        else _("None of the pod's host ports is in use on the node.")
    )
    return inputs, _("no requested host port is in use"), text


def _volumes(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    claims = list(ctx.pod.pvc_names())
    return (
        {"claims": claims},
        "",
        (
            _("The pod's claims: %(claims)s.") % {"claims": listed(claims)}
            if claims
            else _("The pod uses no claim.")
        ),
    )


_DETAILS: dict[str, Detail] = {
    names.NODE_RESOURCES_FIT: _fit,
    names.TAINT_TOLERATION: _taints,
    names.NODE_NAME: _node_name,
    names.NODE_UNSCHEDULABLE: _unschedulable,
    names.NODE_AFFINITY: _node_affinity,
    names.NODE_PORTS: _ports,
    names.VOLUME_RESTRICTIONS: _volumes,
}
