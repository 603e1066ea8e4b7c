"""Faults the wave-36 round-trip fuzz campaign found (``tests/e2e/test_fuzz_roundtrip_wave36.py``),
each at the unit that had it: what a model plugin returned must go back to it intact within the
run (docs/model-round-trip.md)."""

import json

import pytest

from agent_core.json_args import dumps_arguments, loads


def _strict(text: str):
    """``text`` read as JSON by a reader that takes only JSON (``Infinity`` and ``NaN`` are not)."""
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


# --- numbers too large for a float ------------------------------------------------------------


@pytest.mark.parametrize("written", ["1e400", "-1E999", "12e1000"])
def test_a_number_too_large_for_a_float_goes_back_as_json_of_the_same_value(written):
    arguments = loads(f'{{"q": "x", "n": {written}, "deep": [{{"m": {written}}}]}}')
    text = dumps_arguments(arguments)
    assert _strict(text) == arguments  # JSON (json.dumps wrote Infinity), and the model's value
    assert "Infinity" not in text


def test_nan_goes_back_as_null_and_other_arguments_as_json_dumps_writes_them():
    assert _strict(dumps_arguments({"n": float("nan")})) == {"n": None}
    value = {"q": "é \"x\" \u2028", "big": 10**30, "f": 0.1, "nest": {"a": [1, None, True]}}
    assert dumps_arguments(value) == json.dumps(value, ensure_ascii=False)


def test_a_string_that_looks_like_the_placeholder_is_kept():
    value = {"s": "\x00number0\x00", "n": float("inf")}
    assert _strict(dumps_arguments(value)) == value
