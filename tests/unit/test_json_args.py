"""Lenient argument decoding (agent_core.json_args).

Case ids name public threads (docs/real-world-cases.md).
"""

import contextlib
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_core.json_args import (
    MAX_DEPTH,
    ArgumentsError,
    costly_to_repair,
    decode_arguments,
    ends_open,
    loads_lenient,
    only_closers_missing,
    split_concatenated,
    strip_noise,
    too_deep,
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


@pytest.mark.parametrize(
    "text",
    ['json\n{"city":"Paris"}', 'JSON {"city":"Paris"}', 'Json\r\n  {"city":"Paris"}', ' json\t\n{"city":"Paris"}<|eot_id|>'],
)
def test_tt3683_leaked_json_word_before_the_object_is_dropped(text):
    """tenstorrent/tt-inference-server#3683: the fence's language word without the fence."""
    assert strip_noise(text) == '{"city":"Paris"}'
    assert loads_lenient(text) == {"city": "Paris"}
    assert decode_arguments(text) == {"city": "Paris"}


@pytest.mark.parametrize(
    "text",
    ['python\n{"a": 1}', 'jsonl\n{"a": 1}', 'json{"a": 1}', 'JSON:\n{"a": 1}', 'the json\n{"a": 1}', 'ｊｓｏｎ\n{"a": 1}'],
)
def test_only_the_bare_json_word_is_dropped(text):
    assert strip_noise(text) == text
    with pytest.raises(ArgumentsError):
        decode_arguments(text)


def test_json_word_before_an_array_or_a_value_is_kept():
    assert strip_noise("json\n[1, 2]") == "json\n[1, 2]"
    assert strip_noise('{"q": "json\n{x}"}') == '{"q": "json\n{x}"}'


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ('{"city": "Paris"', '{"city": "Paris"}'),
        ('{"a": [1, 2', '{"a": [1, 2]}'),
        ('{"a": {"b": "}"} ', '{"a": {"b": "}"}}'),
        ('```json\n{"a": 1\n```', '{"a": 1}'),
        ('json\n{"a": 1', '{"a": 1}'),
    ],
)
def test_only_closers_missing_appends_the_closing_brackets(text, closed):
    """vllm-project/vllm#32152: the final ``}`` dropped by the server."""
    assert only_closers_missing(text) == closed


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', '{"city": "Par', '{"a": 1,', '{"a":', '{"a": [', '{"a": {', "{", '{"a": [1}', "", "plain", '{"a" 1', "{'a': 1", '{"a": b'],
)
def test_only_closers_missing_refuses_anything_more(text):
    assert only_closers_missing(text) is None


def test_ends_open():
    assert all(ends_open(text) for text in ('{"a": 1,', '{"a":  ', '{"a": [', "{"))
    assert not any(ends_open(text) for text in ('{"a": 1', '{"a": "x,"', '{"a": []', ""))


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


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("[]", {}), ([], {}), ('[{"city": "Paris"}]', {"city": "Paris"}), ("[{'n': 1}]", {"n": 1})],
)
def test_an_empty_array_or_one_object_in_an_array_loses_nothing(raw, expected):
    """Some models send ``[]`` for a tool without parameters, or wrap the object in an array."""
    assert decode_arguments(raw) == expected


def test_several_objects_in_an_array_are_still_refused():
    with pytest.raises(ArgumentsError, match="not an array"):
        decode_arguments('[{"a": 1}, {"a": 2}]')


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


# --- json-repair: what the trust rule was built on ------------------------------------
#
# ``loads_lenient`` hands almost-JSON to ``json_repair.loads`` and then judges the *value* it
# gets back (``repair_problem``): it never reads the library's log messages, whose wording
# changes between releases and does not tell a good repair from a bad one (the log of
# ``{"city": Lima Peru}``, repaired well, and of ``{"a": tru}``, repaired badly, read the same).
# These tests pin both halves, so that an upgrade of json-repair that repairs differently fails
# here, naming the input, before it reaches a model: re-check the trust rule on the new output,
# then move the range in requirements.txt.

