"""URL routes of runs (included by playground/urls.py). ``runref`` is a signed run reference
(``runs/refs.py`` registers the converter)."""

from django.urls import path

from .. import refs  # noqa: F401  (registers the runref converter the routes below use)
from ..explain import views as explain_views
from . import change_views, views

urlpatterns = [
    path("clusters/<int:pk>/run", views.run_new, name="run_new"),
    path(
        "clusters/<int:pk>/run-with-changes/",
        change_views.run_with_changes,
        name="run_with_changes",
    ),
    path("runs/<runref:pk>/", views.run_page, name="run"),
    path("runs/<runref:pk>/events.json", views.run_events_json, name="run_events"),
    path("runs/<runref:pk>/cycles.json", views.run_cycles_json, name="run_cycles"),
    path("runs/<runref:pk>/changes.json", views.run_changes_json, name="run_changes"),
    path("runs/<runref:pk>/cycles/<int:cycle>.json", views.run_cycle_json, name="run_cycle"),
    path("runs/<runref:pk>/apply/", views.run_apply, name="run_apply"),
    path(
        "runs/<runref:pk>/cycles/<int:cycle>/explain.json",
        explain_views.run_explain_json,
        name="run_explain",
    ),
    path("runs/<runref:pk>/usage.json", views.run_usage_json, name="run_usage"),
    path("runs/<runref:pk>/devices.json", views.run_devices_json, name="run_devices"),
    path("runs/<runref:pk>/gangs.json", views.run_gangs_json, name="run_gangs"),
    path("runs/<runref:pk>/permit/", views.run_permit, name="run_permit"),
    path("runs/<runref:pk>/cancel/", views.run_cancel, name="run_cancel"),
    path("runs/<runref:pk>/try/", change_views.run_try_change, name="run_try_change"),
    path("runs/<runref:pk>/change/", change_views.run_change, name="run_change"),
    path("compare/<runref:a>/<runref:b>/", views.compare, name="compare"),
]
