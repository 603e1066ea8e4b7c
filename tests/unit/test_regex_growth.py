"""The plugin's regular expressions read adversarial text in time that grows with its length,
not with its square or worse (catastrophic backtracking, ReDoS).

A regex runs in C holding the GIL: while one backtracks, no other session of the plugin process
runs, heartbeats stop and the run's deadline is not checked. Model replies, tool output and call
arguments are adversarial input. These tests compare times at two sizes (growth, not wall time);
a call stopped by the alarm counts as growing."""

from __future__ import annotations

import contextlib
import importlib
import signal

import json_repair
import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from bench import regex_growth

BOUNDED = {
    "agent_core.react.parser:_LABEL_TABLES": "matched at a line start on a window of 48 characters",
    "agent_core.text_calls:_ONE_KWARG": "run over a text _KWARGS matched whole: each pair found where the last ended",
}
"""Patterns a long run of their own characters slows (search restarting at every character of
it), applied only where that run cannot stand: why, for each."""


def test_every_pattern_of_the_plugin_reads_texts_built_from_its_own_pieces_in_linear_time():
    # every compiled pattern of agent_core/, strategies/ and main.py, with the methods the code
    # applies it with: a future pattern is checked too
    found = regex_growth.all_patterns()
    assert len(found) > 150, "the patterns were not found"
    flagged = [
        flag
        for item in found
        if item.where not in BOUNDED and regex_growth.check(item, limit=0.5, quick=True)
        # a pause of the machine (other processes on its cores) can make one measure grow: a
        # pattern is flagged only when two more checks agree
        for flag in _flagged_again(item, times=2)
    ]
    assert not flagged, [(f.where, f.method, f.shape, {n: round(t * 1e3, 2) for n, t in f.times.items()}) for f in flagged]


def _flagged_again(item: regex_growth.Found, times: int) -> list[regex_growth.Flag]:
    """The flags of ``times`` more checks of ``item``, the last one's, or none when one finds none."""
    flags: list[regex_growth.Flag] = []
    for _ in range(times):
        flags = regex_growth.check(item, limit=0.5, quick=True)
        if not flags:
            return []
    return flags


PAIR = "<arg_key>k</arg_key><arg_value>a</arg_value>"
FIXED = {
    # name: (module:attribute, method, prefix, unit repeated, suffix)
    "Kimi call id between blanks (cubic)": ("call_markup:_KIMI_CALL", "search", "<|tool_call_begin|>", "\t", ""),
    "Mistral call head": ("call_markup:_MISTRAL_CALL", "match", " a [CALL_ID]", "\t", "\x00"),
    "separator between calls": ("call_markup:_CALL_SEPARATOR", "match", "", "\t", "\x00"),
    "Qwen-Agent call head": ("call_markup:_QWEN_AGENT_CALL", "match", "", "\t", "\x00"),
    "Harmony header": ("call_markup:_HARMONY_HEADER", "match", "<|channel|>", "0", "\x00"),
    "gpt-oss bare call": ("call_markup:_BARE_CALL_WHOLE", "fullmatch", " commentary to=functions.a <|constrain|>", "\t", "\x00"),
    "fenced arguments": ("json_args:_FENCE", "match", "```", "\t", ""),
    "a final answer label left": ("fallback:_LABEL_LEFT", "search", " final answer", "\t", "\x00"),
    "ReAct fence line": ("react.parser:_FENCE_LINE", "match", " ```", "\t", "\x00"),
    "ReAct partial fence line": ("react.parser:_FENCE_LINE_PARTIAL", "fullmatch", " ```", "\t", "\x00"),
    "ReAct heading label": ("react.parser:_HEADING", "match", "action", "\t", "\x00"),
    "e.g. in a parameter description": ("react.prompt:_EXAMPLE", "search", "e.g., a", "\t", ""),
    "placeholder line": ("text_calls:_PLACEHOLDER_LINE", "match", "$A", "\t", "\x00"),
    "GLM pairs then a stray character (exponential)": ("text_calls:_GLM_CALL", "fullmatch", "get", PAIR, "\x00"),
    "GLM key opened over blanks": ("text_calls:_GLM_PAIR", "search", "<arg_key>", "\t", ""),
    "tool_call block body": ("text_calls:_TOOL_CALL_BLOCK", "match", "<tool_call> a", "\t", "\x00"),
    "closing fence": ("text_calls:_FENCE_CLOSE", "match", "", "\t", "\x00"),
    "tool_code fence body": ("text_calls:_CODE_FENCE", "search", "``` tool_code \n", "\t", ""),
    "partial json fence": ("text_calls:_FENCE_OPENING_START", "fullmatch", "` j", "\t", "\x00"),
    "ChatGLM3 call": ("text_calls:_CHATGLM3_CALL", "fullmatch", " aa \r\n ```", "\t", "\x00"),
    "next JSON object": ("text_calls:_NEXT_OBJECT", "match", "", "\t", "\x00"),
    "closing tilde fence": ("text_calls:_TILDE_FENCE_CLOSE", "match", "", "\t", "\x00"),
    "Kimi K3 attributes in a long word": ("call_markup:_XTML_ATTR", "findall", "", "_", ""),
    "Gemma call over blanks": ("call_markup:_GEMMA_CALL", "fullmatch", "", "\t", "\x00"),
    "fence line before call arguments": ("function_calling.turn:_FENCE_OPEN_LINE", "match", "```", "\t", "\x00"),
}


