"""Websocket routes of the playground app."""

from django.urls import path, register_converter

from .consumers import RunConsumer
from .refs import RunRefConverter

register_converter(RunRefConverter, "runref")

websocket_urlpatterns = [
    path("ws/runs/<runref:run_id>/", RunConsumer.as_asgi()),
]
