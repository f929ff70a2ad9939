"""Forms show every problem after one save: a summary at the top, each error at its field."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from playground.demo import demo_load
from playground.models import Cluster, Profile

pytestmark = pytest.mark.django_db


def _post(**overrides: str) -> dict[str, str]:
    data = {
        "name": "mine",
        "description": "",
        "mode": "form",
        "profile_count": "1",
        "config_yaml": "",
        "extenders": "",
        "p0-scheduler_name": "default-scheduler",
        "action": "save",
    }
    data.update(overrides)
    return data


def test_three_problems_show_after_one_save_at_their_fields_and_at_the_top(alice_client):
    response = alice_client.post(
        reverse("playground:profile_new"),
        _post(
            **{
                "p0-percentage_of_nodes_to_score": "150",
                "p0-score_enabled": "NodeAffinity:-3\nNoSuchPlugin",
            }
        ),
    )
    assert response.status_code == 200
    assert Profile.objects.count() == 0
    entry = response.context["entries"][0]
    assert "not in valid range [0-100]" in " ".join(entry.errors["percentage_of_nodes_to_score"])
    score = " ".join(entry.errors["score_enabled"])
    assert 'plugin "NoSuchPlugin" does not exist' in score
    assert "weight -3 of NodeAffinity: kube-scheduler v1.35 refuses it here" in score
    summary = response.context["error_summary"]
    assert len(summary) == 3
    assert {e["anchor"] for e in summary} == {
        "id_p0-percentage_of_nodes_to_score",
        "id_p0-score_enabled",
    }
    html = response.content.decode()
    top = html.index('id="error-summary"')
    assert top < html.index('id="profile-form"')
    assert "3 problems to fix" in html
    assert len(re.findall(r'<li><a href="#id_p0-score_enabled">', html)) == 2


def test_a_valid_form_shows_no_summary(alice_client):
    response = alice_client.get(reverse("playground:profile_new"))
    assert response.status_code == 200
    assert 'id="error-summary"' not in response.content.decode()


def test_run_with_changes_defaults_to_the_default_profile(alice_client):
    demo_load()
    cluster = Cluster.objects.filter(is_demo=True).first()
    response = alice_client.get(reverse("playground:run_with_changes", args=[cluster.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    selected = re.findall(r'<option value="\d+" selected>([^<]+)</option>', html)
    assert selected == ["Default"]
