"""The run websocket: ``ws/runs/<id>/?after=<seq>`` streams a run's events without gaps.

On connect the consumer joins the run's group first, accepts the handshake, and then sends
the stored events in pages (``catchup``, read and encoded once for all readers of the run): the
task broadcasts only what it has committed, so every event is either in that read or arrives
live afterwards. ``last_sent`` drops live duplicates; a live event beyond ``last_sent + 1``
(a channel-layer message lost to a full queue) is preceded by the missing ones from the
database. Client commands: ``{"command": "cancel"}``, ``{"command": "allow", "pod": "ns/name"}``,
``{"command": "reject", "pod": "ns/name"}``. A shared cluster's run needs the share token:
``?share=<token>``.

Every frame, of any kind, spends the connection's and its owner's budget first
(``throttle.FrameGuard``: the signed-in user, else the visitor's address). A frame over budget,
not such a JSON object, with a field longer than its limit, or a command the visitor may not
give is refused: the first few refusals get an error message, later ones are dropped unread,
and a socket that keeps sending them is closed (``CLOSE_TOO_MANY``), its owner's new sockets
refused for a while. The refusal to a watcher who may not command is read once per connection.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Final
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation.trans_real import parse_accept_lang_header

from ... import throttle
from ...inputs.params import MAX_ID, bounded_int
from ...models import Run
from .. import said, selectors, services
from . import catchup, stream

MAX_FRAME_CHARS: Final = 4096
COMMANDS: Final = ("cancel", "allow", "reject", "change")
# Longest accepted value of each command field: namespace/name of a pod, a plugin name, a
# message, a cluster change (one script step as JSON).
FIELD_LIMITS: Final = {"command": 16, "pod": 317, "plugin": 128, "message": 1024, "step": 20000}
CLOSE_NOT_FOUND = 4404
CLOSE_FORBIDDEN = 4403
CLOSE_TOO_MANY: Final = throttle.CLOSE_TOO_MANY


class RefusedConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """Any other ``ws/`` path (a malformed or forged run reference): the handshake is refused,
    as for a run that does not exist, without an error in the server's log."""

    async def connect(self) -> None:
        await self.close(code=CLOSE_NOT_FOUND)


