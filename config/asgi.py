"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402


def _websocket_routes() -> list:
    try:
        from playground.routing import websocket_urlpatterns
    except ImportError:  # the websocket routes arrive with the runs issue
        return []
    return list(websocket_urlpatterns)


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(_websocket_routes()))
        ),
    }
)
