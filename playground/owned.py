"""The shape every user-made object shares: owned by one user, or a demo everyone reads.

A cluster, a profile and a custom plugin each belong to a user, or are demo content with no
owner (``is_demo``), never neither: the database holds that rule (``<model>_owned_or_demo``).
``Shareable`` adds the link a user hands to others (read by ``share_token``), ``Copyable`` the
demo or shared object a copy was made from.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext


class OwnedOrDemo(models.Model):
    """Owned by a user, or demo content (no owner), ordered by name; the rule is a constraint."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="%(class)ss",
        null=True,
        blank=True,
    )
    description = models.TextField(blank=True)
    is_demo = models.BooleanField(default=False, db_index=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    @property
    def shown_name(self) -> str:
        """The name as the reader reads it: a demo's in the reader's language (the demo content
        marks its names for translation), a user's as typed."""
        name = str(getattr(self, "name", ""))
        return gettext(name) if self.is_demo and name else name

    class Meta:
        abstract = True
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(is_demo=True) | models.Q(owner__isnull=False),
                name="%(class)s_owned_or_demo",
            ),
        ]

    def __str__(self) -> str:
        return str(getattr(self, "name", "")) or f"{type(self).__name__} {self.pk}"


class Shareable(models.Model):
    """Readable by anyone holding its link (``?share=<token>``) while the token is set."""

    share_token = models.UUIDField(null=True, blank=True, unique=True)

    class Meta:
        abstract = True


class Copyable(models.Model):
    """Made as a copy of a demo or shared object: the original, while it exists."""

    copied_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="copies"
    )

    class Meta:
        abstract = True
