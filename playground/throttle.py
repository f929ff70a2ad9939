"""Throttles: sign-in and sign-up (below), a websocket's frames (``FrameGuard``) and joining a
live class (``join_throttled``), each described in its section. Sign-in throttling slows guessing
and never locks out another user's correct sign-in.

Failed sign-ins are counted in the cache (Redis in the full stack, so every web process sees the
same counts) by the ``user_login_failed`` signal, three ways, each over a window
(``LOGIN_FAILURE_WINDOW_SECONDS``):

- per address and user name (``LOGIN_FAILURES_PER_PAIR``): that user name is refused (429) from
  that address: someone guessing one account from one place;
- per user name (``LOGIN_FAILURES_PER_USER``): the account is under attack and refused from
  everywhere, except from a browser that signed in to it before (a signed cookie, which spares
  it the address's slowing below too), so the owner still gets in;
- per address (``LOGIN_FAILURES_PER_ADDRESS``): past it the address only slows down: each user
  name may fail ``LOGIN_FAILURES_PER_PAIR_SLOWED`` times from it (a spray over many accounts gets
  that many guesses each). The address's count never refuses a sign-in by itself: behind a
  proxy everyone has one address, and a correct password for an account that nobody attacks
  always gets in.

A successful sign-in clears its pair's count. Sign-ups are counted per address
(``SIGNUPS_PER_ADDRESS`` accounts and ``SIGNUP_ATTEMPTS_PER_ADDRESS`` form posts per
``SIGNUP_WINDOW_SECONDS``). The address is REMOTE_ADDR, or, behind ``PLAYGROUND_TRUSTED_PROXIES``
proxies, the address the nearest untrusted hop gave in X-Forwarded-For.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final
from weakref import WeakKeyDictionary

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core import signing
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext

LOGIN_PATHS: Final = ("/accounts/login/", "/admin/login/")
KNOWN_COOKIE: Final = "signed_in_before"
KNOWN_SALT: Final = "playground.throttle.known"
KNOWN_KEPT: Final = 5  # user names remembered per browser
KNOWN_MAX_AGE: Final = 180 * 24 * 3600


@dataclass(frozen=True, slots=True)
class Limits:
    per_pair: int
    per_pair_slowed: int
    per_user: int
    per_address: int
    window: int
    signups: int
    signup_attempts: int
    signup_window: int


def _setting(name: str, default: int) -> int:
    """A budget from the settings (every one is an environment variable there), or its default."""
    return int(getattr(settings, name, default))


def limits() -> Limits:
    get = _setting
    return Limits(
        per_pair=get("LOGIN_FAILURES_PER_PAIR", 5),
        per_pair_slowed=get("LOGIN_FAILURES_PER_PAIR_SLOWED", 2),
        per_user=get("LOGIN_FAILURES_PER_USER", 10),
        per_address=get("LOGIN_FAILURES_PER_ADDRESS", 50),
        window=get("LOGIN_FAILURE_WINDOW_SECONDS", 900),
        signups=get("SIGNUPS_PER_ADDRESS", 20),
        signup_attempts=get("SIGNUP_ATTEMPTS_PER_ADDRESS", 60),
        signup_window=get("SIGNUP_WINDOW_SECONDS", 3600),
    )


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the one the trusted proxies were given."""
    return _address(
        str(request.META.get("REMOTE_ADDR", "")), str(request.META.get("HTTP_X_FORWARDED_FOR", ""))
    )


def scope_address(scope: Any) -> str:
    """A websocket's client address, as ``client_address`` reads a request's."""
    client = scope.get("client") or ("",)
    headers = dict(scope.get("headers") or [])
    forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1")
    return _address(str(client[0] or ""), forwarded)


def _address(remote: str, forwarded: str) -> str:
    hops = int(getattr(settings, "PLAYGROUND_TRUSTED_PROXIES", 0))
    if hops > 0 and forwarded:
        chain = [a.strip() for a in forwarded.split(",") if a.strip()]
        if chain:
            return chain[max(0, len(chain) - hops)][:64]
    return remote


def _name(username: str) -> str:
    return username.strip().lower()[:150]


def _keys(request: HttpRequest, username: str) -> tuple[str, str, str]:
    """(pair, user name, address) counter keys."""
    address, name = client_address(request), _name(username)
    return (
        f"login-fail:pair:{address}:{name}",
        f"login-fail:user:{name}",
        f"login-fail:addr:{address}",
    )


def _count(key: str) -> int:
    return int(cache.get(key, 0))


def _bump(key: str, window: int) -> None:
    if not cache.add(key, 1, window):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, window)