REFUSED = "refused"
REPAIRS = [
    # (text, what json_repair.loads returns, what loads_lenient does)
    pytest.param('{"city": Lima Peru}', {"city": "Lima Peru"}, {"city": "Lima Peru"}, id="unquoted-words-kept"),
    pytest.param(
        '{"action": listt_windows"}', {"action": "listt_windows"}, {"action": "listt_windows"}, id="hermes83229"
    ),
    pytest.param('{"a": [1, 2}', {"a": [1, 2]}, {"a": [1, 2]}, id="mismatched-bracket"),
    pytest.param('{"a" "b"}', {"a": "b"}, {"a": "b"}, id="dify17270-missing-colon"),
    pytest.param("{a: 1, b: 'two'}", {"a": 1, "b": "two"}, {"a": 1, "b": "two"}, id="bare-keys"),
    pytest.param('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}, id="trailing-commas"),
    pytest.param(
        "{'a': 'b', 'c': None, 'd': True, 'e': False}",
        {"a": "b", "c": None, "d": True, "e": False},
        {"a": "b", "c": None, "d": True, "e": False},
        id="python-literals",
    ),
    pytest.param('{"expression": 37 * 91}', {"expression": 37}, REFUSED, id="word-lost-37x91"),
    pytest.param('{"a": "b" "c"}', {"a": "b"}, REFUSED, id="word-lost-second-string"),
    pytest.param('{"a": 1 /* note */}', {"a": 1}, REFUSED, id="word-lost-comment"),
    pytest.param("{'a': 'it''s'}", {"a": "it"}, REFUSED, id="word-lost-doubled-quote"),
    pytest.param('{"a": tru}', {"a": "tru"}, REFUSED, id="cut-literal-made-a-string"),
    pytest.param('{"q" 1}', {"q": ""}, REFUSED, id="value-invented"),
    pytest.param('{"a": }', {"a": ""}, REFUSED, id="value-invented-empty"),
    pytest.param("{garbage}", ["garbage}"], REFUSED, id="object-became-array"),
    pytest.param("}{", {}, REFUSED, id="nothing-kept"),
]


def _same(actual, expected):
    return actual == expected and type(actual) is type(expected)


@pytest.mark.parametrize(("text", "repaired", "outcome"), REPAIRS)
def test_json_repair_still_repairs_as_the_trust_rule_expects(text, repaired, outcome):
    import json_repair

    assert _same(json_repair.loads(text), repaired), (
        f"json-repair now repairs {text!r} as {json_repair.loads(text)!r} (was {repaired!r}): check "
        "repair_problem on the new value, then update this table and the range in requirements.txt"
    )


@pytest.mark.parametrize(("text", "repaired", "outcome"), REPAIRS)
def test_the_trust_rule_accepts_or_refuses_each_repair(text, repaired, outcome):
    if outcome is REFUSED:
        with pytest.raises(ArgumentsError) as caught:
            loads_lenient(text)
        assert not caught.value.truncated
    else:
        assert _same(loads_lenient(text), outcome)


def test_the_trust_rule_never_reads_the_repair_log(monkeypatch):
    """Whatever json_args calls in json_repair, it never asks for the log (``logging=True``),
    and its verdicts stay the same when the library's log says something else entirely."""
    import json_repair

    asked: list[dict] = []

    def spy(real):
        def call(*args, **kwargs):
            asked.append(kwargs)
            result = real(*args, **kwargs)
            if kwargs.get("logging"):  # a log nobody should read: any wording must do
                value, _ = result
                return value, [{"text": "reworded by a future release", "context": ""}]
            return result

        return call

    for name in ("loads", "repair_json"):
        monkeypatch.setattr(json_repair, name, spy(getattr(json_repair, name)))
    for param in REPAIRS:
        text, _, outcome = param.values
        if outcome is REFUSED:
            with pytest.raises(ArgumentsError):
                loads_lenient(text)
        else:
            assert _same(loads_lenient(text), outcome)
    assert asked, "json_args no longer calls json_repair.loads or repair_json: update this test"
    assert not any(kwargs.get("logging") for kwargs in asked)


def test_installed_json_repair_is_in_the_range_requirements_txt_allows():
    """The tests above ran on a version the daemon may install (it installs requirements.txt)."""
    import re
    from importlib.metadata import version
    from pathlib import Path

    from packaging.requirements import Requirement

    lines = (Path(__file__).resolve().parents[2] / "requirements.txt").read_text(encoding="utf-8").splitlines()
    (line,) = [line for line in lines if re.match(r"\s*json[-_]repair\b", line)]
    requirement = Requirement(line.split("#", 1)[0].strip())
    installed = version("json-repair")
    assert requirement.specifier.contains(installed, prereleases=True), (str(requirement), installed)


def _nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def test_too_deep_counts_arrays_and_objects_and_is_safe_on_any_depth():
    assert not too_deep({"a": [1, {"b": "x"}]}, 3)
    assert too_deep({"a": [1, {"b": {}}]}, 3)
    assert not too_deep("[[[[", 1) and not too_deep(5, 0)
    assert too_deep(_nested(100_000), MAX_DEPTH)  # no recursion


@pytest.mark.parametrize(
    "raw",
    ['{"city": "\\ud800x"}', '{"\\ud83d": "x"}', "{'city': '\\udfff',}", '{"a": ["\\uD800"]}'],
)
def test_a_lone_surrogate_escape_becomes_a_replacement_character(raw):
    """Half a surrogate pair decodes to a character no UTF-8 encoder writes: the SDK's encoder
    would fail on the CALL line and end the run."""
    value = decode_arguments(raw)
    assert "\ufffd" in json.dumps(value, ensure_ascii=False)
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # writable
    assert decode_arguments('{"emoji": "\\ud83d\\ude00"}') == {"emoji": "\U0001f600"}  # a whole pair is kept


def test_a_repair_that_would_rescan_each_of_many_levels_is_refused_and_short_ones_still_run():
    """json_repair goes over an object opening on no key, or a parenthesis, once per level: 100 KB
    under a few dozen such levels took seconds. Such text is refused as json_repair's failure
    would be; doubled braces and Python tuples are repaired as before."""
    assert loads_lenient('{{"a": 1}}') == {"a": 1}
    assert loads_lenient('{{{{"a": 1}}}}') == {"a": 1}
    assert loads_lenient("{'a': ('x', 'y'),}") == {"a": ["x", "y"]}
    assert costly_to_repair('{"a":' + "{" * 50 + "x" * 10_000 + "}" * 51)
    assert not costly_to_repair('{"a": {"b": [' + "'x', " * 2_000 + "]}}")
    with pytest.raises(ArgumentsError, match="not valid JSON"):
        loads_lenient('{"a":' + "{" * 50 + "x" * 10_000 + "}" * 51)


_KEYS = st.text(st.characters(codec="utf-8", exclude_characters='"\\'), min_size=0, max_size=6)
_CUT_VALUES = st.builds(
    lambda opener, key, tail, closer, spaces: f"{opener}{spaces}{{{spaces}\"{key}\"{tail}{spaces}}}{closer}",
    st.sampled_from(["", "[", '{"a": ', '[1, ', '{"a": 1, "b": ']),
    _KEYS,
    st.sampled_from(["", ":", ": ", ': "', ': "x', ", ", ': 1', ': tru', "}"]),
    st.sampled_from(["", "]", "}", "]]"]),
    st.sampled_from(["", " ", "\n"]),
)


def _outcome(text):
    try:
        return ("value", loads_lenient(text))
    except ArgumentsError as error:
        return ("error", str(error), error.truncated)


@settings(max_examples=400, deadline=None)
@given(_CUT_VALUES)
@example('[{"\n"}]')  # json_repair reads nothing from it; the shortcut once gave [["\n"]]
@example('[{"a\n"}]')  # json_repair drops the line break at the key's end
@example('[{"\x00\n"}]')
@example('[{"„"}]')  # „ opens a string in json_repair: the text is refused
@example('[{"a„b"}]')
@example('[{"True"}]')  # the trust rule reads True as JSON's true, which the value lacks
def test_the_key_only_shortcut_gives_what_the_repair_gave(text):
    """An object cut after its first key (``{"name"}``, ``[{"name"}]``) is decoded without
    json_repair; for any cut value the outcome (value, or message and truncated flag) is the
    one the repair under the trust rule gave."""
    import agent_core.json_args as json_args

    shortcut = _outcome(text)
    original, json_args._key_only = json_args._key_only, lambda cleaned, error: None
    try:
        assert shortcut == _outcome(text)
    finally:
        json_args._key_only = original


def test_the_key_only_shortcut_is_taken_for_a_fence_cut_after_its_first_key():
    import agent_core.json_args as json_args

    assert json_args._key_only('[{"name"}]', ValueError()) == [["name"]]
    assert json_args._key_only('{"name": 1}', ValueError()) is None


def test_a_repair_that_would_read_one_long_string_a_character_at_a_time_is_refused():
    """json_repair reads a single-quoted or unquoted string a character at a time, copying all it
    read so far at each (800 KB of ``{'a': '...'}`` took 7 s, ``<tool_call>{`` lines sent whole 2 s
    at 400 KB). Past ``SLOW_STRING_MAX`` characters such a text is refused as json_repair's failure
    would be; under it, and long runs of what is not a string (whitespace, numbers, brackets, many
    short strings), are repaired as before."""
    from agent_core.json_args import SLOW_STRING_MAX

    words = "x y " * (SLOW_STRING_MAX // 4 - 2) + "x y"
    assert loads_lenient("{'a': '" + words + "'}") == {"a": words}  # just under the bound: repaired
    assert costly_to_repair("{'a': '" + words + " z z'}")
    assert costly_to_repair('{"a": ' + words + " z z z z}")
    assert costly_to_repair("{\n<tool_call>" * (SLOW_STRING_MAX // 10) + "}")
    with pytest.raises(ArgumentsError, match="not valid JSON") as error:
        loads_lenient("{'a': '" + words + " z z'}")
    assert not error.value.truncated
    many = "{" + "'k': 'v', " * SLOW_STRING_MAX + "}"  # a Python literal of many short strings
    assert not costly_to_repair(many)
    assert not costly_to_repair('{"a": 1,' + " \n" * SLOW_STRING_MAX + '"b": 2,}')
    assert not costly_to_repair("[" + "1 " * SLOW_STRING_MAX + "]")
    assert not costly_to_repair('{"a": "' + "x" * 2 * SLOW_STRING_MAX + '", "b": }')  # double quotes: read at once


def test_unquoted_values_and_keys_json_repair_would_scan_again_for_each_are_refused_when_long():
    """At the comma after an unquoted value json_repair scans to the next quote or ``}`` when an
    unquoted key and value follow, afresh for each value (``{"a": one two, three: ...}``: 0.13 s
    at 8 KB, 8 s at 64 KB). Past ``BARE_MEMBER_SCAN_MAX`` characters scanned such a text is
    refused as json_repair's failure would be; YAML-ish arguments, short or with values that
    stop the scan, are repaired as before."""
    assert loads_lenient("{a: 1, b: two}") == {"a": 1, "b": "two"}
    assert loads_lenient('{"path": notes.md, mode: append}') == {"path": "notes.md", "mode": "append"}
    assert loads_lenient("{query: weather in Paris, units: metric, days: 3}") == {"query": "weather in Paris", "units": "metric", "days": 3}
    long = '{"a": ' + "one two, three: " * 512 + "}"  # 8 KB
    assert costly_to_repair(long)
    with pytest.raises(ArgumentsError, match="not valid JSON") as error:
        loads_lenient(long)
    assert not error.value.truncated
    assert not costly_to_repair('{"a": ' + "one two, three: " * 250 + "}")  # 4 KB: repaired
    assert not costly_to_repair("{" + "a: 1, b: two, " * 4_000 + "}")  # a number stops each scan
    assert not costly_to_repair("{" + 'a: "v", ' * 8_000 + "}")
    assert not costly_to_repair("{'code': '" + "def f(self, x: int, y: str): pass\\n" * 1_000 + "'}")


def test_a_repaired_text_leaves_no_cycle_for_the_collector():
    """The first decode error was kept with its traceback, which holds the frame that kept it: a
    cycle that pinned every frame of the run's stack (its reply, its round) until a full
    collection, which arrives seldom when the garbage is strings (a long-lived process serving
    sixteen sessions of 400 KB almost-JSON at once grew 40 MB a batch, to 380 MB)."""
    import gc

    loads_lenient("{'a': 1,}")  # whatever is built once
    gc.collect()
    gc.disable()
    try:
        assert loads_lenient("{'a': 1, 'b': [1, 2],}") == {"a": 1, "b": [1, 2]}
        assert gc.collect() == 0
    finally:
        gc.enable()


def _depth_reference(value, depth=1):
    """Nesting depth as too_deep read it before dicts skipped abc's Mapping check."""
    from collections.abc import Mapping

    if isinstance(value, Mapping):
        return max((_depth_reference(v, depth + 1) for v in value.values()), default=depth)
    if isinstance(value, list | tuple):
        return max((_depth_reference(v, depth + 1) for v in value), default=depth)
    return depth - 1


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.integers(), st.text(max_size=3)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.text(max_size=2), inner, max_size=3),
            st.dictionaries(st.text(max_size=2), inner, max_size=3).map(__import__("types").MappingProxyType),
        ),
        max_leaves=12,
    ),
    st.integers(min_value=0, max_value=6),
)
def test_too_deep_reads_dicts_and_other_mappings_as_before(value, limit):
    from agent_core.json_args import too_deep

    assert too_deep(value, limit) == (_depth_reference(value) > limit)


