"""Hypothesis profiles for the fuzz tests.

``ci`` (the default): a fixed example budget per test, derandomized, so the suite runs the same
examples every time and the whole directory stays around two minutes on two cores. ``long``:
twenty-five times the budget with fresh random examples; run it as
``FUZZ_PROFILE=long .venv/bin/pytest tests/fuzz`` (or ``make fuzz``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_QUIET = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.function_scoped_fixture,
    HealthCheck.large_base_example,
]

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, suppress_health_check=_QUIET
)
# ``dev``: the ci examples without shrinking, to see every failure quickly while fixing them.
settings.register_profile("dev", settings.get_profile("ci"), phases=list(Phase)[:4])
settings.register_profile("long", deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.load_profile(os.environ.get("FUZZ_PROFILE", "ci"))
