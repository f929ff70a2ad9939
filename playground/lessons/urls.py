"""URL routes of the course (included under /lessons/ by playground/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("lessons/", views.course_page, name="course"),
    path("lessons/<slug:slug>/", views.lesson_page, name="lesson"),
    path("lessons/<slug:slug>/run/", views.lesson_run, name="lesson_run"),
    path(
        "lessons/<slug:slug>/questions/<str:qid>/answer/",
        views.lesson_answer,
        name="lesson_answer",
    ),
]
