"""URL routes of clusters, their nodes, pods and other objects (included by playground/urls.py).

The cluster page itself (``cluster``, ``shared_cluster``) shows runs, profiles and devices too,
so it is routed by the root, which may depend on every feature.
"""

from django.urls import path

from . import views

urlpatterns = [
    path("clusters/new/", views.cluster_new, name="cluster_new"),
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
    path(
        "shared/<uuid:token>/export.yaml",
        views.shared_cluster_export,
        name="shared_cluster_export",
    ),
    path("api/sync/<str:kind>/", views.manifest_sync, name="manifest_sync"),
]
