"""compact_dumps: the text json.dumps writes, made in pieces with the other sessions let run between."""

import json
import random
from collections import OrderedDict

import pytest

from agent_core import json_pieces
from agent_core.json_pieces import compact_dumps


def _reference(value, default=None):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)


@pytest.fixture
def hand_overs(monkeypatch):
    """Counts the offers to give way (no greenlet switch in a unit test)."""
    count = [0]
    monkeypatch.setattr(json_pieces, "give_way", lambda: count.__setitem__(0, count[0] + 1))
    return count


def _random_value(rng, depth=0):
    roll = rng.random()
    if depth < 5 and roll < 0.3:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 12))]
    if depth < 5 and roll < 0.6:
        keys = [rng.choice(["a", "b", "é", "k\"q", "ключ", "\u2028", "1"]) + str(rng.randint(0, 9)) for _ in range(rng.randint(0, 12))]
        return {key: _random_value(rng, depth + 1) for key in keys}
    return rng.choice([None, True, False, 0, -3, 2**70, 1.5, float("inf"), float("nan"), "", "x\ny", "日本", "\\", "</>"])


def test_same_text_as_json_dumps_for_random_values_split_small(hand_overs):
    rng = random.Random(7)
    for _ in range(400):
        value = _random_value(rng)
        for nodes in (1, 3, 20):
            assert compact_dumps(value, nodes=nodes) == _reference(value)
    assert hand_overs[0] > 0  # the splitting was exercised


def test_a_large_message_is_split_and_gives_way(hand_overs):
    records = {"data": {"records": [{"id": n, "name": f"item {n}", "tags": ["a", "b"]} for n in range(30_000)]}}
    assert compact_dumps(records) == _reference(records)
    assert hand_overs[0] >= 5  # 150,000 values: several pieces, the other sessions between them


def test_a_small_value_is_one_dump(hand_overs):
    value = {"a": [1, 2, {"b": "c"}]}
    assert compact_dumps(value) == '{"a":[1,2,{"b":"c"}]}'
    assert hand_overs[0] == 0


def test_keys_json_converts_and_defaults_are_the_same():
    value = {1: "int", 2.5: "float", False: "bool", None: "none", "s": b"raw", "set": {1}}
    value["big"] = list(range(100))
    assert compact_dumps(value, str, nodes=2) == _reference(value, str)


def test_containers_not_split_are_encoded_as_json_dumps_does():
    value = [OrderedDict(a=1), (1, 2, [3]), {"t": (4, 5)}] * 50
    assert compact_dumps(value, nodes=4) == _reference(value)


def test_errors_are_json_dumps_errors():
    with pytest.raises(TypeError):
        compact_dumps([{"a": 1}] * 10 + [object()], nodes=2)
    circular: list = [[1, 2]] * 10
    circular.append(circular)
    with pytest.raises(ValueError):
        compact_dumps(circular, nodes=2)


def test_one_large_item_among_small_ones_is_entered(hand_overs, monkeypatch):
    pieces: list[str] = []
    real = json_pieces._dumps

    def recording(default):
        dumps = real(default)

        def dump(value):
            pieces.append(dumps(value))
            return pieces[-1]

        return dump

    monkeypatch.setattr(json_pieces, "_dumps", recording)
    value = [1, 2, {"big": list(range(5000))}, 3]
    assert compact_dumps(value, nodes=100) == _reference(value)
    assert max(map(len, pieces)) < 2000  # the 5,000 numbers were not encoded in one piece


# --- loads ---------------------------------------------------------------------------------------

from typing import Any  # noqa: E402

from pydantic import TypeAdapter  # noqa: E402

from agent_core.json_pieces import loads  # noqa: E402

_PYDANTIC = TypeAdapter(Any)


def _texts(rng, value):
    """``value`` as JSON the ways a daemon or a harness writes it: compact, spaced, indented,
    ASCII-escaped."""
    yield json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    yield json.dumps(value)
    yield json.dumps(value, indent=rng.choice([1, "\t", " \r\n"]))


def test_loads_reads_what_json_loads_and_pydantic_read_with_windows_of_any_size(hand_overs):
    rng = random.Random(11)
    for _ in range(300):
        value = _random_value(rng)
        for text in _texts(rng, value):
            expected = json.loads(text)
            parsed = _PYDANTIC.validate_json(text)
            for window in (1, 2, 7, 30, 1000):
                got = loads(text, window=window)
                assert json.dumps(got) == json.dumps(expected) == json.dumps(parsed)  # NaN != NaN: compared as text
                assert [type(x) for x in _leaves(got)] == [type(x) for x in _leaves(expected)]
    assert hand_overs[0] > 0


def _leaves(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def test_a_key_met_twice_keeps_its_place_and_takes_the_last_value():
    text = '{"a":1,"b":[1,2],"a":{"c":3},"d":"x","b":null}'
    for window in (3, 8, 100):
        got = loads(text, window=window)
        assert list(got.items()) == list(json.loads(text).items()) == [("a", {"c": 3}), ("b", None), ("d", "x")]


def test_numbers_and_strings_cut_by_the_window_are_read_whole():
    text = json.dumps({"n": [123456789012345678901234567890, 1.5e-7, -0.0, 2.5e300], "s": ["x" * 50, "é\\\"\n" * 9]})
    for window in range(1, 40):
        assert loads(text, window=window) == json.loads(text)


@pytest.mark.parametrize("text", ['{"a":1,}', '[1,]', '{"a":1', '[1 2]', '{"a" 1}', '{a:1}', '"x', '01', '[1]]',
                                  '{"a":1} x', '', '[', '{"a":"x\x01"}', '{"a":tru}', '[1,,2]', '{"a":1,"b"}'])
def test_what_json_loads_refuses_is_refused(text):
    with pytest.raises(ValueError):
        json.loads(text)
    for window in (1, 3, 1000):
        with pytest.raises(ValueError):
            loads(text, window=window)


def test_a_large_array_of_records_is_read_with_offers_to_give_way(hand_overs):
    records = [{"id": n, "name": f"item {n}", "tags": ["a", {"b": None}]} for n in range(20_000)]
    text = json.dumps({"data": {"records": records}}, separators=(",", ":"))
    assert loads(text) == json.loads(text)
    assert hand_overs[0] >= 10  # 900 KB: windows of 64 KB, the other sessions between them


def test_on_broken_texts_loads_reads_only_what_json_loads_and_pydantic_read_alike():
    """A line ``loads`` reads is taken as read (``sdk_speedups``), so on any text it must read
    nothing that ``json.loads`` and pydantic-core would not both read the same way."""
    rng = random.Random(5)
    alphabet = '{}[],:"\\ 0123456789.eE+-tfnulrsaN\n'
    read = 0
    for _ in range(3000):
        text = json.dumps(_random_value(rng), separators=(",", ":"))
        chars = list(text)
        for _ in range(rng.randint(1, 3)):
            where = rng.randrange(len(chars) + 1)
            roll = rng.random()
            if roll < 0.4 and chars:
                del chars[min(where, len(chars) - 1)]
            elif roll < 0.7:
                chars.insert(where, rng.choice(alphabet))
            elif chars:
                chars[min(where, len(chars) - 1)] = rng.choice(alphabet)
        text = "".join(chars)
        for window in (1, 4, 1000):
            try:
                got = loads(text, window=window)
            except ValueError:
                continue
            read += 1
            assert json.dumps(got) == json.dumps(json.loads(text)) == json.dumps(_PYDANTIC.validate_json(text)), text
    assert read > 1000
