"""Extenders in users' profiles cannot reach the server's network: refused on save and on run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from builders import make_node, make_pod
from django.urls import reverse
from test_pg_views import _profile_post

sys.path.insert(0, str(Path(__file__).parents[1] / "scheduler_core"))
from extender_server import ExtenderServer  # noqa: E402

from playground.clusters import services
from playground.models import Profile, Run
from playground.runs import services as runs

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("extender", "field", "why"),
    [
        pytest.param("urlPrefix: http://127.0.0.1:6379", "urlPrefix", "loopback", id="loopback"),
        pytest.param("urlPrefix: http://10.0.0.1/x", "urlPrefix", "private", id="private"),
        pytest.param(
            "urlPrefix: http://169.254.169.254/latest", "urlPrefix", "link-local", id="metadata"
        ),
        pytest.param("urlPrefix: file:///etc/passwd", "urlPrefix", "scheme 'file'", id="file"),
        pytest.param(
            "urlPrefix: https://93.184.216.34\n  tlsConfig: {caFile: /etc/passwd}",
            "tlsConfig.caFile",
            "files on the server cannot be named",
            id="tls-file",
        ),
        pytest.param(
            "urlPrefix: http://93.184.216.34\n  httpTimeout: 87600h",
            "httpTimeout",
            "must be at most 10s",
            id="timeout",
        ),
    ],
)
def test_forbidden_extender_is_refused_naming_the_field(alice_client, extender, field, why):
    response = alice_client.post(
        reverse("playground:profile_new"),
        _profile_post(extenders=f"- {extender}\n  filterVerb: filter\n"),
    )
    assert response.status_code == 200
    errors = " ".join(response.context["top"].errors["extenders"])
    assert f"extenders[0].{field}" in errors and why in errors
    assert Profile.objects.count() == 0


def test_allow_listed_host_may_be_saved(alice_client, user, settings):
    settings.EXTENDER_ALLOWED_HOSTS = ["127.0.0.1"]
    response = alice_client.post(
        reverse("playground:profile_new"),
        _profile_post(extenders="- urlPrefix: http://127.0.0.1:8888\n  filterVerb: filter\n"),
    )
    assert response.status_code == 302
    assert (
        Profile.objects.get(owner=user)
        .config["extenders"][0]["urlPrefix"]
        .startswith("http://127.0.0.1")
    )


def _run_with_extender(user, url, capture, before_execute=None):
    cluster = services.cluster_create(owner=user, name="c")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all([make_node("n1"), make_pod("p")], sort_keys=False),
    )
    # Stored directly, as a profile saved before the policy (or under another allow-list) is.
    profile = Profile.objects.create(
        owner=user,
        name="ext",
        config={"extenders": [{"urlPrefix": url, "filterVerb": "filter"}]},
    )
    with capture() as callbacks:
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    if before_execute:
        before_execute()
    for callback in callbacks:
        callback()
    run.refresh_from_db()
    return run


def test_forbidden_extender_profile_cannot_start_a_run(user, django_capture_on_commit_callbacks):
    with ExtenderServer() as srv, pytest.raises(runs.RunInvalid, match=r"extenders\[0\].urlPrefix"):
        _run_with_extender(user, srv.url, django_capture_on_commit_callbacks)
    assert Run.objects.count() == 0


def test_forbidden_extender_is_refused_by_the_engine_when_the_run_executes(
    user, settings, django_capture_on_commit_callbacks
):
    """Allowed when the run was queued, no longer when it runs: the engine checks each call."""
    settings.EXTENDER_ALLOWED_HOSTS = ["127.0.0.1"]

    def revoke():
        settings.EXTENDER_ALLOWED_HOSTS = []

    with ExtenderServer() as srv:
        run = _run_with_extender(user, srv.url, django_capture_on_commit_callbacks, revoke)
        assert srv.requests == []
    # Every cycle ended in that Error: the run stops as failed and says why.
    assert run.status == Run.Status.FAILED, run.error_message
    assert "every cycle ended in an Error: " in run.error_message
    assert run.placements == {}
    assert "loopback address and is not in the extender allow-list" in str(run.summary)


def test_allow_listed_extender_is_called_but_its_redirect_is_not_followed(
    user, settings, django_capture_on_commit_callbacks
):
    settings.EXTENDER_ALLOWED_HOSTS = ["127.0.0.1"]
    with ExtenderServer() as target, ExtenderServer(redirect_to=target.url + "/filter") as srv:
        run = _run_with_extender(user, srv.url, django_capture_on_commit_callbacks)
        assert srv.verbs() and set(srv.verbs()) == {"redirect"} and target.requests == []
    assert "redirects are not followed" in str(run.summary)
