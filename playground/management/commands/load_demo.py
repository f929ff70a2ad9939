"""manage.py load_demo: create or refresh the built-in clusters and profiles (idempotent)."""

from django.core.management.base import BaseCommand

from playground.demo import demo_load


class Command(BaseCommand):
    help = "Create or refresh the demo clusters, profiles and lessons; safe to run repeatedly."

    def handle(self, *args: object, **options: object) -> None:
        counts = demo_load()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo content ready: {counts['clusters']} clusters, "
                f"{counts['profiles']} profiles, {counts['lessons']} lessons."
            )
        )
