"""Channel groups and websocket messages of runs, and the helpers that broadcast them.

Frames a browser receives on ``ws/runs/<id>/`` (docs/STYLE.md §3):

- ``{"kind": "batch", "run": 12, "messages": [...]}``: envelopes in seq order, as many as the
  task flushed at once (a 1,000-cycle run is a few hundred frames, not tens of thousands):
  - ``{"kind": "cycle", "run": 12, "seq": 41, "last": 66, "cycle": 3, "pod": ..., "result": ...,
    "node": ..., "feasible": n, "evaluated": m, "message": ...}``: one scheduling cycle's
    summary, standing for its events ``seq``..``last`` (``columns.summary_message``); the
    per-node detail is fetched from ``cycles/<n>.json`` when a page shows the cycle;
  - ``{"kind": "event", "run": 12, "seq": 67, "event": {...}}``: one small engine event
    (queue action, binding cycle, Permit), as ``scheduler_core.events`` writes it;
  - ``{"kind": "progress", "run": 12, "scheduled": n, "total": m, "unschedulable": u}``;
  Together the ``cycle`` and ``event`` envelopes cover every seq once: each starts one past the
  last seq of the one before (``last_seq_of``);
- ``{"kind": "finished", "run": 12, "seq": n, "status": "succeeded"}``: the last frame, ``seq``
  one past the last event's (``error`` holds the message of a failed run);
- ``{"kind": "ack", ...}`` / ``{"kind": "error", "message": ...}``: answers to a client command.

A client that connects with ``?after=k`` first gets what is stored after seq k, as batches.

Between the task and the consumers, a channel-layer message carries several envelopes at once
(``run.messages``) so a run of thousands of events stays within the layer's capacity. It carries
them as the browser's batch frame, JSON-encoded once (``text``), with the seqs it covers
(``first``, ``last``), whether they are contiguous and whether it ends the run: a consumer that
holds everything before ``first`` relays ``text`` as it is, so fifty watchers cost one encoding,
not fifty (and the in-memory layer copies one string per watcher, not the envelopes).

A broadcast is a courtesy to live watchers, never part of a run's outcome: the events are
stored before they are broadcast, and a consumer reads what it missed from the database. So a
failing channel layer (Redis down for a moment) is logged, and the run goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from ...inputs.jsontext import dumps, loads

MESSAGES_TYPE: Final = "run.messages"  # handled by RunConsumer.run_messages
CHUNK: Final = 200  # envelopes per channel-layer message (and so per websocket frame)
SEQ_KINDS: Final = frozenset({"event", "cycle"})  # the envelopes that carry seqs


def last_seq_of(envelope: dict[str, Any]) -> int:
    """The last seq an ``event`` or ``cycle`` envelope stands for."""
    return int(envelope.get("last", envelope["seq"]))


def batch_message(run_id: int, envelopes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "batch", "run": run_id, "messages": list(envelopes)}


log = logging.getLogger(__name__)


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


def event_message(run_id: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "event", "run": run_id, "seq": payload["seq"], "event": payload}


def finished_message(
    run_id: int,
    *,
    seq: int,
    status: str,
    error: str = "",
    summary: dict[str, Any] | None = None,
    said: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``said``: the structured forms of the error and note (``said.py``), which each consumer
    turns into its reader's language before sending (the envelope goes out without them)."""
    message: dict[str, Any] = {"kind": "finished", "run": run_id, "seq": seq, "status": status}
    if error:
        message["error"] = str(error)
    if summary:
        message["summary"] = summary
    if said:
        message["said"] = said
    return message


def progress_message(
    run_id: int, *, scheduled: int, total: int, unschedulable: int = 0
) -> dict[str, Any]:
    return {
        "kind": "progress",
        "run": run_id,
        "scheduled": scheduled,
        "total": total,
        "unschedulable": unschedulable,
    }


def _layer_message(run_id: int, envelopes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    seqs = [e for e in envelopes if e.get("kind") in SEQ_KINDS]
    contiguous = all(
        int(b["seq"]) == last_seq_of(a) + 1 for a, b in zip(seqs, seqs[1:], strict=False)
    )
    return {
        "type": MESSAGES_TYPE,
        "text": dumps(batch_message(run_id, envelopes)),
        "first": int(seqs[0]["seq"]) if seqs else None,
        "last": last_seq_of(seqs[-1]) if seqs else None,
        "contiguous": contiguous,
        "finished": any(e.get("kind") == "finished" for e in envelopes),
    }


def layer_envelopes(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The envelopes a channel-layer message carries, in order."""
    return list(loads(message["text"])["messages"])


def _layer_messages(run_id: int, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_layer_message(run_id, messages[i : i + CHUNK]) for i in range(0, len(messages), CHUNK)]


def watched(run_id: int) -> bool:
    """Whether a broadcast could reach anyone: False only when the layer is this process's own
    (embedded) and nobody has joined the run's group, so a run need not build its envelopes.

    Safe because a consumer joins the group before it reads what is stored: whatever a run
    stored before a consumer joined reaches it from the database. Another layer (Redis) serves
    other processes, which this one cannot see: always True.
    """
    layer = get_channel_layer()
    if layer is None:
        return False
    if isinstance(layer, InMemoryChannelLayer):
        return bool(layer.groups.get(run_group(run_id)))
    return True


def broadcast_many(run_id: int, messages: Sequence[dict[str, Any]]) -> None:
    """Send envelopes, in order, to everyone watching the run (from sync code)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    try:
        # One hop into async code for all the chunks: each hop costs a thread switch or two.
        async_to_sync(_send_all)(layer, run_group(run_id), _layer_messages(run_id, messages))
    except Exception as err:  # the events are stored: watchers catch up from the database
        log.warning("run %s: broadcast failed, watchers will catch up: %r", run_id, err)


async def _send_all(layer: Any, group: str, layer_messages: list[dict[str, Any]]) -> None:
    for layer_message in layer_messages:
        await layer.group_send(group, layer_message)


def broadcast(run_id: int, message: dict[str, Any]) -> None:
    """Send one envelope to everyone watching the run (from sync code)."""
    broadcast_many(run_id, [message])


async def abroadcast_many(run_id: int, messages: Sequence[dict[str, Any]]) -> None:
    """``broadcast_many`` for async code."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    try:
        await _send_all(layer, run_group(run_id), _layer_messages(run_id, messages))
    except Exception as err:  # as in broadcast_many
        log.warning("run %s: broadcast failed, watchers will catch up: %r", run_id, err)


async def abroadcast(run_id: int, message: dict[str, Any]) -> None:
    await abroadcast_many(run_id, [message])
