"""The large JSON fields are written and read by orjson, with the json module's values."""

from __future__ import annotations

import json

import pytest
from builders import make_node

from playground.inputs.jsontext import FastJSONDecoder, FastJSONEncoder
from playground.models import Cluster, Node


def test_encoding_and_decoding_give_the_json_modules_values():
    value = {"a": [1, 2.5, None, True], "b": ("x", "é"), 3: {"nested": []}}
    text = json.dumps(value, cls=FastJSONEncoder)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert json.loads(text, cls=FastJSONDecoder) == json.loads(json.dumps(value))


def test_what_orjson_refuses_is_written_and_read_by_the_json_module():
    huge = {"memory": 10**30}
    assert json.loads(json.dumps(huge, cls=FastJSONEncoder), cls=FastJSONDecoder) == huge
    assert json.loads('{"x": NaN}', cls=FastJSONDecoder)["x"] != 0  # NaN, as json reads it


@pytest.mark.django_db
def test_a_manifest_round_trips_through_the_database(django_user_model):
    owner = django_user_model.objects.create_user("j", password="unused-pass-123")
    cluster = Cluster.objects.create(name="c", owner=owner)
    manifest = make_node("n1")
    manifest["metadata"]["annotations"] = {"big": 10**25, "text": "ünïcode"}
    Node.objects.create(cluster=cluster, name="n1", manifest=manifest)
    assert Node.objects.get(cluster=cluster).manifest == manifest


def test_dumps_and_loads_keep_big_integers_and_write_tuples_as_lists():
    from collections import namedtuple

    from playground.inputs.jsontext import dumps, loads

    point = namedtuple("point", "x y")
    assert loads(dumps({"n": 10**20, "t": (1, point(2, 3))})) == {"n": 10**20, "t": [1, [2, 3]]}


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 10**30])
def test_an_integer_beyond_64_bits_is_exact_in_text_and_bytes_after_other_text(number):
    from playground.inputs.jsontext import loads

    text = f'{{"name": "é 12345", "n": [{number}], "t": "2026-11-23T00:00:00Z"}}'
    assert loads(text)["n"] == [number]
    assert loads(text.encode())["n"] == [number]
    assert loads('{"n": 123456789012345678}')["n"] == 123456789012345678  # 18 digits: orjson
