"""URL routes of the playground app."""

from django.urls import path, register_converter

from . import views
from .classes.urls import urlpatterns as class_urlpatterns
from .clusters import views as cluster_views
from .custom_plugins import views as custom_plugin_views
from .dra import views as dra_views
from .lessons.urls import urlpatterns as lesson_urlpatterns
from .profiles import views as profile_views
from .runs import change_views, explain_views
from .runs import views as run_views
from .runs.refs import RunRefConverter

register_converter(RunRefConverter, "runref")

app_name = "playground"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("clusters/new/", cluster_views.cluster_new, name="cluster_new"),
    path("clusters/<int:pk>/", cluster_views.cluster_detail, name="cluster"),
    path("clusters/<int:pk>/edit/", cluster_views.cluster_edit, name="cluster_edit"),
    path("clusters/<int:pk>/delete/", cluster_views.cluster_delete, name="cluster_delete"),
    path("clusters/<int:pk>/copy/", cluster_views.cluster_copy, name="cluster_copy"),
    path("clusters/<int:pk>/share/", cluster_views.cluster_share, name="cluster_share"),
    path(
        "clusters/<int:pk>/reset-pods/", cluster_views.cluster_reset_pods, name="cluster_reset_pods"
    ),
    path("clusters/<int:pk>/import/", cluster_views.cluster_import, name="cluster_import"),
    path("clusters/<int:pk>/export.yaml", cluster_views.cluster_export, name="cluster_export"),
    path("clusters/<int:pk>/nodes/new/", cluster_views.node_form, name="node_new"),
    path("clusters/<int:pk>/nodes/<str:name>/edit/", cluster_views.node_form, name="node_edit"),
    path(
        "clusters/<int:pk>/nodes/<str:name>/delete/", cluster_views.node_delete, name="node_delete"
    ),
    path("clusters/<int:pk>/pods/new/", cluster_views.pod_form, name="pod_new"),
    path("clusters/<int:pk>/devices/new/", dra_views.device_pool_new, name="device_pool_new"),
    path("clusters/<int:pk>/claims/new/", dra_views.claim_new, name="claim_new"),
    path("clusters/<int:pk>/workloads/new/", cluster_views.pod_form, name="workload_new"),
    path(
        "clusters/<int:pk>/pods/<str:namespace>/<str:name>/edit/",
        cluster_views.pod_form,
        name="pod_edit",
    ),
    path(
        "clusters/<int:pk>/pods/<str:namespace>/<str:name>/delete/",
        cluster_views.pod_delete,
        name="pod_delete",
    ),
    path(
        "clusters/<int:pk>/objects/<int:object_pk>/delete/",
        cluster_views.object_delete,
        name="object_delete",
    ),
    path("shared/<uuid:token>/", cluster_views.shared_cluster, name="shared_cluster"),
    path(
        "shared/<uuid:token>/export.yaml",
        cluster_views.shared_cluster_export,
        name="shared_cluster_export",
    ),
    path("api/sync/<str:kind>/", cluster_views.manifest_sync, name="manifest_sync"),
    path("profiles/new/", profile_views.profile_new, name="profile_new"),
    path("profiles/<int:pk>/", profile_views.profile_detail, name="profile"),
    path("profiles/<int:pk>/export.yaml", profile_views.profile_export, name="profile_export"),
    path("profiles/<int:pk>/delete/", profile_views.profile_delete, name="profile_delete"),
    path("api/profiles/effective/", profile_views.profile_effective, name="profile_effective"),
    path("profiles/import/", profile_views.profile_import_page, name="profile_import"),
    path("custom-plugins/", custom_plugin_views.custom_plugin_list, name="custom_plugins"),
    path("custom-plugins/new/", custom_plugin_views.custom_plugin_new, name="custom_plugin_new"),
    path(
        "custom-plugins/<int:pk>/", custom_plugin_views.custom_plugin_detail, name="custom_plugin"
    ),
    path(
        "custom-plugins/<int:pk>/delete/",
        custom_plugin_views.custom_plugin_delete,
        name="custom_plugin_delete",
    ),
    path(
        "custom-plugins/<int:pk>/share/",
        custom_plugin_views.custom_plugin_share,
        name="custom_plugin_share",
    ),
    path(
        "custom-plugins/shared/<uuid:token>/",
        custom_plugin_views.custom_plugin_shared,
        name="custom_plugin_shared",
    ),
    path(
        "api/custom-plugins/check/",
        custom_plugin_views.custom_plugin_check,
        name="custom_plugin_check",
    ),
    path("clusters/<int:pk>/run", run_views.run_new, name="run_new"),
    path(
        "clusters/<int:pk>/run-with-changes/",
        change_views.run_with_changes,
        name="run_with_changes",
    ),
    path("runs/<runref:pk>/", run_views.run_page, name="run"),
    path("runs/<runref:pk>/events.json", run_views.run_events_json, name="run_events"),
    path("runs/<runref:pk>/cycles.json", run_views.run_cycles_json, name="run_cycles"),
    path("runs/<runref:pk>/changes.json", run_views.run_changes_json, name="run_changes"),
    path("runs/<runref:pk>/cycles/<int:cycle>.json", run_views.run_cycle_json, name="run_cycle"),
    path("runs/<runref:pk>/apply/", run_views.run_apply, name="run_apply"),
    path(
        "runs/<runref:pk>/cycles/<int:cycle>/explain.json",
        explain_views.run_explain_json,
        name="run_explain",
    ),
    path("runs/<runref:pk>/usage.json", run_views.run_usage_json, name="run_usage"),
    path("runs/<runref:pk>/devices.json", dra_views.run_devices_json, name="run_devices"),
    path("runs/<runref:pk>/permit/", run_views.run_permit, name="run_permit"),
    path("runs/<runref:pk>/cancel/", run_views.run_cancel, name="run_cancel"),
    path("runs/<runref:pk>/try/", change_views.run_try_change, name="run_try_change"),
    path("runs/<runref:pk>/change/", change_views.run_change, name="run_change"),
    path("compare/<runref:a>/<runref:b>/", run_views.compare, name="compare"),
    *lesson_urlpatterns,
    *class_urlpatterns,
]
