"""``repair_strings``: an almost-JSON text's long strings read in C while ``json_repair`` reads
the rest (a file's content as an action input beside one other mistake: a trailing comma, a
single-quoted key, a Python literal). The value is json_repair's for the text around the strings,
the strings read as JSON reads them."""

import json

import json_repair
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import json_args, repair_strings

_CONTENT = st.lists(
    st.sampled_from(["a", "Z", "0", " ", "\n", "\t", "\r", "\b", "\f", '"', "'", "\\", "/", "{", "}", "[", "]",
                     ":", ",", "#", "`", "é", "中", "\u201e", "\U0001f600", "\x01", "True", "null", "```", '", "k": "']),
    max_size=30,
).map("".join)


def _written(content: str, how: int) -> str:
    """``content`` as a model may write it in a string: as JSON does, with its ``/`` escaped too,
    with every character escaped, with raw control characters, or with an escape JSON lacks."""
    dumped = json.dumps(content)
    return [
        dumped,
        json.dumps(content, ensure_ascii=False),
        dumped.replace("/", "\\/"),
        '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in content) + '"',
        '"' + content.replace('"', '\\"') + '"',
        dumped[:-1] + '\\_"',
    ][how % 6]


_MEMBERS = [
    '"path": "a.py", "content": {s}',
    '"content": {s}, "path": "a.py"',
    "'path': 'a.py', 'content': {s}",
    '"path": "a.py", "content": {s},',
    '"path": "a.py", "content": {s}, "overwrite": True',
    'path: "a.py", content: {s}',
    '"path": "a.py" "content": {s}',
    '"files": [{s}, {s}], "mode": None',
    '"a": {s} "b": 1',
    '"content": {s} // written',
    '{s}: 1, "b": 2,',
    '"lines": [{s}, "x",], "n": 1',
]


def _strings_of(value) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for item in value.values() for s in _strings_of(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings_of(item)]
    return [value] if isinstance(value, str) else []


def _reference(text: str) -> object:
    """json_repair's value of ``text`` with each long string that may be set aside written as a
    short word instead, the word then replaced by the string as JSON reads it."""
    words, pieces, written = {}, [], 0  # the words are "w0x", "w1x"... (filler holds no "w")
    for match in repair_strings._STRINGS.finditer(text):
        start, end = match.span()
        if text[start] == '"' and repair_strings._in_value_place(text, start, end):
            try:
                words[f"w{len(words)}x"] = json.loads(match.group())
            except ValueError:
                continue
            pieces += (text[written:start], f'"w{len(words) - 1}x"')
            written = end
    value = json_repair.loads("".join([*pieces, text[written:]]))
    values = [item for item in _strings_of(value) if "w" in item and "x" in item]
    if sorted(values) != sorted(words) or any(key in words for key in _keys_of(value)):
        return json_repair.loads(text)  # a word did not come out whole, as a value: the text decides
    swap = lambda v: {k: swap(i) for k, i in v.items()} if isinstance(v, dict) else [swap(i) for i in v] if isinstance(v, list) else words.get(v, v)  # noqa: E731
    return swap(value)


def _keys_of(value) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(k for item in value.values() for k in _keys_of(item))]
    if isinstance(value, list):
        return [k for item in value for k in _keys_of(item)]
    return []