def _growth(call, text_of_size) -> tuple[float, float]:
    """Best-of-three CPU seconds of ``call`` at 2,000 and 8,000 characters (a linear reader: 4x;
    ``regex_growth.cost``: another process on the machine does not count)."""
    old = signal.signal(signal.SIGALRM, regex_growth._alarm)
    try:
        return tuple(regex_growth.cost(call, text_of_size(size), 1.0) for size in (2000, 8000))
    finally:
        signal.signal(signal.SIGALRM, old)


def _linear(small: float, big: float) -> bool:
    return big < 8 * max(small, 5e-5)  # quadratic: 16x


@pytest.mark.parametrize("case", FIXED, ids=list(FIXED))
def test_a_pattern_that_backtracked_reads_its_worst_text_in_linear_time(case):
    where, method, prefix, unit, suffix = FIXED[case]
    module, attribute = where.split(":")
    pattern = getattr(importlib.import_module(f"agent_core.{module}"), attribute)
    small, big = _growth(getattr(pattern, method), lambda size: regex_growth.text_of((prefix, unit, suffix), size, False))
    assert _linear(small, big), (case, small, big)


def test_trailing_special_tokens_are_read_backwards_in_linear_time():
    from agent_core.text_calls import without_trailing_tokens

    assert without_trailing_tokens("done <|eot_id|>\n</s> <|im_end|>  ") == "done "
    assert without_trailing_tokens("<|a|> x <|b|>") == "<|a|> x "
    # searched forwards, the pattern restarted at every token of a long run followed by a word
    small, big = _growth(without_trailing_tokens, lambda size: "<|a|> " * (size // 6) + "x")
    assert _linear(small, big), (small, big)


def test_keyword_arguments_ending_in_a_long_run_of_blanks_are_read_in_linear_time():
    from agent_core.text_calls import keyword_arguments

    assert keyword_arguments("query=1,\t\t", {"query": {}}) == {"query": 1}
    small, big = _growth(lambda text: keyword_arguments(text, {"query": {}}), lambda size: "query=1," + "\t" * size)
    assert _linear(small, big), (small, big)


def test_a_fence_around_family_call_arguments_is_taken_off_in_linear_time():
    from agent_core.call_markup import _arguments

    assert _arguments('```json\n{"a": 1}\n  ```') == {"a": 1}
    small, big = _growth(_arguments, lambda size: "x" + "\t" * size + "y")
    assert _linear(small, big), (small, big)


@pytest.mark.parametrize("head", ["get k", "getk"], ids=["first key unopened", "first key glued"])
def test_a_glm_call_whose_first_key_is_left_out_is_read_in_linear_time_when_a_stray_character_stands_between_pairs(head):
    from agent_core.text_calls import _glm_call

    get = PromptMessageTool(name="get", description="", parameters={"type": "object", "properties": {"k": {"type": "string"}}})
    tools = {"get": get}
    assert _glm_call(f"{head}</arg_key><arg_value>a</arg_value>{PAIR}x{PAIR}", tools) == [
        ("get", {"k": f"a</arg_value>{PAIR}x<arg_key>k</arg_key><arg_value>a"})
    ]
    # the first value was tried at each </arg_value>, the pairs after it read again each time
    # (1.3 s at 4,000 pairs)
    small, big = _growth(
        lambda text: _glm_call(text, tools),
        lambda size: f"{head}</arg_key><arg_value>a</arg_value>" + PAIR * (size // len(PAIR)) + "x" + PAIR,
    )
    assert _linear(small, big), (small, big)


def test_glm_pairs_holding_a_long_run_of_opened_keys_are_read_in_linear_time():
    from agent_core.text_calls import _glm_pairs

    assert _glm_pairs(f"{PAIR} <arg_key><arg_key>q</arg_key>b</arg_value>") == [("k", "a"), ("q", "b")]
    # findall restarted at every opened key of the run and read the rest of it again
    small, big = _growth(_glm_pairs, lambda size: "<arg_key>" * (size // 9))
    assert _linear(small, big), (small, big)


ESCAPED_QUOTES = {
    # name: (public reader, text of a size): each quote after the first escaped, none closing
    "loads_lenient, single quotes": ("agent_core.json_args:loads_lenient", lambda size: "{'a': '" + "\\'," * (size // 3) + "}"),
    "decode_arguments, double quotes": ("agent_core.json_args:decode_arguments", lambda size: '{"a": "' + '\\",' * (size // 3) + "}"),
    "costly_to_repair, double quotes": ("agent_core.json_args:costly_to_repair", lambda size: '{"a": "' + '\\"' * (size // 2)),
    "costly_to_repair, single quotes": ("agent_core.json_args:costly_to_repair", lambda size: "{'a': '" + "\\'" * (size // 2)),
    "unclosed, single quotes": ("agent_core.json_args:unclosed", lambda size: "{'a': '" + "\\'," * (size // 3) + "}"),
    "ReAct action input": ("agent_core.react.parser:parse_react", lambda size: "Thought: x\nAction: search\nAction Input: {'q': '" + "\\'," * (size // 3) + "}"),
    "Python-style call": ("agent_core.text_calls:call_arguments", lambda size: "query='" + "\\'," * (size // 3)),
    "Gemma bare call": ("agent_core.text_calls:gemma_arguments", lambda size: 'q:"' + '\\"' * (size // 2)),
    "Gemma call markup": ("agent_core.call_markup:_read_gemma", lambda size: '<|tool_call>call:search{q:"' + '\\"' * (size // 2) + "}<tool_call|>"),
}


@pytest.mark.parametrize("case", ESCAPED_QUOTES, ids=list(ESCAPED_QUOTES))
def test_a_string_never_closed_whose_quotes_are_all_escaped_is_read_in_linear_time(case, monkeypatch):
    # each escaped quote was tried as a string's start and scanned to the end: 240 KB of
    # {'a': '\',\',...} took four minutes in loads_lenient. The plugin's own reading is measured:
    # json_repair (whose time on a long string grows faster than its length, under
    # SLOW_STRING_MAX) answers at once
    monkeypatch.setattr(json_repair, "loads", lambda text: {"a": "'"})
    where, text_of_size = ESCAPED_QUOTES[case]
    module, attribute = where.split(":")
    function = getattr(importlib.import_module(module), attribute)
    call = (lambda text: function(text, None)) if attribute == "gemma_arguments" else function

    def quiet(text: str) -> None:
        with contextlib.suppress(ValueError):  # refused arguments: the answer is beside the point
            call(text)

    # a pause of the machine can make one measure grow: linear in one of three (quadratic was
    # over a second at 8,000 characters, stopped by the alarm)
    timings = []
    for _ in range(3):
        timings.append(_growth(quiet, text_of_size))
        if _linear(*timings[-1]):
            break
    assert _linear(*timings[-1]), (case, timings)


def test_strings_after_a_string_never_closed_stay_strings_where_a_backslash_ends_its_line():
    from agent_core.json_args import SLOW_STRING_MAX, costly_to_repair

    # without re.DOTALL the unclosed string's scan stops at a backslash before a line break: the
    # quotes after it open strings again, and a long run is slow to repair only outside them
    cut = '{"a": "\\"\\"\\\n, "b": '
    long = "x" * (SLOW_STRING_MAX + 1)
    assert not costly_to_repair(cut + '"' + long + '"}')
    assert costly_to_repair(cut + long + "}")


SLOW_STRINGS = {
    # name: (text of a size, costly at a bound of 100 characters): strings json_repair reads a
    # character at a time through their commas and colons (1 MB of {'a': 'x,x,...'} took 9 s)
    "single-quoted value with commas": (lambda size: "{'a': '" + "x," * (size // 2) + "'}", True),
    "single-quoted value with colons": (lambda size: "{'a': '" + "x:" * (size // 2) + "'}", True),
    "escaped single quotes never closed": (lambda size: "{'a': '" + "\\'," * (size // 3), True),
    "unquoted value with commas": (lambda size: '{"a": ' + "x, " * (size // 3) + "}", True),
    "many short single-quoted values": (lambda size: "{" + "'k': 'v, w: x', " * (size // 16) + "}", False),
    "many short unquoted values": (lambda size: "{" + '"k": v, ' * (size // 8) + "}", False),
    "colons and quotes alone": (lambda size: ": '," * (size // 4), False),
}


@pytest.mark.parametrize("case", SLOW_STRINGS, ids=list(SLOW_STRINGS))
def test_long_strings_json_repair_reads_slowly_are_found_in_linear_time(case, monkeypatch):
    from agent_core import json_args

    text_of_size, costly = SLOW_STRINGS[case]
    monkeypatch.setattr(json_args, "SLOW_STRING_MAX", 100)  # the scans run on texts of a few KB
    assert json_args.costly_to_repair(text_of_size(2000)) is costly
    timings = []
    for _ in range(3):  # a pause of the machine can make one measure grow: linear in one of three
        timings.append(_growth(json_args.costly_to_repair, text_of_size))
        if _linear(*timings[-1]):
            break
    assert _linear(*timings[-1]), (case, timings)


BARE_MEMBERS = {
    # name: (text of a size, costly at a bound of 100 characters scanned): unquoted values each
    # followed by an unquoted member, where json_repair scans afresh to the next quote or } (64 KB
    # of {"a": one two, three: one two, three: ...} took 8 s)
    "unquoted values and keys": (lambda size: '{"a": ' + "one two, three: " * (size // 16) + "}", True),
    "YAML-ish values, numbers between": (lambda size: "{" + "a: 1, b: two, " * (size // 14) + "}", False),
    "unquoted keys, quoted values": (lambda size: "{" + 'a: "v", ' * (size // 8) + "}", False),
    "members inside a quoted string": (lambda size: '{"a": "x, ' + "b: y, " * (size // 6) + '"}', False),
    "members inside a single-quoted string": (lambda size: "{'a': 'x, " + "b: y, " * (size // 6) + "'}", False),
    "colons and commas alone": (lambda size: ": x, y: " * (size // 8), True),
}


@pytest.mark.parametrize("case", BARE_MEMBERS, ids=list(BARE_MEMBERS))
def test_unquoted_members_json_repair_scans_for_are_found_in_linear_time(case, monkeypatch):
    from agent_core import json_args

    text_of_size, costly = BARE_MEMBERS[case]
    monkeypatch.setattr(json_args, "BARE_MEMBER_SCAN_MAX", 100)  # the scans run on texts of a few KB
    assert json_args._bare_member_scans_exceed(text_of_size(2000)) is costly
    timings = []
    for _ in range(3):  # a pause of the machine can make one measure grow: linear in one of three
        timings.append(_growth(json_args._bare_member_scans_exceed, text_of_size))
        if _linear(*timings[-1]):
            break
    assert _linear(*timings[-1]), (case, timings)
