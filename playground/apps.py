"""App configuration."""

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "playground"
    verbose_name = "Scheduler playground"

    def ready(self) -> None:
        from django.utils.translation import gettext, ngettext

        from scheduler_core.words import set_translator

        from . import throttle  # noqa: F401  (connects the login-failure signals)
        from .runs.execution import tasks  # noqa: F401  (registers how a stored run is queued)

        # The engine's explanations come out in the language of the request that asks for them.
        set_translator(gettext, ngettext)
