"""line_budget: a log payload fits its byte budget once encoded, long texts each keep a fair
share with a note, and a payload that fits is returned as it is."""

import copy
import math

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

from agent_core.line_budget import encoded_size, fit, text_pieces


def _written(value) -> int:
    """Bytes as the SDK's encoder writes them."""
    return len(to_json(value, fallback=str, inf_nan_mode="null"))


def test_a_payload_that_fits_is_the_same_object():
    data = {"output": {"tool_call_id": "c1", "tool_response": "é ✓ " * 50, "n": [1, 2.5, None, True]}}
    assert fit(data) is data


def test_long_texts_are_cut_fairly_with_a_note_and_the_payload_fits():
    data = {"a": "x" * 50_000, "b": "y" * 5_000, "short": "kept", "nested": [{"c": "z" * 50_000}]}
    before = copy.deepcopy(data)
    fitted = fit(data, limit=30_000)
    assert data == before  # never mutated
    assert _written(fitted) <= 30_000 and encoded_size(fitted) <= 30_000
    assert fitted["short"] == "kept" and fitted["b"] == "y" * 5_000  # short enough to keep whole
    for text in (fitted["a"], fitted["nested"][0]["c"]):
        assert "more characters not shown here" in text
        assert len(text) > 5_000  # each long text keeps a fair share
    assert fitted["a"].startswith("x" * 5_000) and fitted["nested"][0]["c"].startswith("z" * 5_000)


def test_control_characters_count_as_the_six_bytes_they_take():
    text = "\x01" * 20_000  # 20,000 characters, 120,000 bytes as \u0001 escapes
    fitted = fit({"output": text}, limit=50_000)
    assert _written(fitted) <= 50_000
    assert fitted["output"].startswith("\x01" * 1000)


def test_values_the_encoder_refuses_are_measured_as_text():
    data = {"raw": b"\xff\xfe" * 10, "object": object(), "nan": math.nan}
    assert fit(data) is data  # small: kept; the encoder's fallback turns them into text
    deep: dict = {}
    inner = deep
    for _ in range(300):  # deeper than pydantic-core encodes
        inner["a"] = {}
        inner = inner["a"]
    assert fit(deep) is not deep  # would stop the SDK's encoder: the deep part becomes a note
    assert "nested more than 64 levels deep" in to_json(fit(deep)).decode()
    assert fit({"a": [{"b": {}}]}) == {"a": [{"b": {}}]}


def test_text_pieces_split_long_text_only():
    assert text_pieces("abc", size=5) == ["abc"]
    assert text_pieces("abcdefghij", size=4) == ["abcd", "efgh", "ij"]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=3000),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(data=_json, limit=st.integers(min_value=2_000, max_value=20_000))
def test_any_json_payload_fits_its_budget(data, limit):
    fitted = fit(data, limit=limit)
    assert _written(fitted) <= limit
    if _written(data) <= limit:
        assert fitted is data


def test_a_lone_surrogate_in_log_data_is_replaced_so_the_line_can_be_written():
    data = {"tool_input": {"city": "a\ud800b"}}
    fitted = fit(data)
    assert to_json(fitted) == '{"tool_input":{"city":"a\ufffdb"}}'.encode()


def test_walkers_of_decoded_json_make_no_call_per_number(monkeypatch):
    """A reply's arguments of a million numbers (2 MB) took some 4 s of the plugin's CPU between the
    reply and its log: ``fit``, ``redacted_texts``, ``without_lone_surrogates`` and ``too_deep``
    each called a function, or built a tuple, per number. They now skip numbers, booleans and null inline: the calls counted
    are one per list or object, whatever the numbers in them."""
    from agent_core import json_args, line_budget, redaction
    from agent_core.json_args import too_deep

    data = {"calls": [{"q": [1, 2.5, True, None] * 50_000, "s": "x" * 300} for _ in range(3)]}
    calls = {"strings": 0, "redact": 0, "surrogates": 0}
    strings, redacted, surrogates = line_budget._strings, redaction.redacted_texts, json_args.without_lone_surrogates

    def counted_strings(*args, **kwargs):
        calls["strings"] += 1
        return strings(*args, **kwargs)

    def counted_redacted(*args, **kwargs):
        calls["redact"] += 1
        return redacted(*args, **kwargs)

    def counted_surrogates(*args, **kwargs):
        calls["surrogates"] += 1
        return surrogates(*args, **kwargs)

    monkeypatch.setattr(line_budget, "_strings", counted_strings)
    monkeypatch.setattr(json_args, "without_lone_surrogates", counted_surrogates)
    monkeypatch.setattr(redaction, "redacted_texts", counted_redacted)
    fitted = line_budget.fit(data, limit=100_000)
    assert line_budget.encoded_size(fitted) <= 100_000
    assert redaction.redacted_texts(data, lambda text: text.replace("x", "y")) == {
        "calls": [{"q": [1, 2.5, True, None] * 50_000, "s": "y" * 300} for _ in range(3)]}
    assert calls["strings"] <= 10 and calls["redact"] <= 20
    assert not too_deep(data, 4) and too_deep(data, 3)
    assert json_args.without_lone_surrogates(data) is data
    assert calls["surrogates"] <= 20


def test_a_text_denser_at_its_head_is_cut_not_the_whole_entry_replaced():
    """A tool's megabyte of line breaks and tabs (two bytes each as JSON) closed by a plain note:
    the average bytes a character under-counted the kept head, the cut came out a few bytes over,
    and the whole CALL node's data (call id, input, output) became one note (wave 39)."""
    text = "zq39-out-0-\U0001d518" + "\r\n\t" * 333_333 + "\n[... the result was longer than 1000000 characters]"
    data = {"output": {"tool_call_id": "c0", "tool_call_name": "fetch", "tool_response": text}}
    fitted = fit(data)
    assert _written(fitted) <= 1_048_576
    assert fitted["output"]["tool_call_id"] == "c0"
    assert fitted["output"]["tool_response"].startswith("zq39-out-0-\U0001d518\r\n\t")
    assert "more characters not shown here" in fitted["output"]["tool_response"]


def test_a_cut_string_keeps_its_end_where_a_tools_notes_are():
    """A CALL node's output of megabytes ends with the collector's notes (a file withheld for a
    secret): the cut keeps the text's start and its last characters, with the note between."""
    from agent_core.line_budget import fit

    notes = "\n[a link was withheld: it holds a secret value]"
    data = {"output": "x" * 3_000_000 + notes}
    fitted = fit(data, limit=1_000_000)
    assert fitted["output"].endswith(notes)
    assert fitted["output"].startswith("x" * 1000)
    assert "more characters not shown here" in fitted["output"]
    assert len(fitted["output"].encode()) <= 1_000_000
