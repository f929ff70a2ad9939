"""Fuzz: ``migrate`` turns any older configuration or Policy into v1, or raises ConfigError.

Documents start from the migration tests' files (every older apiVersion, Policies in JSON and
YAML); what migrates must write out as YAML and load as v1 or be refused with ConfigError.
"""

from __future__ import annotations

import contextlib
import json

import pytest
import yaml
from fuzzing import MIGRATIONS, budget, mutated, odd_documents, to_text
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.config import ConfigError, load_config
from scheduler_core.config.migrate import migrate


def _seed(path):
    text = path.read_text()
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


SEEDS = [_seed(p) for p in sorted(MIGRATIONS.glob("*")) if p.suffix in (".json", ".yaml")]
DOCUMENTS = st.sampled_from(SEEDS).flatmap(lambda seed: mutated(seed))


def _migrate(source):
    try:
        result = migrate(source)
    except ConfigError as err:
        assert err.errors
        return None
    text = result.yaml()
    assert text.startswith("# Converted from ")
    with contextlib.suppress(ConfigError):
        load_config(result.config)
    return result


@budget(150)
@given(DOCUMENTS)
def test_documents_migrate_or_are_refused(doc):
    # migrate takes a mapping or text; a root of another type goes in as the text it would be
    _migrate(doc if isinstance(doc, dict) else to_text(doc, as_json=False))


@budget(80)
@given(DOCUMENTS, st.booleans())
def test_texts_migrate_or_are_refused(doc, as_json):
    _migrate(to_text(doc, as_json))


@budget(60)
@given(odd_documents())
def test_odd_documents_migrate_or_are_refused(text):
    _migrate(text)


@budget(60)
@given(st.text(max_size=300))
def test_garbage_migrates_or_is_refused(text):
    _migrate(text)


def test_seeds_migrate():
    """The unmutated files all migrate: the mutations start from working documents."""
    assert len(SEEDS) >= 8
    for seed in SEEDS:
        assert _migrate(seed) is not None


@pytest.mark.parametrize(
    "text",
    ["a: " + "9" * 5000, '{"a": ' + "9" * 5000 + "}", "\u00f5=\x0b+o"],
    ids=["yaml-5000-digits", "json-5000-digits", "vertical-tab"],
)
def test_crashes_found_are_config_errors(text):
    """What the fuzzing found raising ValueError or yaml.ReaderError before."""
    with pytest.raises(ConfigError):
        migrate(text)
