"""Websocket route of live classes (included by playground/routing.py before its catch-all)."""

from django.urls import re_path

from .consumers import ClassConsumer

websocket_urlpatterns = [
    re_path(r"^ws/classes/(?P<code>[A-Z0-9]{6})/$", ClassConsumer.as_asgi()),
]
