"""Every feature's stored rows, gathered in the app's one models module (Django and migrations
look here): each feature package owns its models, this module only re-exports them.
"""

from __future__ import annotations

from .classes.models import ClassAnswer, ClassQuestion, ClassStudent, LiveClass
from .clusters.models import Cluster, KubeObject, Node, Pod
from .custom_plugins.models import CustomPlugin
from .lessons.models import LessonProgress, SharedLessonRun
from .profiles.models import Profile
from .runs.models import Run, RunCommand, RunCycle, RunEvent, RunInput, RunSnapshot

__all__ = [
    "ClassAnswer",
    "ClassQuestion",
    "ClassStudent",
    "Cluster",
    "CustomPlugin",
    "KubeObject",
    "LessonProgress",
    "LiveClass",
    "Node",
    "Pod",
    "Profile",
    "Run",
    "RunCommand",
    "RunCycle",
    "RunEvent",
    "RunInput",
    "RunSnapshot",
    "SharedLessonRun",
]
