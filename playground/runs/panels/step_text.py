"""The step-through's sentences: what each step's event decided, with its numbers.

Engine reasons (filter reasons, FitErrors) stay in upstream's English inside them; the rest is
translated (``playground/locale``).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from itertools import compress, islice, repeat
from typing import Any, Final

from django.utils.translation import gettext, ngettext, pgettext

from scheduler_core.loop.cluster import FIRST_SNAPSHOT
from scheduler_core.words import listed, sentences

from ...dra import panels as devices
from .verdicts import normalize_why

Event = Mapping[str, Any]

BINDING_TYPES: Final = frozenset({"Reserve", "Permit", "PreBind", "Bind", "PostBind", "Unreserve"})


def _nodes(n: int) -> str:
    return ngettext("%(count)s node", "%(count)s nodes", n) % {"count": n}


def _names(names: Sequence[str]) -> str:
    return listed(names) or gettext("no node")


def _reasons(ev: Event) -> str:
    """An event's reasons in one line (not for Filter, whose reasons are per node)."""
    return "; ".join(ev.get("reasons") or [])


CHANGES_LISTED: Final = 8  # a preemption's many victims: the first few, then a count


def _change(node: str, change: str, pod: str) -> str:
    pod = pod.removeprefix("default/")
    words = {
        "pod assumed": pgettext("snapshot", "%(pod)s assumed on %(node)s"),
        "pod forgotten": pgettext("snapshot", "%(pod)s forgotten on %(node)s"),
        "pod confirmed": pgettext("snapshot", "%(pod)s confirmed on %(node)s"),
        "pod added": pgettext("snapshot", "%(pod)s bound on %(node)s"),
        "pod removed": pgettext("snapshot", "%(pod)s removed from %(node)s"),
        "pod updated": pgettext("snapshot", "%(pod)s updated on %(node)s"),
        "pod terminating": pgettext("snapshot", "%(pod)s terminating on %(node)s"),
        "node added": pgettext("snapshot", "%(node)s added"),
        "node updated": pgettext("snapshot", "%(node)s updated"),
        "node removed": pgettext("snapshot", "%(node)s removed"),
    }
    return words.get(change, "%(node)s: " + change) % {"pod": pod, "node": node}


def snapshot_update(changes: Sequence[Sequence[str]]) -> str:
    """What upstream's UpdateSnapshot did before this cycle: the cache's changes since the last
    cycle, and the nodes it copied in because of them (the others are kept as they were)."""
    if any(change == FIRST_SNAPSHOT for _node, change, _pod in changes):
        return gettext("The first snapshot: every node is copied from the cache.")
    if not changes:
        return gettext(
            "Nothing changed in the cache since the last cycle: the snapshot is used as it was."
        )
    said = [_change(*c) for c in changes[:CHANGES_LISTED]]
    if len(changes) > CHANGES_LISTED:
        more = len(changes) - CHANGES_LISTED
        said.append(
            ngettext("%(count)s more change", "%(count)s more changes", more) % {"count": more}
        )
    copied = sorted({node for node, change, _pod in changes if change != "node removed"})
    return gettext(
        "Since the last cycle the cache changed (%(changes)s), so the snapshot copies in "
        "%(nodes)s and keeps the other nodes as they were."
    ) % {"changes": listed(said), "nodes": listed(copied) or gettext("no node")}