def known_names(request: HttpRequest) -> list[str]:
    """The user names this browser signed in as before (the signed cookie), newest last."""
    try:
        value = signing.loads(
            request.COOKIES.get(KNOWN_COOKIE, ""), salt=KNOWN_SALT, max_age=KNOWN_MAX_AGE
        )
    except signing.BadSignature:
        return []
    return [str(n) for n in value][-KNOWN_KEPT:] if isinstance(value, list) else []


def is_throttled(request: HttpRequest, username: str) -> bool:
    """Whether a sign-in as ``username`` from this request is refused before it is checked."""
    lim = limits()
    pair_key, user_key, address_key = _keys(request, username)
    pair = _count(pair_key)
    if pair >= lim.per_pair:
        return True
    if _name(username) in known_names(request):  # its owner's browser, most likely
        return False
    if _count(address_key) >= lim.per_address and pair >= lim.per_pair_slowed:
        return True
    return _count(user_key) >= lim.per_user


@receiver(user_login_failed)
def _on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    if request is None:
        return
    window = limits().window
    for key in _keys(request, str(credentials.get("username") or "")):
        _bump(key, window)


@receiver(user_logged_in)
def _on_logged_in(sender: Any, request: HttpRequest | None, user: Any, **_: Any) -> None:
    if request is not None:
        cache.delete(_keys(request, user.get_username())[0])
        request._signed_in_as = _name(user.get_username())  # type: ignore[attr-defined]


def _remember(request: HttpRequest, response: HttpResponse) -> None:
    """Mark this browser as one that signed in as the user (the per-user lock spares it)."""
    name = getattr(request, "_signed_in_as", None)
    if not name:
        return
    names = [n for n in known_names(request) if n != name] + [name]
    response.set_cookie(
        KNOWN_COOKIE,
        signing.dumps(names[-KNOWN_KEPT:], salt=KNOWN_SALT),
        max_age=KNOWN_MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=bool(getattr(settings, "SESSION_COOKIE_SECURE", False)),
    )


