"""Notifications of a live class over the channel layer: each message is encoded once and
relayed as is by every connection of its group (no per-recipient work)."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .selectors import group, lecturer_group

RELAY = "class.relay"  # the consumers' handler: ``class_relay``


def layer_message(payload: dict[str, Any], *, close: bool = False) -> dict[str, Any]:
    """``removed``: the student whose sockets close instead of relaying it."""
    removed = payload.get("student") if payload.get("type") == "removed" else None
    return {
        "type": RELAY,
        "text": json.dumps(payload, separators=(",", ":")),
        "close": close,
        "removed": removed,
    }


async def asend(code: str, payload: dict[str, Any], *, lecturer_only: bool = False) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    name = lecturer_group(code) if lecturer_only else group(code)
    await layer.group_send(name, layer_message(payload, close=payload.get("type") == "ended"))


def send(code: str, payload: dict[str, Any], *, lecturer_only: bool = False) -> None:
    """From synchronous code (views): tell the class's connections."""
    async_to_sync(asend)(code, payload, lecturer_only=lecturer_only)
