"""scheduler_core: a faithful, pure-Python re-implementation of kube-scheduler v1.35."""

from __future__ import annotations

__all__: list[str] = []
