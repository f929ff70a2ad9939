"""URL routes of live classes (included by playground/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("join/", views.join, name="class_join"),
    path("classes/", views.my_classes, name="class_list"),
    path("classes/new/", views.class_new, name="class_new"),
    path("classes/<str:code>/", views.student_page, name="class_student"),
    path("classes/<str:code>/present/", views.present, name="class_present"),
    path("classes/<str:code>/results.csv", views.results_csv, name="class_results"),
    path("classes/<str:code>/end/", views.class_end, name="class_end"),
    path(
        "classes/<str:code>/cycles/<int:cycle>/steps.json",
        views.cycle_steps,
        name="class_cycle_steps",
    ),
]
