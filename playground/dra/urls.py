"""URL routes of Dynamic Resource Allocation pages (included by playground/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("clusters/<int:pk>/devices/new/", views.device_pool_new, name="device_pool_new"),
    path("clusters/<int:pk>/claims/new/", views.claim_new, name="claim_new"),
]
