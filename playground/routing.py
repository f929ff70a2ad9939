"""Websocket routes of the playground, one list per feature, included here once.

``config/asgi.py`` serves ``websocket_urlpatterns``: a run's event stream (``runs/live/``), then a
live class (``classes/``), then a catch-all that refuses any other path politely.
"""

from django.urls import re_path

from .classes.routing import websocket_urlpatterns as class_routes
from .runs.live.consumers import RefusedConsumer
from .runs.live.routing import websocket_urlpatterns as run_routes

websocket_urlpatterns = [
    *run_routes,
    *class_routes,
    # last: any other path (a run reference malformed or wrongly signed) is refused here,
    # not by the router, which raises (a handshake 500 and a traceback in the log)
    re_path(r"", RefusedConsumer.as_asgi()),
]