class RunConsumer(throttle.FloodClosing, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    run_id: int
    last_sent: int
    finished_sent: bool
    may_command: bool
    joined: float
    refusal: str | None = None  # why this watcher may not command, once read

    async def connect(self) -> None:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        query = self.scope.get("query_string", b"")
        self.last_sent = _after(query)
        self.finished_sent = False
        self.guard = throttle.FrameGuard(frame_owner(self.scope))
        if throttle.owner_blocked(self.guard.owner):
            await self.close(code=CLOSE_TOO_MANY)  # refused before any database read
            return
        found = await database_sync_to_async(_access)(
            self.scope.get("user"), self.run_id, _share(query), self.scope.get("session")
        )
        if found is None:
            await self.close()  # handshake refused: the same answer for missing and private
            return
        self.may_command = found
        self.group = stream.run_group(self.run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = time.monotonic()  # what is stored from now on also arrives live
        # The handshake ends here; the catch-up follows in pages, shared with other readers.
        await self.accept()
        self.watchdog = asyncio.ensure_future(self.link.watch(self.close_flooded))
        await self._catch_up(upto=None)
        run = await database_sync_to_async(_terminal_message)(self.run_id)
        if run is not None:
            await self._send_finished(run)

    async def disconnect(self, code: int) -> None:
        watchdog = getattr(self, "watchdog", None)
        if watchdog is not None:
            watchdog.cancel()
        group = getattr(self, "group", None)
        if group:
            await self.channel_layer.group_discard(group, self.channel_name)

    # -- from the task ------------------------------------------------------------------------

    async def run_messages(self, message: dict[str, Any]) -> None:
        """Relay one batch from the task as one frame: no gap, no duplicate, in seq order."""
        first, upto = message.get("first"), message.get("last")
        if (
            not self.finished_sent
            and not message.get("finished")
            and message.get("contiguous")
            and (first is None or first == self.last_sent + 1)
        ):
            await self.send(text_data=message["text"])  # as encoded once for every reader
            if upto is not None:
                self.last_sent = int(upto)
            return
        frame: list[dict[str, Any]] = []
        for envelope in stream.layer_envelopes(message):
            kind = envelope.get("kind")
            if kind in stream.SEQ_KINDS:
                seq, last = int(envelope["seq"]), stream.last_seq_of(envelope)
                if last <= self.last_sent:
                    continue
                if seq > self.last_sent + 1:
                    frame.extend(await self._stored(upto=seq - 1))
                frame.append(envelope)
                self.last_sent = last
            elif kind == "finished":
                await self._send_batch(frame)
                frame = []
                await self._send_finished(envelope)
            elif not self.finished_sent:
                frame.append(envelope)
        await self._send_batch(frame)

    async def _page(self, upto: int | None) -> catchup.Page:
        page = await catchup.page(
            self.run_id, after=self.last_sent, upto=upto, fresh_since=self.joined
        )
        if page.last is not None:
            self.last_sent = page.last
        return page

    async def _stored(self, *, upto: int | None) -> list[dict[str, Any]]:
        """The stored envelopes after the last one sent, up to ``upto``; advances ``last_sent``."""
        out: list[dict[str, Any]] = []
        while True:
            page = await self._page(upto)
            out.extend(page.envelopes)
            if not page.full:
                return out

    async def _catch_up(self, *, upto: int | None) -> None:
        while True:
            page = await self._page(upto)
            if page.text:
                await self.send(text_data=page.text)
            if not page.full:
                return

    async def _send_batch(self, envelopes: list[dict[str, Any]]) -> None:
        if envelopes:
            await self.send_json(stream.batch_message(self.run_id, envelopes))

    async def _send_finished(self, envelope: dict[str, Any]) -> None:
        if self.finished_sent:
            return
        await self._catch_up(upto=int(envelope["seq"]) - 1)
        self.finished_sent = True
        # Written by a worker in English: each reader gets it in the language of its pages.
        with translation.override(scope_language(self.scope)):
            envelope = said.envelope_shown(envelope)
        await self.send_json(envelope)

    # -- from the browser ---------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Decode a frame within the budget; what is not a small JSON object is refused, not a
        crash."""
        if self.closing:
            return
        if self.link.flooded():
            await self.close_flooded()
            return
        if not self.guard.frame():
            await self._error(gettext("Too many messages; wait a few seconds."))
            return
        if text_data is None:
            await self._error("frames must be JSON text")
            return
        if len(text_data) > MAX_FRAME_CHARS:
            await self._error(f"frames may be at most {MAX_FRAME_CHARS} characters")
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: JSON nested a thousand deep
            await self._error("frames must be JSON")
            return
        await self.receive_json(content)

    async def _error(self, message: str) -> None:
        """Refuse a frame: answered, dropped, or the socket closed (``FrameGuard.strike``)."""
        verdict = self.guard.strike()
        if verdict == "answer":
            await self.send_json({"kind": "error", "run": self.run_id, "message": message})
        elif verdict == "close":
            await self.close_flooded()

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """A command, answered in the language of the visitor's pages."""
        with translation.override(scope_language(self.scope)):
            await self._command(content)

    async def _command(self, content: Any) -> None:
        if not isinstance(content, dict) or "command" not in content:
            await self._error("no command")
            return
        problem = _command_problem(content)
        if problem:
            await self._error(problem)
            return
        if not self.may_command:
            if self.refusal is None:
                self.refusal = await database_sync_to_async(selectors.run_command_refusal)(
                    self.run_id
                )
            await self._error(self.refusal)
            return
        try:
            ack = await database_sync_to_async(services.run_command)(
                run_id=self.run_id, command=content
            )
        except services.RunCommandRefused as err:
            await self._error(str(err))
            return
        await self.send_json(ack)


def scope_language(scope: Any) -> str:
    """The language the visitor's pages are in, as LocaleMiddleware chooses it for a request:
    the language cookie (the header's switch), else the browser's Accept-Language."""
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    accept = dict(scope.get("headers") or []).get(b"accept-language", b"").decode("latin-1")
    wanted = ([cookie] if cookie else []) + [
        code for code, _ in parse_accept_lang_header(accept) if code != "*"
    ]
    for code in wanted:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def frame_owner(scope: Any) -> str:
    """Whose budget a socket's frames spend: the signed-in user's, else the address's."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return f"address:{throttle.scope_address(scope)}"


def _after(query_string: bytes) -> int:
    values = parse_qs(query_string.decode("latin-1")).get("after")
    return bounded_int(values[0] if values else None, -1, low=-1, high=MAX_ID)


def _share(query_string: bytes) -> Any:
    values = parse_qs(query_string.decode("latin-1")).get("share")
    return selectors.share_token(values[0] if values else None)


def _command_problem(content: dict[str, Any]) -> str:
    """Why a command frame is refused before it reaches the run ("" when it is not)."""
    for key, value in content.items():
        limit = FIELD_LIMITS.get(key)
        if limit is None:
            return f"unknown field {str(key)[:32]!r}"
        if value is not None and not isinstance(value, str):
            return f"{key} must be a string"
        if value is not None and len(value) > limit:
            return f"{key} may be at most {limit} characters"
    if content.get("command") not in COMMANDS:
        return f"command must be one of {', '.join(COMMANDS)}"
    return ""


def _access(user: Any, run_id: int, share: Any = None, session: Any = None) -> bool | None:
    """None: the user may not watch the run; otherwise whether they may also command it (an
    anonymous visitor's run: from the session that started it)."""
    tokens = selectors.class_tokens(session)
    run = selectors.run_visible(user=user, run_id=run_id, share=share, class_tokens=tokens)
    if run is None:
        return None
    return selectors.run_may_command(user=user, run=run, session=session)


def _terminal_message(run_id: int) -> dict[str, Any] | None:
    run = Run.objects.get(pk=run_id)
    return selectors.run_finished_message(run) if run.is_terminal else None
