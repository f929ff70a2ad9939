"""Websocket route of a run's event stream (``ws/runs/<ref>/``); playground/routing.py lists it."""

from django.urls import path

from .. import refs  # noqa: F401  (registers the runref converter the route below uses)
from .consumers import RunConsumer

websocket_urlpatterns = [
    path("ws/runs/<runref:run_id>/", RunConsumer.as_asgi()),
]
