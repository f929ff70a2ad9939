"""The live class websocket ``ws/classes/<code>/``: the lecturer drives, students answer.

Who connects: the class's lecturer (the session's user), or a student named by the session's
token for the code or by ``?token=``. Anyone else is closed with 4403, whether the class is open,
ended or unknown (a guessed code learns nothing); the lecturer and students of an ended class
with 4404 (after the handshake, so that clients see the code). Every connection first gets the
full ``state``; afterwards the class's group relays each change, encoded once by its sender.
All state is in the database: a connection to another web process, or a reconnect, reads it.

Every frame, of any kind and from anyone, spends its socket's and its owner's budget first
(``throttle.FrameGuard``; the owner is the student, whatever socket they use, or the lecturer):
a refused frame is answered a few times, then dropped, and a socket that keeps sending them is
closed (``CLOSE_TOO_MANY``), its owner's new sockets refused for a while. A student's bad input
(an out-of-range question id, a NUL) is refused before the batched write it would have failed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qs
from weakref import WeakKeyDictionary

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import DatabaseError, IntegrityError
from django.utils import translation
from django.utils.translation import gettext as _

from .. import throttle
from . import events, selectors, services
from .models import LiveClass

logger = logging.getLogger(__name__)

CLOSE_FORBIDDEN: Final = 4403
CLOSE_NOT_FOUND: Final = 4404
CLOSE_TOO_MANY: Final = throttle.CLOSE_TOO_MANY
MAX_FRAME_CHARS: Final = 8192
TOUCH_EVERY: Final = 60.0  # seconds between one connection's activity records


@dataclass(slots=True)
class Who:
    status: int  # 0: admitted, else the close code
    class_id: int = 0
    role: str = ""
    student_id: int | None = None
    language: str = ""  # the class's: what the server says over the socket is in it

    @property
    def owner(self) -> str:
        """Whose frame budget this connection spends (``throttle.FrameGuard``)."""
        if self.role == "student":
            return f"student:{self.student_id}"
        return f"lecturer:{self.class_id}"


def _identify(code: str, user: Any, session: Any, query: bytes) -> Who:
    services.classes_end_idle_lazily()
    live_class = selectors.class_by_code(code)
    if live_class is None or live_class.code != code:
        return Who(CLOSE_FORBIDDEN)  # as for an open class: a guess learns nothing
    closed = CLOSE_NOT_FOUND if live_class.ended_at is not None else 0
    if user is not None and user.is_authenticated and user.pk == live_class.lecturer_id:
        return Who(closed, live_class.pk, "lecturer", language=live_class.language)
    token: str | None = (parse_qs(query.decode("latin-1")).get("token") or [""])[0]
    token = token or selectors.session_token(session, live_class.code)
    student = selectors.student_by_token(live_class, token)
    if student is None:
        return Who(CLOSE_FORBIDDEN)
    return Who(closed, live_class.pk, "student", student.pk, live_class.language)


def _state(who: Who) -> dict[str, Any]:
    live_class = LiveClass.objects.get(pk=who.class_id)
    return selectors.state(live_class, role=who.role, student_id=who.student_id)


def _lecturer_action(class_id: int, user: Any, content: dict[str, Any]) -> list[dict[str, Any]]:
    """Do one lecturer action; the messages for the whole class (in order)."""
    live_class = LiveClass.objects.get(pk=class_id)
    if live_class.ended_at is not None:
        raise services.ClassError(_("This class has ended."))
    action = content.get("action")
    extra = {k: content[k] for k in ("clientId",) if k in content}
    if action == "step":
        step, seq = services.step_set(live_class=live_class, user=user, step=content.get("step"))
        sent = content.get("sentAt")
        if isinstance(sent, int | float) and not isinstance(sent, bool):
            extra["sentAt"] = sent
        return [{"type": "step", "step": step, "stepSeq": seq, **extra}]
    if action == "ask":
        if "lessonQuestion" in content:
            q = services.question_ask_lesson(
                live_class=live_class, user=user, qid=str(content["lessonQuestion"])[:100]
            )
        elif "about" in content:
            q = services.question_ask_about(
                live_class=live_class, user=user, kind=content["about"], cycle=content.get("cycle")
            )
        elif "winnerOf" in content:
            q = services.question_ask_winner(
                live_class=live_class, user=user, cycle=content["winnerOf"]
            )
        else:
            q = services.question_ask_quick(
                live_class=live_class, user=user, quick=content.get("quick")
            )
        return [{"type": "question", "question": selectors.question_dict(q), **extra}]
    if action == "reveal":
        q = services.reveal(live_class=live_class, user=user)
        return [{"type": "reveal", **selectors.reveal_dict(live_class, q), **extra}]
    if action == "end":
        services.class_end(live_class=live_class, user=user)
        return [{"type": "ended", **extra}]
    if action == "remove":
        student = content.get("student")
        if not services.student_remove(live_class=live_class, user=user, student_id=student):
            raise services.ClassError(_("No such student in this class."))
        return [{"type": "removed", "student": student, "joined": selectors.joined(class_id)}]
    if action == "cap":
        cap = services.student_cap_set(live_class=live_class, user=user, cap=content.get("cap"))
        return [{"type": "cap", "cap": cap, **extra}]
    raise services.ClassError(_("Unknown action."))


def _answers(
    class_id: int, answers: list[services.Answer], touch: bool
) -> list[str | services.ClassError]:
    try:
        results = services.answers_submit(class_id, answers)
    except (DatabaseError, ValueError, OverflowError):
        if len(answers) == 1:
            raise
        # One answer the database refuses (its student gone meanwhile, a value its driver
        # cannot send) must not fail the others that shared its statement: each is written
        # alone, and only it is refused.
        results = [_alone(class_id, answer) for answer in answers]
    if touch:
        services.touch(class_id)
    return results


def _alone(class_id: int, answer: services.Answer) -> str | services.ClassError:
    try:
        return services.answers_submit(class_id, [answer])[0]
    except (DatabaseError, ValueError, OverflowError):
        return services.ClassError(_("Your answer could not be stored; please answer again."))


# Answers are written in batches per class and process ("group commit"): an answer arriving
# while the class's previous batch is being written waits for it, and all that queued up
# meanwhile go in the next upsert together. A room answering at once costs a few statements, not
# one each; a lone answer is written at once.
@dataclass(slots=True)
class _Batch:
    items: list[tuple[services.Answer, asyncio.Future[str | services.ClassError]]]
    touch: bool = False


_batches: dict[tuple[int, int], _Batch] = {}
_writers: dict[tuple[int, int], asyncio.Task[None]] = {}


def _submit(
    class_id: int, answer: services.Answer, touch: bool
) -> asyncio.Future[str | services.ClassError]:
    loop = asyncio.get_running_loop()
    key = (id(loop), class_id)
    future: asyncio.Future[str | services.ClassError] = loop.create_future()
    batch = _batches.setdefault(key, _Batch([]))
    batch.items.append((answer, future))
    batch.touch = batch.touch or touch
    if key not in _writers:
        _writers[key] = loop.create_task(_write_batches(key, class_id))
    return future


async def _write_batches(key: tuple[int, int], class_id: int) -> None:
    try:
        while batch := _batches.pop(key, None):
            try:
                results = await database_sync_to_async(_answers, thread_sensitive=False)(
                    class_id, [answer for answer, _ in batch.items], batch.touch
                )
            except Exception as err:  # every waiting student's consumer raises it
                for _, future in batch.items:
                    if not future.done():
                        future.set_exception(err)
                continue
            for (_, future), result in zip(batch.items, results, strict=True):
                if not future.done():  # its connection may have gone meanwhile
                    future.set_result(result)
    finally:
        _writers.pop(key, None)


# The answers' writes and the tally's read run on a thread pool (thread_sensitive=False), not on
# channels' one database thread per process, where they queued behind every other database call
# of the process. PostgreSQL takes the statements side by side; SQLite's IMMEDIATE transactions
# (settings) make concurrent writers wait for the lock.
# Tallies are coalesced per process: the first answer to a question schedules one tally
# TALLY_DELAY later; answers meanwhile ride along. The schedule is dropped before the counts are
# read, so an answer stored after that read schedules the next tally: none is left out.
TALLY_DELAY: Final = 0.05  # seconds
_tallies: dict[tuple[int, int, int], asyncio.Task[None]] = {}


def _schedule_tally(code: str, class_id: int, question_id: int) -> None:
    loop = asyncio.get_running_loop()
    key = (id(loop), class_id, question_id)
    if key not in _tallies:
        _tallies[key] = loop.create_task(_send_tally(key, code, class_id, question_id))


async def _send_tally(key: tuple[int, int, int], code: str, class_id: int, qid: int) -> None:
    try:
        await asyncio.sleep(TALLY_DELAY)
    finally:
        _tallies.pop(key, None)
    message = await database_sync_to_async(selectors.tally_message, thread_sensitive=False)(
        class_id, qid
    )
    await events.asend(code, message, lecturer_only=True)


# A class idle for services.IDLE ends without anyone doing anything, so no request would tell
# its open sockets. Each process that holds class connections sweeps once a minute while it holds
# any: it ends the idle classes and sends "ended" (which closes them) to the groups of its
# connected classes that have ended, whoever ended them.
SWEEP_EVERY: Final = 60.0  # seconds
_connected: WeakKeyDictionary[asyncio.AbstractEventLoop, Counter[int]] = WeakKeyDictionary()
_sweepers: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task[None]] = WeakKeyDictionary()


def _sweep(class_ids: list[int]) -> list[tuple[int, str]]:
    services.classes_end_idle()
    return services.classes_ended(class_ids)


async def _sweep_while_connected(key: asyncio.AbstractEventLoop) -> None:
    try:
        while _connected.get(key):
            await asyncio.sleep(SWEEP_EVERY)
            held = _connected.get(key)
            if not held:
                break
            try:
                ended = await database_sync_to_async(_sweep, thread_sensitive=False)(list(held))
                for _class_id, code in ended:
                    await events.asend(code, {"type": "ended"})
            except Exception:  # the database or the layer away for a moment: the next sweep
                logger.exception("live classes: the idle sweep failed")
    finally:
        if _sweepers.get(key) is asyncio.current_task():  # not a sweeper started since
            del _sweepers[key]


def _hold(class_id: int, delta: int) -> None:
    """Count a connection to the class in (+1) or out (-1); the first one starts the sweeper."""
    key = asyncio.get_running_loop()
    held = _connected.setdefault(key, Counter())
    held[class_id] += delta
    if held[class_id] <= 0:
        del held[class_id]
    if not held:  # the last one went: so does the sweeper
        _connected.pop(key, None)
        sweeper = _sweepers.pop(key, None)
        if sweeper is not None and sweeper is not asyncio.current_task():
            sweeper.cancel()
    elif key not in _sweepers:
        _sweepers[key] = key.create_task(_sweep_while_connected(key))


class ClassConsumer(throttle.FloodClosing, AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    who: Who
    code: str
    last_touch: float = 0.0

    async def connect(self) -> None:
        self.code = str(self.scope["url_route"]["kwargs"]["code"])
        self.who = await database_sync_to_async(_identify)(
            self.code,
            self.scope.get("user"),
            self.scope.get("session"),
            self.scope.get("query_string", b""),
        )
        if self.who.language:
            # For this connection's task, and so for the threads its database calls run on
            # (Django keeps the active language in a context variable they inherit): errors,
            # refusals and the state come in the language the class is taught in.
            translation.activate(self.who.language)
        await self.accept()
        if not self.who.status and throttle.owner_blocked(self.who.owner):
            self.who.status = CLOSE_TOO_MANY
        if self.who.status:
            await self.close(code=self.who.status)
            return
        self.guard = throttle.FrameGuard(self.who.owner)
        self.watchdog = asyncio.ensure_future(self.link.watch(self.close_flooded))
        self.groups_joined = [selectors.group(self.code)]
        if self.who.role == "lecturer":
            self.groups_joined.append(selectors.lecturer_group(self.code))
        for name in self.groups_joined:
            await self.channel_layer.group_add(name, self.channel_name)
        _hold(self.who.class_id, +1)
        # joined first, read second: every change is in the state or arrives afterwards
        await self.send_json(await database_sync_to_async(_state)(self.who))

    async def disconnect(self, code: int) -> None:
        watchdog = getattr(self, "watchdog", None)
        if watchdog is not None:
            watchdog.cancel()
        if getattr(self, "groups_joined", None):
            _hold(self.who.class_id, -1)
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.who.status or self.closing:
            return
        if self.link.flooded():
            await self.close_flooded()
            return
        if not self.guard.frame():
            await self._error(_("Too many messages; wait a few seconds."), {})
            return
        if text_data is None or len(text_data) > MAX_FRAME_CHARS:
            await self._error(_("A message is a JSON object of at most 8 KB."), {})
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            content = None
        if not isinstance(content, dict):
            await self._error(_("A message is a JSON object of at most 8 KB."), {})
            return
        await self.receive_json(content)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        try:
            if self.who.role == "lecturer":
                try:
                    messages = await database_sync_to_async(_lecturer_action)(
                        self.who.class_id, self.scope.get("user"), content
                    )
                except IntegrityError as err:  # the same action from another tab, just now
                    raise services.ClassError(_("Please try again.")) from err
                for message in messages:
                    await events.asend(self.code, message)
                return
            if content.get("action") != "answer":
                raise services.ClassError(_("Only the lecturer drives the class."))
            now = time.monotonic()
            touch = now - self.last_touch > TOUCH_EVERY
            assert self.who.student_id is not None
            answer = services.Answer(
                self.who.student_id, content.get("questionId"), content.get("choice")
            )
            given = await _submit(self.who.class_id, answer, touch)
            if isinstance(given, services.ClassError):
                raise given
            if touch:
                self.last_touch = now
        except services.ClassError as err:
            await self._error(err.message, content)
            return
        reply = {"type": "answered", "questionId": content.get("questionId"), "choice": given}
        if "clientId" in content:
            reply["clientId"] = content["clientId"]
        await self.send_json(reply)
        _schedule_tally(self.code, self.who.class_id, int(content["questionId"]))

    async def _error(self, message: str, content: dict[str, Any]) -> None:
        """Refuse a frame: answered, dropped, or the socket closed (``FrameGuard.strike``)."""
        verdict = self.guard.strike()
        if verdict == "close":
            await self.close_flooded()
            return
        if verdict == "drop":
            return
        out: dict[str, Any] = {"type": "error", "message": message}
        if isinstance(content, dict) and "clientId" in content:
            out["clientId"] = content["clientId"]
        await self.send_json(out)

    async def class_relay(self, message: dict[str, Any]) -> None:
        """One change of the class, as its sender encoded it for everyone; a removed student's
        sockets are closed instead."""
        if message.get("removed") is not None and message["removed"] == self.who.student_id:
            self.closing = True
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.send(text_data=message["text"])
        if message.get("close"):
            await self.close(code=1000)
