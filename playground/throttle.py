"""Login throttling: too many failed sign-ins for one user name or one address get a 429.

Failures are counted in the cache (Redis in the full stack, so every web process sees the
same counts) by the ``user_login_failed`` signal; the middleware refuses further login POSTs
until the window has passed. A successful login clears the user name's count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

LOGIN_PATHS: Final = ("/accounts/login/", "/admin/login/")


def _limits() -> tuple[int, int, int]:
    """(failures per user name, failures per address, window in seconds)."""
    return (
        int(getattr(settings, "LOGIN_FAILURES_PER_USER", 10)),
        int(getattr(settings, "LOGIN_FAILURES_PER_ADDRESS", 50)),
        int(getattr(settings, "LOGIN_FAILURE_WINDOW_SECONDS", 900)),
    )


def _keys(request: HttpRequest, username: str) -> tuple[str, str]:
    address = request.META.get("REMOTE_ADDR", "")
    return f"login-fail:user:{username.strip().lower()[:150]}", f"login-fail:addr:{address}"


def _count(key: str) -> int:
    return int(cache.get(key, 0))


def _bump(key: str, window: int) -> None:
    if not cache.add(key, 1, window):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, window)


def is_throttled(request: HttpRequest, username: str) -> bool:
    per_user, per_address, _ = _limits()
    user_key, address_key = _keys(request, username)
    return _count(user_key) >= per_user or _count(address_key) >= per_address


@receiver(user_login_failed)
def _on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    if request is None:
        return
    window = _limits()[2]
    for key in _keys(request, str(credentials.get("username") or "")):
        _bump(key, window)


@receiver(user_logged_in)
def _on_logged_in(sender: Any, request: HttpRequest | None, user: Any, **_: Any) -> None:
    if request is not None:
        cache.delete(_keys(request, user.get_username())[0])


class LoginThrottleMiddleware:
    """Answer a login POST with 429 while its user name or address is over the limit."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method == "POST"
            and request.path in LOGIN_PATHS
            and is_throttled(request, request.POST.get("username", ""))
        ):
            minutes = max(1, _limits()[2] // 60)
            body = render_to_string("429.html", {"minutes": minutes}, request=request)
            response = HttpResponse(body, status=429)
            response["Retry-After"] = str(_limits()[2])
            return response
        return self.get_response(request)
