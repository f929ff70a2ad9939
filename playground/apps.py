"""App configuration."""

from django.apps import AppConfig


class PlaygroundConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "playground"
    verbose_name = "Scheduler playground"

    def ready(self) -> None:
        from . import throttle  # noqa: F401  (connects the login-failure signals)
