"""Exceptions raised by scheduler_core."""

from __future__ import annotations


class SchedulerCoreError(Exception):
    """Base class of every error the engine raises on purpose."""


class ManifestError(SchedulerCoreError, ValueError):
    """A Kubernetes manifest (or a field of it) could not be understood.

    ``path`` names the field (``spec.containers[0].resources.requests.cpu``).
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class UnknownPluginError(SchedulerCoreError):
    """A profile names a plugin that no registry knows."""
