"""A run whose every cycle errored reads as failed in Chromium, with the plugin and its Error."""

from __future__ import annotations

import pytest
from test_runs import _css, _start, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.custom_plugins import services as plugin_services
from playground.models import Run
from playground.profiles import services as profile_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_run_whose_every_cycle_errored_is_not_labelled_succeeded(
    site,  # noqa: F811
    django_user_model,
):
    runner = django_user_model.objects.get(username="runner")
    plugin_services.custom_plugin_save(
        owner=runner,
        definition={"name": "MyFilter", "points": {"filter": 'node.labels["nope"] == "x"'}},
    )
    config = {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"filter": {"enabled": [{"name": "MyFilter"}]}},
            }
        ]
    }
    profile_services.profile_create(owner=runner, name="always errors", config=config)
    _start(site, "Blinking lights", "always errors")
    driver = site.driver
    _wait(driver, lambda d: _css(d, "#run-status").text == "failed")
    error = _css(driver, "#run-error")
    assert not error.get_attribute("hidden")
    assert "every cycle ended in an Error from MyFilter: custom plugin MyFilter filter " in (
        error.text
    )
    run = Run.objects.get(profile__name="always errors")
    assert run.status == Run.Status.FAILED and run.summary["scheduled"] == 0
