"""ASGI entry point: HTTP through Django, websockets through Channels.

Websockets pass the origin check (the Origin header's scheme, host and port must be the page's
own, config/origin.py) and get the session's user (AuthMiddlewareStack) before they reach a
consumer. While DEBUG is on, only this machine is served, whatever server runs this application.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.origin import LoopbackOnlyWhileDebug, SameOriginValidator  # noqa: E402
from playground.routing import websocket_urlpatterns  # noqa: E402

application = LoopbackOnlyWhileDebug(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        }
    )
)
