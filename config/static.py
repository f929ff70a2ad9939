"""Static files: what collectstatic gathers, and the storages that name and compress them."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from django.contrib.staticfiles.apps import StaticFilesConfig
from whitenoise.storage import CompressedManifestStaticFilesStorage

# Hashed names (served as immutable, cached for a year) with gzip and Brotli copies, written
# once by collectstatic: the Dockerfile's build and ``manage.py serve`` at start.
COLLECTED_STORAGE = "config.static.CollectedStaticStorage"
# Plain names served from the sources as they are (tests, runserver): nothing to collect first.
SOURCE_STORAGE = "django.contrib.staticfiles.storage.StaticFilesStorage"


class CollectedStaticStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, compressing only what a previous collectstatic has not.

    A hashed name stands for its content, so gzip and Brotli copies already beside it are
    current: a restart of ``serve`` recompresses only the files that changed (plotly.js alone
    takes seconds at Brotli's best quality).
    """

    # Modules import each other by relative plain names: rewritten to the hashed ones, so a
    # page's <script type="module"> and its imports are one module graph, each file cached.
    support_js_module_import_aggregation = True

    def compress_files(self, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
        stale = [path for path in paths if not self._compressed_before(path)]
        yield from super().compress_files(stale)

    def _compressed_before(self, path: str) -> bool:
        full = self.path(path)
        return os.path.exists(full + ".br") and os.path.exists(full + ".gz")


class PlaygroundStaticFilesConfig(StaticFilesConfig):
    """collectstatic leaves out the rest of the plotly wheel's package_data (its Jupyter
    widget bundle, sample data sets and themes): the pages load plotly.min.js only."""

    ignore_patterns = [
        *StaticFilesConfig.ignore_patterns,
        "widgetbundle.js",
        "datasets",
        "templates",
    ]
