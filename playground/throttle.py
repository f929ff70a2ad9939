"""Sign-in and sign-up throttling that slows guessing and never locks out another user's correct
sign-in.

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

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


def limits() -> Limits:
    def get(name: str, default: int) -> int:
        return int(getattr(settings, name, default))

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
    address = str(request.META.get("REMOTE_ADDR", ""))
    hops = int(getattr(settings, "PLAYGROUND_TRUSTED_PROXIES", 0))
    forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR", ""))
    if hops > 0 and forwarded:
        chain = [a.strip() for a in forwarded.split(",") if a.strip()]
        if chain:
            return chain[max(0, len(chain) - hops)][:64]
    return address


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