def why(ev: Event, nodes: Sequence[str]) -> str:
    """What one step's event decided, in a sentence (engine reasons stay as recorded)."""
    kind = ev["type"]
    code = ev.get("code")
    plugin = ev.get("plugin")
    if kind == "CycleStart":
        if ev.get("profile") is None:
            return ev.get("note") or gettext("No profile for this pod.")
        text = gettext("Profile %(profile)s; %(nodes)s in the snapshot.") % {
            "profile": ev.get("profile"),
            "nodes": _nodes(len(ev.get("nodes") or [])),
        }
        changes = ev.get("snapshot_changes")
        batched = ""
        if ev.get("batch_hint"):
            batched = gettext(
                "Opportunistic batching: this pod is like the previous one, whose node is now "
                "full, so it is offered %(node)s, the next node of that cycle's ranking; it "
                "passes Filter there and is placed without scoring."
            ) % {"node": ev["batch_hint"]}
        return sentences([text, batched, "" if changes is None else snapshot_update(changes)])
    if kind == "PreFilter":
        if ev.get("merged"):
            names = ev.get("node_names")
            if code != "Success":
                if plugin:
                    return gettext("The pod was rejected by %(plugin)s: %(reasons)s.") % {
                        "plugin": plugin,
                        "reasons": _reasons(ev),
                    }
                return gettext("The pod was rejected: %(reasons)s.") % {"reasons": _reasons(ev)}
            if names is not None:
                return gettext("PreFilter narrowed the candidates to %(nodes)s.") % {
                    "nodes": _names(names)
                }
            return gettext("PreFilter passed; every node is a candidate.")
        if code == "Skip":
            return gettext("%(plugin)s has nothing to check for this pod (Skip).") % {
                "plugin": plugin
            }
        if code == "Success":
            narrowed = ev.get("node_names")
            if narrowed is not None:
                return gettext("%(plugin)s allows only %(nodes)s.") % {
                    "plugin": plugin,
                    "nodes": _names(narrowed),
                }
            return gettext("%(plugin)s prepared its state for Filter.") % {"plugin": plugin}
        return gettext("%(plugin)s answered %(code)s: %(reasons)s.") % {
            "plugin": plugin,
            "code": code,
            "reasons": _reasons(ev),
        }
    if kind == "Filter":
        codes = ev.get("codes") or []
        # Counted at C speed: thousands of nodes, of which the sentence names five.
        ran = len(codes) - codes.count(None)
        rejected = ran - codes.count("Success")
        if not plugin:
            return gettext("%(feasible)s feasible out of %(evaluated)s evaluated.") % {
                "feasible": _nodes(ran - rejected),
                "evaluated": ran,
            }
        if not rejected:
            return gettext("%(plugin)s passed all %(nodes)s it checked.") % {
                "plugin": plugin,
                "nodes": _nodes(ran),
            }
        first = islice((i for i, c in enumerate(codes) if c is not None and c != "Success"), 5)
        shown = [
            f"{nodes[i] if i < len(nodes) else i}: {'; '.join(ev['reasons'][i] or [codes[i]])}"
            for i in first
        ]
        values = {
            "plugin": plugin,
            "nodes": _nodes(rejected),
            "shown": listed(shown),
            "more": rejected - 5,
        }
        if rejected > 5:
            return gettext("%(plugin)s rejected %(nodes)s: %(shown)s and %(more)s more.") % values
        return gettext("%(plugin)s rejected %(nodes)s: %(shown)s.") % values
    if kind == devices.MATCHES:
        return devices.why_matches(ev)
    if kind == devices.ALLOCATION:
        return devices.why_allocation(ev)
    if kind == "PostFilter":
        if ev.get("nominated_node"):
            victims = listed(ev.get("victims") or []) or gettext("none")
            n = len(ev.get("candidates") or [])
            values = {"node": ev["nominated_node"], "victims": victims, "count": n}
            if n > 1:
                return (
                    ngettext(
                        "Preemption nominated %(node)s among %(count)s candidate node; "
                        "victims: %(victims)s.",
                        "Preemption nominated %(node)s among %(count)s candidate nodes; "
                        "victims: %(victims)s.",
                        n,
                    )
                    % values
                )
            return gettext("Preemption nominated %(node)s; victims: %(victims)s.") % values
        reasons = _reasons(ev).rstrip(".") or "-"
        who = plugin or "PostFilter"
        values = {"who": who, "code": code, "reasons": reasons}
        if "not helpful" in reasons.lower():
            return gettext("%(who)s: preemption is not helpful (%(code)s): %(reasons)s.") % values
        if who == "DynamicResources" and reasons == "no new claims to deallocate":
            # Upstream's words on every failing pod without claims: worth a sentence.
            return (
                gettext(
                    "DynamicResources did not help (%(code)s): no new claims to deallocate. "
                    "Its PostFilter only takes back a ResourceClaim of the pod allocated to "
                    "devices the pod cannot use, so that another node can be tried; this pod has "
                    "no such claim, so the next PostFilter plugin gets its turn."
                )
                % values
            )
        if who != "DefaultPreemption":
            return (
                gettext("%(who)s did not make the pod schedulable (%(code)s): %(reasons)s.")
                % values
            )
        return gettext("No preemption possible (%(code)s): %(reasons)s.") % values
    if kind == "PreScore":
        if code == "Skip":
            return gettext("%(plugin)s has nothing to score for this pod (Skip).") % {
                "plugin": plugin
            }
        return gettext("%(plugin)s prepared its state for Score (%(code)s).") % {
            "plugin": plugin,
            "code": code,
        }
    if kind == "Score":
        scored, raw = ev["nodes"], ev["raw"]
        count = min(len(scored), len(raw))
        if not count:
            return gettext("%(plugin)s scored no node.") % {"plugin": plugin}
        lo, hi = min(raw), max(raw)
        # The highest raw score; among equals the name first in order, where a name that
        # another extends comes after it (the padding makes "ab" sort before "a").
        high = max(raw[:count])
        tied = compress(scored, map(operator.eq, raw, repeat(high)))
        best = (min(map(operator.add, tied, repeat("\U0010ffff")))[:-1], high)
        return gettext(
            "%(plugin)s gave raw scores %(low)s..%(high)s over %(nodes)s; "
            "highest raw: %(best)s (%(score)s)."
        ) % {
            "plugin": plugin,
            "low": lo,
            "high": hi,
            "nodes": _nodes(count),
            "best": best[0],
            "score": best[1],
        }
    if kind == "NormalizeScore":
        return normalize_why(ev["plugin"], ev["raw"], ev["normalized"], int(ev.get("weight", 1)))
    if kind == "Combine":
        if not ev.get("scored", True):
            return gettext("Only one feasible node: %(node)s is chosen without scoring.") % {
                "node": ev.get("selected")
            }
        tops = ev.get("top") or []
        text = gettext(
            "Weighted sum: each plugin's normalized score × its weight, added per node. "
            "Highest total: %(node)s."
        )
        if len(tops) > 1:
            text = gettext(
                "Weighted sum: each plugin's normalized score × its weight, added per node. "
                "Highest total: %(node)s (tie among %(tied)s)."
            )
        return text % {"node": ev.get("selected"), "tied": listed(tops)}
    if kind == "CycleEnd":
        if ev.get("result") == "Scheduled":
            # Upstream's scheduling cycle goes on past the choice: Reserve, then Permit; a
            # failure there ends it (Unreserve, no binding cycle).
            return gettext(
                "%(node)s is chosen; Reserve and Permit come next, and the binding cycle only "
                "if both pass."
            ) % {"node": ev.get("node")}
        if ev.get("message") and ev.get("result") == "Error":  # upstream's English
            return pgettext("a cycle's Error in upstream's English", "%(message)s") % {
                "message": ev["message"]
            }
        if ev.get("message"):  # upstream's FitError, in its English as kubectl shows it
            return pgettext("a cycle's FitError in upstream's English", "%(message)s") % {
                "message": ev["message"]
            }
        return ev.get("result", "")
    if kind in BINDING_TYPES:
        if kind == "Permit" and code == "Wait":
            return gettext("%(plugin)s made the pod wait on %(node)s (timeout %(timeout)s s).") % {
                "plugin": plugin,
                "node": ev.get("node"),
                "timeout": ev.get("timeout"),
            }
        values = {"who": plugin or kind, "node": ev.get("node"), "code": code}
        if _reasons(ev):
            return gettext("%(who)s on %(node)s: %(code)s (%(reasons)s).") % {
                **values,
                "reasons": _reasons(ev),
            }
        return gettext("%(who)s on %(node)s: %(code)s.") % values
    return ""
