"""Websocket routes of the playground app."""

from django.urls import path, re_path, register_converter

from ..classes.routing import websocket_urlpatterns as class_websocket_urlpatterns
from .consumers import RefusedConsumer, RunConsumer
from .refs import RunRefConverter

register_converter(RunRefConverter, "runref")

websocket_urlpatterns = [
    path("ws/runs/<runref:run_id>/", RunConsumer.as_asgi()),
    *class_websocket_urlpatterns,
    # last: any other path (a run reference malformed or wrongly signed) is refused here,
    # not by the router, which raises (a handshake 500 and a traceback in the log)
    re_path(r"", RefusedConsumer.as_asgi()),
]
