"""Lenient argument decoding (agent_core.json_args).

Case ids name public threads (docs/real-world-cases.md).
"""

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.json_args import (
    ArgumentsError,
    decode_arguments,
    loads_lenient,
    split_concatenated,
    strip_noise,
    unclosed,
)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=5)


# --- loads_lenient ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("{'a': 'b', 'c': None, 'd': True, 'e': False}", {"a": "b", "c": None, "d": True, "e": False}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ('{"a": "x\\_y"}', {"a": "x_y"}),  # invalid escape (a markdown habit): the backslash is dropped
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('{"a": 1}<|eot_id|>', {"a": 1}),
        ('<|python_tag|>{"a": 1}', {"a": 1}),
        ('{"a": 1}<｜end▁of▁sentence｜>', {"a": 1}),
        ("[1, 2]", [1, 2]),
        ('"text"', "text"),
    ],
)
def test_loads_lenient_repairs_common_mistakes(text, expected):
    assert loads_lenient(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "hello world",
        "",
        "   ",
        "{garbage}",  # json_repair would give ['garbage}']
        '{"a": tru}',  # would become {"a": "tru"}
        '{"q" 1}',  # would become {"q": ""}: a value invented
        '{"a": }',
        "}{",
        "True",
    ],
)
def test_loads_lenient_refuses_garbage(text):
    with pytest.raises(ArgumentsError) as caught:
        loads_lenient(text)
    assert str(caught.value).endswith(".")
    assert not caught.value.truncated


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"city": "San Fra', "unterminated string starting at character 9"),  # camel4338
        ('{"city": "Paris"', "missing closing '}'"),
        ('{"a": [1, 2', "missing closing ']' '}'"),
        ("{'city': 'San Fra", "unterminated string"),
        ('{"a": ', "missing closing '}'"),
    ],
)
def test_truncated_text_is_never_repaired(text, where):
    with pytest.raises(ArgumentsError) as caught:
        loads_lenient(text)
    assert caught.value.truncated
    assert where in str(caught.value)


def test_hermes83229_unquoted_word_is_repaired_not_called_truncated():
    """GLM-5.2 wrote ``{"action": listt_windows"}`` (finish_reason tool_calls):
    balanced, so not a cut; the repair keeps the typo for validation to report."""
    assert loads_lenient('{"action": listt_windows"}') == {"action": "listt_windows"}


def test_mismatched_bracket_is_malformed_not_truncated():
    assert unclosed('{"a": [1, 2}') is None
    assert loads_lenient('{"a": [1, 2}') == {"a": [1, 2]}


def test_unclosed_ignores_brackets_and_quotes_inside_strings():
    assert unclosed('{"a": "it\'s {not} [open"}') is None
    assert unclosed('{"a": "say \\"hi\\""}') is None
    assert unclosed('{"a": "b') == "unterminated string starting at character 6"


def test_strip_noise():
    assert strip_noise('  ```json\n{"a": 1}\n```  ') == '{"a": 1}'
    assert strip_noise('[TOOL_CALLS][{"name": "x"}]') == '[{"name": "x"}]'
    assert strip_noise("plain") == "plain"


@settings(deadline=None)
@given(st.text())
def test_loads_lenient_raises_only_arguments_error(text):
    with contextlib.suppress(ArgumentsError):
        loads_lenient(text)


@settings(deadline=None)
@given(json_values)
def test_loads_lenient_is_json_loads_on_valid_json(value):
    text = json.dumps(value)
    assert loads_lenient(text) == json.loads(text)


# --- split_concatenated ----------------------------------------------------------------


def test_split_concatenated_glued_objects():
    """hermes62937: Gemini's OpenAI-compatible layer kept index 0 for three calls."""
    text = '{"date":"2026-06-11","n":1}{"date":"2026-06-12","n":2}{"date":"2026-06-12","n":3}'
    assert split_concatenated(text) == [
        {"date": "2026-06-11", "n": 1},
        {"date": "2026-06-12", "n": 2},
        {"date": "2026-06-12", "n": 3},
    ]


def test_split_concatenated_with_whitespace_between():
    assert split_concatenated(' {"a": 1}\n {"b": 2} \n') == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',  # one object is not a concatenation
        '{"a": 1}{"b"',  # truncated tail (hermes25333's log excerpt)
        '{"a": 1}, {"b": 2}',
        '{"a": 1} and {"b": 2}',
        "[1][2]",
        "",
        "garbage",
    ],
)
def test_split_concatenated_refuses_anything_else(text):
    assert split_concatenated(text) is None


@settings(deadline=None)
@given(st.lists(json_objects, min_size=2, max_size=4), st.sampled_from(["", "\n", " ", "\n\n  "]))
def test_split_concatenated_round_trip(objects, separator):
    text = separator.join(json.dumps(item) for item in objects)
    assert split_concatenated(text) == objects


# --- decode_arguments ------------------------------------------------------------------


@pytest.mark.parametrize("raw", [None, "", "   ", "null", "{}", {}])
def test_empty_arguments_are_an_empty_object(raw):
    """camel4338: '' crashed the blocking path; mcpsse1: parameterless tools."""
    assert decode_arguments(raw) == {}


def test_smolagents1003_object_and_json_string_give_the_same_result():
    assert decode_arguments({"city": "New York"}) == {"city": "New York"}
    assert decode_arguments('{"city": "New York"}') == {"city": "New York"}


def test_double_encoded_arguments_are_unwrapped():
    once = json.dumps({"city": "New York"})
    assert decode_arguments(json.dumps(once)) == {"city": "New York"}
    assert decode_arguments(json.dumps(json.dumps(once))) == {"city": "New York"}


def test_ollama8337_mapping_is_copied():
    raw = {"query": "Add a new contact named Charlie"}
    decoded = decode_arguments(raw)
    assert decoded == raw and decoded is not raw


@pytest.mark.parametrize(
    ("raw", "kind"),
    [("[1, 2]", "an array"), ('"just text"', "a string"), ("42", "a number"), ("true", "a boolean"), ([1], "an array")],
)
def test_non_object_json_is_an_error(raw, kind):
    with pytest.raises(ArgumentsError, match=f"not {kind}"):
        decode_arguments(raw)


def test_glued_objects_get_their_own_message():
    with pytest.raises(ArgumentsError, match="2 JSON objects"):
        decode_arguments('{"a": 1}{"a": 2}')


def test_camel4338_truncated_is_an_error_not_an_empty_object():
    with pytest.raises(ArgumentsError) as caught:
        decode_arguments('{"city": "San Fra')
    assert caught.value.truncated
    assert caught.value.detail == "unterminated string starting at character 9"


def test_dify17270_missing_colon_is_repaired_when_every_word_is_kept():
    assert decode_arguments('{"a" "b"}') == {"a": "b"}
    with pytest.raises(ArgumentsError, match="Expecting ':' delimiter at character 5; a value is missing"):
        decode_arguments('{"q" 1}')


@settings(deadline=None)
@given(json_objects)
def test_decode_arguments_round_trip(value):
    assert decode_arguments(json.dumps(value)) == value
    assert decode_arguments(json.dumps(value, ensure_ascii=False, indent=2)) == value


@settings(deadline=None)
@given(st.one_of(st.text(), st.none(), st.dictionaries(st.text(), json_values)))
def test_decode_arguments_returns_a_dict_or_raises_arguments_error(raw):
    try:
        assert isinstance(decode_arguments(raw), dict)
    except ArgumentsError as error:
        assert str(error)
