"""Fuzz: the profile editor's web path answers every input with a page or a JSON of problems.

Three doors take a configuration from a browser: the editor's form (``/profiles/new/``, form
fields or the YAML pane), its live preview (``/api/profiles/effective/``, called on each
keystroke) and the import of any version (``/profiles/import/``). Inputs start from the course's
profiles and a configuration that sets every kind of field, mutated where they are weakest
(wrong types, huge numbers, odd text, missing or extra fields), and from form fields filled with
odd text. Whatever comes in, the answer is never a server error: an input that cannot be used
gets its problem named next to the field, or in the page's problems.
"""

from __future__ import annotations

import pytest
from fuzzing import (
    HUGE_INTS,
    ODD_TEXT,
    budget,
    course_documents,
    mutated,
    odd_documents,
    tally,
    to_text,
)
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_config import RICH

from playground.models import Profile

pytestmark = pytest.mark.django_db

CONFIGS = st.sampled_from([RICH, *course_documents("profile.yaml")]).flatmap(mutated)
CONFIG_TEXTS = st.one_of(st.builds(to_text, CONFIGS, st.booleans()), odd_documents())

PROFILE_FIELDS = [
    "scheduler_name",
    "percentage_of_nodes_to_score",
    "fit_strategy",
    "fit_resources",
    "balanced_resources",
    "spread_defaulting",
    "spread_constraints",
    "hard_pod_affinity_weight",
    "ignore_preferred_terms",
    "min_candidate_percentage",
    "min_candidate_absolute",
    "added_affinity",
    "bind_timeout_seconds",
    "score_enabled",
    "score_disabled",
    "filter_enabled",
    "multiPoint_enabled",
]
TOP_FIELDS = ["percentage_of_nodes_to_score", "parallelism", "extenders", "profile_count"]
FIELD_TEXT = st.one_of(
    ODD_TEXT,
    st.text(max_size=40),
    HUGE_INTS.map(str),
    st.sampled_from(["NodeResourcesFit:3", "*", "a=1\nb=x", "1 zone DoNotSchedule", "k In (a)"]),
)


def _post(mode: str, config_yaml: str = "", **fields: str) -> dict[str, str]:
    data = {
        "name": "fuzzed",
        "description": "",
        "mode": mode,
        "profile_count": "1",
        "config_yaml": config_yaml,
        "extenders": "",
        "p0-scheduler_name": "default-scheduler",
        "action": "save",
    }
    data.update(fields)
    return data


def _answered(response) -> None:
    """A page or JSON, never a server error (the test client re-raises one)."""
    assert response.status_code in (200, 302), response.status_code
    tally(f"HTTP {response.status_code}")


@budget(40)
@given(CONFIG_TEXTS, st.sampled_from(["yaml", "form"]))
def test_the_editor_and_its_preview_answer_any_configuration(alice_client, text, mode):
    """The YAML pane (or, in form mode, the hidden copy the fields are laid over)."""
    data = _post(mode, text)
    _answered(alice_client.post("/api/profiles/effective/", data))
    response = alice_client.post("/profiles/new/", data)
    _answered(response)
    if response.status_code == 302:
        assert Profile.objects.filter(name="fuzzed").exists()
        Profile.objects.filter(name="fuzzed").delete()


@budget(40)
@given(
    st.dictionaries(
        st.sampled_from([f"p0-{f}" for f in PROFILE_FIELDS] + TOP_FIELDS), FIELD_TEXT, max_size=4
    ),
    st.sampled_from(["", to_text(RICH, False)]),
)
def test_the_editor_and_its_preview_answer_any_field(alice_client, fields, config_yaml):
    data = _post("form", config_yaml, **fields)
    _answered(alice_client.post("/api/profiles/effective/", data))
    _answered(alice_client.post("/profiles/new/", data))
    Profile.objects.filter(name="fuzzed").delete()


@budget(40)
@given(CONFIG_TEXTS, st.sampled_from(["preview", "save"]))
def test_the_import_page_answers_any_configuration(alice_client, text, action):
    data = {"name": "fuzzed", "source": text, "action": action}
    _answered(alice_client.post("/profiles/import/", data))
    Profile.objects.filter(name="fuzzed").delete()
