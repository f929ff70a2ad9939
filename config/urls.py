"""Root URL configuration."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.vary import vary_on_cookie
from django.views.i18n import JavaScriptCatalog

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # set_language: the header's language switch posts here.
    path("i18n/", include("django.conf.urls.i18n")),
    # The JavaScript catalog (djangojs) of the active language: gettext() in static/ scripts.
    # The language comes from the session or the language cookie: caches must key on Cookie.
    path("jsi18n/", vary_on_cookie(JavaScriptCatalog.as_view()), name="javascript-catalog"),
    path("", include("playground.urls")),
]
