"""Loading the built-in demo content: a write that spans features, each doing its own part
(``clusters/services.py``, ``profiles/services.py``, ``lessons/services.py``,
``custom_plugins/services.py``) in one transaction.
"""

from __future__ import annotations

from django.db import transaction

from ..clusters.services import demo_cluster_put
from ..custom_plugins.services import demo_load as custom_plugins_demo_load
from ..lessons.services import lessons_load
from ..profiles.services import demo_profile_put
from . import content as demo


def demo_load() -> dict[str, int]:
    """Create or refresh the built-in clusters, profiles and lessons (idempotent)."""
    counts = {"clusters": 0, "profiles": 0}
    with transaction.atomic():
        counts["custom_plugins"] = custom_plugins_demo_load()
        for name, description, text in demo.CLUSTERS:
            demo_cluster_put(name=name, description=description, text=text)
            counts["clusters"] += 1
        for name, description, config in demo.PROFILES:
            demo_profile_put(name=name, description=description, config=config)
            counts["profiles"] += 1
        lessons = lessons_load()
    demo.ensure_large_cluster()
    counts["clusters"] += 1
    counts["lessons"] = lessons
    return counts
