"""URL routes of the playground app: the root's own pages, then each feature's ``urls.py``.

The root routes the pages that sit above every feature (home, sign-up, the cluster page, which
lists the cluster's runs, profiles and devices); every other route lives with its feature.
"""

from django.urls import path

from . import views
from .classes.urls import urlpatterns as class_urlpatterns
from .clusters.urls import urlpatterns as cluster_urlpatterns
from .custom_plugins.urls import urlpatterns as custom_plugin_urlpatterns
from .dra.urls import urlpatterns as dra_urlpatterns
from .lessons.urls import urlpatterns as lesson_urlpatterns
from .profiles.urls import urlpatterns as profile_urlpatterns
from .runs.http.urls import urlpatterns as run_urlpatterns

app_name = "playground"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("clusters/<int:pk>/", views.cluster_detail, name="cluster"),
    path("shared/<uuid:token>/", views.shared_cluster, name="shared_cluster"),
    *cluster_urlpatterns,
    *dra_urlpatterns,
    *profile_urlpatterns,
    *custom_plugin_urlpatterns,
    *run_urlpatterns,
    *lesson_urlpatterns,
    *class_urlpatterns,
]
