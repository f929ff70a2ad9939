"""CustomPlugin: one user's CEL plugin definition; demo ones have no owner and are read by all."""

from __future__ import annotations

from typing import Any

from django.db import models

from ..owned import OwnedOrDemo, Shareable


class CustomPlugin(OwnedOrDemo, Shareable):
    """A plugin definition: ``points`` maps an extension point to its CEL expression."""

    name = models.CharField(max_length=63)
    points = models.JSONField(default=dict)
    filter_reason = models.CharField(max_length=200, blank=True)
    normalize = models.CharField(max_length=16, default="none")
    is_placeholder = models.BooleanField(default=False)

    class Meta(OwnedOrDemo.Meta):
        constraints = [
            *OwnedOrDemo.Meta.constraints,
            models.UniqueConstraint(
                fields=["owner", "name"], name="customplugin_unique_name_per_owner"
            ),
        ]

    def as_definition(self) -> dict[str, Any]:
        """The engine's exported form: ``{name, points, filterReason, normalize}``."""
        out: dict[str, Any] = {"name": self.name, "points": dict(self.points)}
        if self.filter_reason:
            out["filterReason"] = self.filter_reason
        if self.normalize and self.normalize != "none":
            out["normalize"] = self.normalize
        return out
