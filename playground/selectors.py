"""Reads every feature shares: what a user may see.

Each feature keeps its own reads (``clusters/selectors.py``, ``profiles/selectors.py``, ...).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

User = AbstractBaseUser | AnonymousUser


def visible(user: User) -> Q:
    if user.is_authenticated:
        return Q(is_demo=True) | Q(owner=user)
    return Q(is_demo=True)
