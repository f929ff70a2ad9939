"""URL routes of the playground app."""

from django.urls import path

from . import views
from .runs import views as run_views

app_name = "playground"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("clusters/new/", views.cluster_new, name="cluster_new"),
    path("clusters/<int:pk>/", views.cluster_detail, name="cluster"),
    path("clusters/<int:pk>/edit/", views.cluster_edit, name="cluster_edit"),
    path("clusters/<int:pk>/delete/", views.cluster_delete, name="cluster_delete"),
    path("clusters/<int:pk>/copy/", views.cluster_copy, name="cluster_copy"),
    path("clusters/<int:pk>/share/", views.cluster_share, name="cluster_share"),
    path("clusters/<int:pk>/reset-pods/", views.cluster_reset_pods, name="cluster_reset_pods"),
    path("clusters/<int:pk>/import/", views.cluster_import, name="cluster_import"),
    path("clusters/<int:pk>/export.yaml", views.cluster_export, name="cluster_export"),
    path("clusters/<int:pk>/nodes/new/", views.node_form, name="node_new"),
    path("clusters/<int:pk>/nodes/<str:name>/edit/", views.node_form, name="node_edit"),
    path("clusters/<int:pk>/nodes/<str:name>/delete/", views.node_delete, name="node_delete"),
    path("clusters/<int:pk>/pods/new/", views.pod_form, name="pod_new"),
    path("clusters/<int:pk>/workloads/new/", views.pod_form, name="workload_new"),
    path(
        "clusters/<int:pk>/pods/<str:namespace>/<str:name>/edit/", views.pod_form, name="pod_edit"
    ),
    path(
        "clusters/<int:pk>/pods/<str:namespace>/<str:name>/delete/",
        views.pod_delete,
        name="pod_delete",
    ),
    path(
        "clusters/<int:pk>/objects/<int:object_pk>/delete/",
        views.object_delete,
        name="object_delete",
    ),
    path("shared/<uuid:token>/", views.shared_cluster, name="shared_cluster"),
    path(
        "shared/<uuid:token>/export.yaml", views.shared_cluster_export, name="shared_cluster_export"
    ),
    path("api/sync/<str:kind>/", views.manifest_sync, name="manifest_sync"),
    path("profiles/new/", views.profile_new, name="profile_new"),
    path("profiles/<int:pk>/", views.profile_detail, name="profile"),
    path("profiles/<int:pk>/export.yaml", views.profile_export, name="profile_export"),
    path("profiles/<int:pk>/delete/", views.profile_delete, name="profile_delete"),
    path("api/profiles/effective/", views.profile_effective, name="profile_effective"),
    path("clusters/<int:pk>/run", run_views.run_new, name="run_new"),
    path("runs/<int:pk>/", run_views.run_page, name="run"),
    path("runs/<int:pk>/events.json", run_views.run_events_json, name="run_events"),
    path("runs/<int:pk>/cycles.json", run_views.run_cycles_json, name="run_cycles"),
    path("runs/<int:pk>/cycles/<int:cycle>.json", run_views.run_cycle_json, name="run_cycle"),
    path("runs/<int:pk>/apply/", run_views.run_apply, name="run_apply"),
    path("runs/<int:pk>/usage.json", run_views.run_usage_json, name="run_usage"),
    path("runs/<int:pk>/permit/", run_views.run_permit, name="run_permit"),
    path("runs/<int:pk>/cancel/", run_views.run_cancel, name="run_cancel"),
    path("compare/<int:a>/<int:b>/", run_views.compare, name="compare"),
]
