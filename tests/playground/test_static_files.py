"""Static files as ``serve`` and the image collect them: hashed names, gzip and Brotli copies,
module imports pointing at the hashed files, and WhiteNoise serving them compressed and
immutable. plotly.js itself is left out here (Brotli at its best quality takes seconds); the
integration test of ``serve --room`` fetches it for real."""

from __future__ import annotations

import brotli
import pytest
from django.apps import apps
from django.conf import settings as django_settings
from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.management import call_command

from config.static import COLLECTED_STORAGE, SOURCE_STORAGE

SOURCES = [django_settings.BASE_DIR / "static"]


@pytest.fixture
def collected(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STATICFILES_DIRS = SOURCES
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": COLLECTED_STORAGE}}
    call_command("collectstatic", interactive=False, verbosity=0)
    return tmp_path


def only(root, pattern):
    found = sorted(root.glob(pattern))
    assert len(found) == 1, (pattern, found)
    return found[0]


def test_without_collectstatic_pages_name_the_sources():
    assert django_settings.STORAGES["staticfiles"]["BACKEND"] == SOURCE_STORAGE


def test_collectstatic_keeps_hashed_files_with_gzip_and_brotli_copies(collected):
    app_css = only(collected / "playground", "app.*.css")
    assert len(app_css.name.split(".")[1]) == 12
    assert not (collected / "playground" / "app.css").exists()  # plain names: from the sources
    assert brotli.decompress(app_css.with_name(app_css.name + ".br").read_bytes()) == (
        app_css.read_bytes()
    )
    assert app_css.with_name(app_css.name + ".gz").exists()


def test_module_imports_name_the_hashed_files(collected):
    run_js = only(collected / "playground", "run.*.js").read_text()
    i18n = only(collected / "playground", "i18n.*.js").name
    assert f'from "./{i18n}"' in run_js
    assert 'from "./i18n.js"' not in run_js


def test_a_second_collect_compresses_only_what_changed(collected):
    br = only(collected / "playground", "app.*.css.br")
    br.write_bytes(b"kept")  # a hashed name's copies stay current: not written again
    call_command("collectstatic", interactive=False, verbosity=0)
    assert br.read_bytes() == b"kept"


def test_plotly_widget_bundle_and_data_sets_are_not_collected():
    ignored = apps.get_app_config("staticfiles").ignore_patterns
    listed = {path for path, _ in FileSystemFinder().list(ignored)}
    assert "plotly.min.js" in listed
    assert not {"widgetbundle.js", "datasets"} & {path.split("/")[0] for path in listed}


def test_hashed_files_are_served_brotli_and_immutable(collected, client):
    name = only(collected / "playground", "app.*.css").name
    response = client.get(f"/static/playground/{name}", HTTP_ACCEPT_ENCODING="gzip, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "br"
    assert "immutable" in response["Cache-Control"]
    max_age = int(response["Cache-Control"].split("max-age=")[1].split(",")[0])
    assert max_age >= 24 * 3600
    gzip_only = client.get(f"/static/playground/{name}", HTTP_ACCEPT_ENCODING="gzip")
    assert gzip_only["Content-Encoding"] == "gzip"