@pytest.mark.parametrize(("text", "expected"), [
    ('{"city"："北京"}', {"city": "北京"}),
    ('{"city" ： "北京"，"unit"："c"}', {"city": "北京", "unit": "c"}),
    ('{“city”：“北京”}', {"city": "北京"}),
    ('{"q": "时间：3点", "n"：2}', {"q": "时间：3点", "n": 2}),
])
def test_a_full_width_colon_after_a_key_is_the_key_colon(text, expected):
    """A model writing Chinese may type a key's colon full-width (Dify users' wave 40 probe):
    read as ``:``; one inside a string value stays the value's text."""
    assert loads_lenient(text) == expected


def test_a_full_width_colon_inside_valid_json_is_text():
    assert loads_lenient('{"q": "时间：3点"}') == {"q": "时间：3点"}


@pytest.mark.parametrize("unit", ["\u201c", '"', '\\"', '"a"', "\u201ca\u201d "])
def test_reading_full_width_colons_grows_linearly(unit):
    """A run of quote openers with no closer after them (``“`` repeated, escaped quotes) made the
    first pattern of ``full_width_colons_read`` scan to the line's end again from each quote
    (140 ms for 8,000 characters, flagged by test_regex_growth); the pieces are now read once.
    A text 16 times longer takes far less than 16 squared times as long (best of three each)."""
    import time

    from agent_core.json_args import full_width_colons_read

    def best(text: str) -> float:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            full_width_colons_read(text)
            times.append(time.perf_counter() - started)
        return min(times)

    small, large = (unit * n + "\uff1a" for n in (2_000, 32_000))
    assert best(large) < 64 * max(best(small), 1e-4)
