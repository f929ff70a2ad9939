"""URL routes of scheduler profiles (included by playground/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("profiles/new/", views.profile_new, name="profile_new"),
    path("profiles/<int:pk>/", views.profile_detail, name="profile"),
    path("profiles/<int:pk>/export.yaml", views.profile_export, name="profile_export"),
    path("profiles/<int:pk>/delete/", views.profile_delete, name="profile_delete"),
    path("api/profiles/effective/", views.profile_effective, name="profile_effective"),
    path("profiles/import/", views.profile_import_page, name="profile_import"),
]
