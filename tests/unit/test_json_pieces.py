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