@given(
    contents=st.lists(_CONTENT, min_size=1, max_size=3),
    hows=st.lists(st.integers(0, 5), min_size=1, max_size=3),
    shape=st.integers(0, len(_MEMBERS) - 1),
    closer=st.sampled_from(["}", "}", " }\n", ",}", "]}", "}}"]),
)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@example(contents=["\u201e\n"], hows=[4, 0], shape=7, closer="}")  # a raw line break misread before a string (deep run)
def test_strings_set_aside_are_read_as_json_and_the_rest_as_json_repair_reads_it(monkeypatch, contents, hows, shape, closer):
    """Property: for a member list of a common shape (mistakes beside the strings) whose strings
    hold any characters written in any way (JSON's escapes, ``\\/``, raw control characters,
    escapes JSON lacks), every string long enough to be set aside (here: all), the value is
    json_repair's for the text with each valid string in a value's place as a plain word, that
    word read as JSON reads the string (or both raise)."""
    monkeypatch.setattr(repair_strings, "LONG_STRING_CHARS", 1)
    strings = iter(_written(contents[n % len(contents)], hows[n % len(hows)]) for n in range(4))
    text = "{" + _MEMBERS[shape].replace("{s}", "{}").format(*(next(strings) for _ in range(_MEMBERS[shape].count("{s}")))) + closer
    try:
        json_repair.loads(text)
    except Exception as error:  # a third-party parser
        with pytest.raises(type(error)):
            repair_strings.repaired(text, json_repair.loads)
        return
    value = repair_strings.repaired(text, json_repair.loads)
    if value != _reference(text):
        # json_repair's reading of a text it already misreads (a string with a raw line break
        # read on past its closing quote) depends on what stands in the next string's place: the
        # reference's plain word can come out whole where the module's placeholder (private-use
        # marks) does not. The module then repairs the whole text, as documented: its value is
        # json_repair's own, the value without the module, never one of its placeholders.
        skeleton, strings = repair_strings.set_aside(text)
        assert not repair_strings.put_back(json_repair.loads(skeleton), strings)[0]
        assert value == json_repair.loads(text)
    # json_repair's own value for the whole text may differ: it can take a string the model wrote
    # whole into its repair of the text around it (``{"k": "["]}`` reads '["]', though each string
    # alone reads right), where the string is kept here as JSON reads it


def test_a_placeholder_json_repair_breaks_up_falls_back_to_the_whole_text(monkeypatch):
    """A string with a raw line break that json_repair reads on past its quote, before a valid
    string set aside: the placeholder comes out in pieces, so the whole text is repaired and no
    private-use mark reaches the value."""
    monkeypatch.setattr(repair_strings, "LONG_STRING_CHARS", 1)
    text = '{"files": ["\u201e\n", "\\u201e\\n"], "mode": None}'
    value = repair_strings.repaired(text, json_repair.loads)
    assert value == json_repair.loads(text)
    assert repair_strings._MARK not in json.dumps(value, ensure_ascii=False)


def test_a_long_file_content_beside_a_trailing_comma_is_read_once():
    # 400 KB of code with escaped line breaks and quotes, and a trailing comma: json_repair read
    # the string a character at a time (1.4 s); now it reads some 60 characters
    content = 'def f(x):\n    return "a\\\\b" + x  # it\'s\n' * 10_000
    text = '{"path": "a.py", "content": ' + json.dumps(content) + ",}"
    seen = []
    value = repair_strings.repaired(text, lambda skeleton: seen.append(skeleton) or json_repair.loads(skeleton))
    assert value == {"path": "a.py", "content": content}
    assert len(seen) == 1 and len(seen[0]) < 100
    assert json_args.loads_lenient(text) == value


def test_code_json_repair_would_split_is_kept_as_written():
    # json_repair 0.64 ends the string at "a, b: int" (a comma, then what looks like a key) and
    # drops the last line break before ",}": the file would be written wrong
    content = "def f(a, b: int) -> dict:\n    return {\"a\": a, }\n" * 200
    text = '{"path": "a.py", "content": ' + json.dumps(content) + ",}"
    assert json_repair.loads(text) != {"path": "a.py", "content": content}
    assert repair_strings.repaired(text, json_repair.loads) == {"path": "a.py", "content": content}
    assert json_args.loads_lenient(text) == {"path": "a.py", "content": content}


def test_a_string_json_does_not_read_is_left_to_json_repair():
    # a raw line break or an escape JSON lacks (``\\_``): json_repair reads the string itself
    for body in ["line\n" * 1_000, "x\\_y" * 1_000]:
        text = '{"content": "' + body + '",}'
        assert repair_strings.set_aside(text) is None
        assert repair_strings.repaired(text, json_repair.loads) == json_repair.loads(text)
