"""What Django's debug page and error reports may show: settings, request metadata and frame
variables with the passwords in URLs replaced (``redis://:pw@host`` -> ``redis://:********@host``).

Django hides settings whose *name* looks secret (``SECRET_KEY``, ``DATABASES.PASSWORD``); a
URL's password hides in settings named ``REDIS_URL``, ``CACHES.LOCATION``, ``CELERY_BROKER_URL``
or the channel layer's hosts, and under WSGI the process environment is part of ``request.META``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from django.views.debug import SafeExceptionReporterFilter

# scheme://[user][:password]@ : the password (or a lone user part, which Redis uses as one).
_CREDENTIALS: Final = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s]*)@")
SUBSTITUTE: Final = "********"


def scrub_url_credentials(text: str) -> str:
    """``text`` with the password of every URL in it replaced (the user name is kept)."""

    def hide(match: re.Match[str]) -> str:
        user, colon, _ = match["userinfo"].partition(":")
        shown = f"{user}:{SUBSTITUTE}" if colon else SUBSTITUTE
        return f"{match['scheme']}{shown}@"

    return _CREDENTIALS.sub(hide, text)


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return scrub_url_credentials(value)
    if isinstance(value, bytes):
        return scrub_url_credentials(value.decode("utf-8", "replace"))
    return value


class ScrubbingReporterFilter(SafeExceptionReporterFilter):
    """Django's filter, and URL passwords scrubbed from every string it would show."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|CREDENTIAL", flags=re.IGNORECASE
    )

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        return _scrubbed(super().cleanse_setting(key, value))

    def get_traceback_frame_variables(self, request: Any, tb_frame: Any) -> Any:
        """Each frame's variables: secret-named ones hidden, URL passwords scrubbed."""
        return [
            (name, self.cleanse_setting(name, value))
            for name, value in super().get_traceback_frame_variables(request, tb_frame)
        ]
