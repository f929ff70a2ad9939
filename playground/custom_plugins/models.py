"""CustomPlugin: one user's CEL plugin definition; demo ones have no owner and are read by all."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class CustomPlugin(models.Model):
    """A plugin definition: ``points`` maps an extension point to its CEL expression."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="custom_plugins",
        null=True,
        blank=True,
    )
    name = models.CharField(max_length=63)
    description = models.TextField(blank=True)
    points = models.JSONField(default=dict)
    filter_reason = models.CharField(max_length=200, blank=True)
    normalize = models.CharField(max_length=16, default="none")
    is_demo = models.BooleanField(default=False, db_index=True)
    is_placeholder = models.BooleanField(default=False)
    share_token = models.UUIDField(null=True, blank=True, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(is_demo=True) | models.Q(owner__isnull=False),
                name="customplugin_owned_or_demo",
            ),
            models.UniqueConstraint(
                fields=["owner", "name"], name="customplugin_unique_name_per_owner"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def as_definition(self) -> dict[str, Any]:
        """The engine's exported form: ``{name, points, filterReason, normalize}``."""
        out: dict[str, Any] = {"name": self.name, "points": dict(self.points)}
        if self.filter_reason:
            out["filterReason"] = self.filter_reason
        if self.normalize and self.normalize != "none":
            out["normalize"] = self.normalize
        return out