def too_many(request: HttpRequest, what: str, seconds: int) -> HttpResponse:
    minutes = max(1, seconds // 60)
    body = render_to_string("429.html", {"minutes": minutes, "what": what}, request=request)
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(seconds)
    return response


class LoginThrottleMiddleware:
    """Answer a sign-in POST with 429 while its user name is locked for this request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path in LOGIN_PATHS:
            if is_throttled(request, request.POST.get("username", "")):
                return too_many(request, gettext("sign-ins"), limits().window)
            response = self.get_response(request)
            _remember(request, response)
            return response
        return self.get_response(request)


# -- sign-up --------------------------------------------------------------------------------------


def _signup_keys(request: HttpRequest) -> tuple[str, str]:
    address = client_address(request)
    return f"signup:accounts:{address}", f"signup:posts:{address}"


def signup_throttled(request: HttpRequest) -> bool:
    """Whether this address has created or tried to create too many accounts lately."""
    lim = limits()
    accounts, posts = _signup_keys(request)
    return _count(accounts) >= lim.signups or _count(posts) >= lim.signup_attempts


def signup_attempted(request: HttpRequest, *, created: bool) -> None:
    lim = limits()
    accounts, posts = _signup_keys(request)
    _bump(posts, lim.signup_window)
    if created:
        _bump(accounts, lim.signup_window)


# -- websocket frames -----------------------------------------------------------------------------
# A socket's frames cost the server work whether they are accepted or refused, and answering a
# refused frame costs as much as accepting one: ten sockets sending refused commands as fast as
# they could stalled every other request of the process. So each frame first takes a token from
# its connection's bucket and from its owner's (a user, a student, or an anonymous visitor's
# address: all their sockets on this process together), whatever the frame says. A frame without
# a token, and any frame the consumer refuses, is a strike: the first few strikes are answered
# with an error, later ones dropped unread, and at ``close_after`` the socket is closed
# (``CLOSE_TOO_MANY``) and its owner's new sockets are refused for ``penalty`` seconds. Strikes and
# tokens come back with time. The state is per event loop (per process in production: the
# embedded server and the compose stack's web service each run one).

CLOSE_TOO_MANY: Final = 4429


@dataclass(frozen=True, slots=True)
class FrameLimits:
    per_socket: float  # frames a second, sustained
    socket_burst: float
    per_owner: float
    owner_burst: float
    answered: float  # strikes answered with an error before the rest are dropped
    close_after: float
    strike_decay: float  # strikes forgotten a second
    penalty: float  # seconds an abusive owner's new sockets are refused


def frame_limits() -> FrameLimits:
    def get(name: str, default: float) -> float:
        return float(getattr(settings, name, default))

    return FrameLimits(
        per_socket=get("WS_FRAMES_PER_SECOND", 2),
        socket_burst=get("WS_FRAMES_BURST", 20),
        per_owner=get("WS_OWNER_FRAMES_PER_SECOND", 5),
        owner_burst=get("WS_OWNER_FRAMES_BURST", 40),
        answered=get("WS_STRIKES_ANSWERED", 8),
        close_after=get("WS_STRIKES_CLOSE", 60),
        strike_decay=get("WS_STRIKE_DECAY_PER_SECOND", 1),
        penalty=get("WS_PENALTY_SECONDS", 60),
    )


@dataclass(slots=True)
class _Bucket:
    """Up to ``burst`` tokens, refilled at ``rate`` a second (a strike count when decaying)."""

    level: float
    at: float

    def settle(self, now: float, rate: float, low: float, high: float) -> float:
        self.level = min(high, max(low, self.level + (now - self.at) * rate))
        self.at = now
        return self.level


@dataclass(slots=True)
class _Owners:
    buckets: dict[str, _Bucket]
    blocked: dict[str, float]  # owner -> monotonic time its penalty ends


_owners: WeakKeyDictionary[asyncio.AbstractEventLoop, _Owners] = WeakKeyDictionary()
_OWNERS_KEPT: Final = 10000  # full buckets are forgotten past this many owners


def _loop_owners() -> _Owners:
    loop = asyncio.get_running_loop()
    found = _owners.get(loop)
    if found is None:
        found = _owners[loop] = _Owners({}, {})
    return found


def owner_blocked(owner: str) -> bool:
    """Whether the owner's sockets are refused for now (it flooded one lately)."""
    owners = _loop_owners()
    until = owners.blocked.get(owner)
    if until is None:
        return False
    if until > time.monotonic():
        return True
    del owners.blocked[owner]
    return False


def owner_penalise(owner: str) -> None:
    """Refuse the owner's new sockets for the penalty (it flooded one)."""
    _loop_owners().blocked[owner] = time.monotonic() + frame_limits().penalty


class FrameGuard:
    """One websocket's frame budget and strikes, and a share of its owner's budget."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.limits = frame_limits()
        now = time.monotonic()
        self.tokens = _Bucket(self.limits.socket_burst, now)
        self.strikes = _Bucket(0.0, now)

    def frame(self) -> bool:
        """Take a token for a frame that arrived; False (and a strike is due) without one."""
        lim, now = self.limits, time.monotonic()
        if self.tokens.settle(now, lim.per_socket, 0.0, lim.socket_burst) < 1:
            return False
        owners = _loop_owners()
        shared = owners.buckets.get(self.owner)
        if shared is None:
            if len(owners.buckets) >= _OWNERS_KEPT:
                _forget_full(owners, now, lim)
            shared = owners.buckets[self.owner] = _Bucket(lim.owner_burst, now)
        if shared.settle(now, lim.per_owner, 0.0, lim.owner_burst) < 1:
            return False
        self.tokens.level -= 1
        shared.level -= 1
        return True

    def strike(self) -> str:
        """Count a refused frame: "answer" it, "drop" it unanswered, or "close" the socket (the
        owner is then refused new sockets for the penalty)."""
        lim, now = self.limits, time.monotonic()
        level = self.strikes.settle(now, -lim.strike_decay, 0.0, lim.close_after) + 1
        self.strikes.level = level
        if level >= lim.close_after:
            owner_penalise(self.owner)
            return "close"
        return "answer" if level <= lim.answered else "drop"


def _forget_full(owners: _Owners, now: float, lim: FrameLimits) -> None:
    for key, bucket in list(owners.buckets.items()):
        if bucket.settle(now, lim.per_owner, 0.0, lim.owner_burst) >= lim.owner_burst:
            del owners.buckets[key]


# -- joining a live class -------------------------------------------------------------------------
# Anyone with a class's code may join it, with no account: per address, joins
# (``JOINS_PER_ADDRESS``) and attempts with a code of no open class (``JOIN_GUESSES_PER_ADDRESS``,
# which makes guessing codes slow) are counted over ``JOIN_WINDOW_SECONDS``, and per class the
# joins (``JOINS_PER_CLASS``) over the same window. Past a count the join is refused (429).
# A whole room often joins from one address (a school's or a conference's network behind one
# NAT): the address limit stays above a full room, and the class's own limit bounds one class.


@dataclass(frozen=True, slots=True)
class JoinLimits:
    per_address: int
    guesses: int
    per_class: int
    window: int


def join_limits() -> JoinLimits:
    get = _setting
    return JoinLimits(
        per_address=get("JOINS_PER_ADDRESS", 400),
        guesses=get("JOIN_GUESSES_PER_ADDRESS", 30),
        per_class=get("JOINS_PER_CLASS", 300),
        window=get("JOIN_WINDOW_SECONDS", 600),
    )


def _join_keys(request: HttpRequest, code: str) -> tuple[str, str, str]:
    address = client_address(request)
    return f"join:addr:{address}", f"join:guess:{address}", f"join:class:{code[:16]}"


def join_throttled(request: HttpRequest, code: str) -> bool:
    """Whether a join from this request to ``code`` is refused before it is tried."""
    lim = join_limits()
    joins, guesses, per_class = _join_keys(request, code)
    return (
        _count(joins) >= lim.per_address
        or _count(guesses) >= lim.guesses
        or _count(per_class) >= lim.per_class
    )


def join_attempted(request: HttpRequest, code: str, *, joined: bool, no_class: bool) -> None:
    """Count a join: a student who joined, or a code of no open class."""
    lim = join_limits()
    joins, guesses, per_class = _join_keys(request, code)
    if joined:
        _bump(joins, lim.window)
        _bump(per_class, lim.window)
    elif no_class:
        _bump(guesses, lim.window)


FLOOD_BACKLOG: Final = 200  # frames waiting for a socket's consumer: only a flood gets there
# seconds between a socket's backlog checks (``SocketLink.watch``): often at first, when a
# flooder starts, then less (a flood later is seen by the frames' own check in ``receive``)
WATCH_FIRST: Final = 0.1
WATCH_LAST: Final = 2.0


class SocketLink:
    """What a consumer needs of the server below ASGI: how many of its frames wait (daphne's
    queue behind ``receive``) and the TCP connection to cut. A close frame alone leaves the
    connection open until the client answers it, and a flooder does not read: daphne went on
    parsing its frames, seconds of the process's time under ten sockets, and the consumer saw
    them seconds late. Under another server (a test's communicator) both are unknown: no
    backlog, nothing to cut."""

    def __init__(self, receive: Any, send: Any) -> None:
        self.queue = getattr(receive, "__self__", None)
        while hasattr(getattr(send, "__self__", None), "real_send"):  # channels' session wrapper
            send = send.__self__.real_send
        args = getattr(send, "args", ())  # daphne's send: partial(handle_reply, protocol)
        self.transport = getattr(args[0], "transport", None) if args else None

    async def watch(self, on_flood: Callable[[], Awaitable[None]]) -> None:
        """Check the backlog now and then, beside the consumer: while it awaits
        the database (its connect's catch-up, a command) it reads no frame, and a flood piles up
        unseen. Ends at the first flood (after ``on_flood``) or when cancelled."""
        if self.queue is None:
            return
        every = WATCH_FIRST
        while not self.flooded():
            await asyncio.sleep(every)
            every = min(WATCH_LAST, every * 1.5)
        await on_flood()

    def flooded(self) -> bool:
        qsize = getattr(self.queue, "qsize", None)
        return qsize is not None and int(qsize()) > FLOOD_BACKLOG

    def cut(self) -> None:
        """Abort the connection and drop the frames still waiting (hundreds of thousands under
        a flood, each a dispatch of the consumer's); other messages (the disconnect) stay."""
        abort = getattr(self.transport, "abortConnection", None)
        if abort is not None:
            abort()
        if not hasattr(self.queue, "get_nowait"):
            return
        kept = []
        while not self.queue.empty():
            message = self.queue.get_nowait()
            if not (isinstance(message, dict) and message.get("type") == "websocket.receive"):
                kept.append(message)
        for message in kept:
            self.queue.put_nowait(message)


class FloodClosing:
    """Mixin of the websocket consumers (before the Channels consumer class): keeps the
    ``SocketLink`` of the socket and closes a flooded one (``close_flooded``). The consumer sets
    ``guard`` (its ``FrameGuard``) in connect and ignores frames once ``closing``."""

    closing: bool = False
    link: SocketLink
    guard: FrameGuard
    close: Callable[..., Awaitable[None]]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.link = SocketLink(receive, send)
        await super().__call__(scope, receive, send)  # type: ignore[misc]

    async def close_flooded(self) -> None:
        """Close the socket, refuse its owner's for a while, and cut its connection."""
        if self.closing:
            return
        self.closing = True
        owner_penalise(self.guard.owner)
        await self.close(code=CLOSE_TOO_MANY)
        self.link.cut()
