"""Django project for the kube-scheduler playground."""

from .celery import app as celery_app

__all__ = ["celery_app"]
