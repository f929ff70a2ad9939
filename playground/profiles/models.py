"""Profile: a whole KubeSchedulerConfiguration as a user wrote it (or a demo one)."""

from __future__ import annotations

from django.db import models

from ..owned import Copyable, OwnedOrDemo


class Profile(OwnedOrDemo, Copyable):
    """A whole KubeSchedulerConfiguration (v1 wire format, as the user wrote it)."""

    name = models.CharField(max_length=200)
    config = models.JSONField(default=dict)

    class Meta(OwnedOrDemo.Meta):
        pass
