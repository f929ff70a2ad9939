"""URL routes of custom plugins (included by playground/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("custom-plugins/", views.custom_plugin_list, name="custom_plugins"),
    path("custom-plugins/new/", views.custom_plugin_new, name="custom_plugin_new"),
    path("custom-plugins/<int:pk>/", views.custom_plugin_detail, name="custom_plugin"),
    path(
        "custom-plugins/<int:pk>/delete/", views.custom_plugin_delete, name="custom_plugin_delete"
    ),
    path("custom-plugins/<int:pk>/share/", views.custom_plugin_share, name="custom_plugin_share"),
    path(
        "custom-plugins/shared/<uuid:token>/",
        views.custom_plugin_shared,
        name="custom_plugin_shared",
    ),
    path("api/custom-plugins/check/", views.custom_plugin_check, name="custom_plugin_check"),
]
