"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # set_language: the header's language switch posts here.
    path("i18n/", include("django.conf.urls.i18n")),
    # The JavaScript catalog (djangojs) of the active language: gettext() in static/ scripts.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("playground.urls")),
]
