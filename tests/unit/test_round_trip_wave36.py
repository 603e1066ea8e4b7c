"""Faults the wave-36 round-trip fuzz campaign found (``tests/e2e/test_fuzz_roundtrip_wave36.py``),
each at the unit that had it: what a model plugin returned must go back to it intact within the
run (docs/model-round-trip.md)."""

import json

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.json_args import dumps_arguments, loads
from agent_core.model_call import ModelChunk
from agent_core.react.parser import parse_react
from agent_core.think import ThinkSplitter, closes_unopened_block
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from tests.unit.helpers import drain


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


# --- a closing tag right after a code span, the last text of a reply ----------------------------


def test_reasoning_that_ends_in_a_code_span_is_closed_by_a_bare_closing_tag_at_the_reply_end():
    """Kimi's plugin sends a tool-call reply's ``</think>`` as a bare chunk of its own after the
    reasoning: after a backtick, the tag waited for the character after it, which never came."""
    splitter = ThinkSplitter()
    shown = [splitter.feed(piece).visible for piece in ("<think>", "I read `config.py`", "</think>")]
    end = splitter.finish()
    assert "".join(shown) + end.visible == ""
    assert splitter.closing_tag is None  # the block is closed: nothing is added when it goes back
    assert "</think>" not in end.reasoning


def test_the_reply_goes_back_without_a_second_closing_tag():
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "a"}'}}
    chunks = [ModelChunk(text=t) for t in ("<think>", "zq reasoning `code`", "</think>")]
    chunks += [ModelChunk(tool_calls=(ToolCallDelta.from_raw(call),)), ModelChunk(finish_reason="tool_calls")]
    streamed, turn = drain(read_function_calling_turn(iter(chunks), ["lookup"]))
    assert streamed == ""
    assert turn.content == "<think>zq reasoning `code`</think>"


@pytest.mark.parametrize("pieces", [["<think>zq `a.py`</think>`x` is the file"],
                                    ["<think>", "zq `a.py`", "</think>`x` is the file"],
                                    ["<think>zq `a.py`</think>", "`x` is the file"]])
def test_a_closing_tag_between_two_code_spans_ends_the_reasoning(pieces):
    """Kimi's plugin glues ``</think>`` to the answer's first text: reasoning that ends in a code
    span and an answer that starts with one made a backtick on each side of the tag, read as
    `` `</think>` `` written as code, and the whole answer was hidden as reasoning."""
    splitter = ThinkSplitter()
    shown = "".join(splitter.feed(piece).visible for piece in pieces) + splitter.finish().visible
    assert shown == "`x` is the file"
    assert splitter.closing_tag is None


@pytest.mark.parametrize("text", ["<think>zq says `</think>` is a tag</think>answer",
                                  "<think>zq ``</think>`` and</think>answer",
                                  "<think>zq\n```\nx `a` `</think>` y\n```\nmore</think>answer",
                                  "<think>" + "see `</think>` here " * 2000 + "</think>answer"])
def test_a_closing_tag_written_as_code_in_the_reasoning_is_still_its_text(text):
    splitter = ThinkSplitter()
    assert splitter.feed(text).visible + splitter.finish().visible == "answer"


def test_a_tag_between_backticks_at_the_reply_end_is_still_code():
    splitter = ThinkSplitter()
    shown = splitter.feed("Write `</think>`").visible + splitter.finish().visible
    assert shown == "Write `</think>`"


# --- a call id that repeats within a reply ------------------------------------------------------


def _assembled(raw_calls):
    assembler = ToolCallAssembler()
    for raw in raw_calls:
        assembler.add(ToolCallDelta.from_raw(raw))
    return assembler.finish("tool_calls")


def _call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_a_call_under_an_id_an_earlier_call_has_keeps_its_place():
    """Tongyi's plugin makes the tool's name the id: ``[lookup, get_weather, lookup]`` ran as
    ``[lookup, lookup, get_weather]`` (the third read as glued to the first)."""
    result = _assembled([_call("lookup", "lookup", {"q": "a"}), _call("get_weather", "get_weather", {"city": "b"}),
                         _call("lookup", "lookup", {"q": "c"})])
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("lookup", {"q": "a"}), ("get_weather", {"city": "b"}), ("lookup", {"q": "c"})]
    assert result.calls[0].id == "lookup" and len({c.id for c in result.calls}) == 3


def test_a_call_streamed_in_fragments_under_an_earlier_calls_id_keeps_its_place():
    fragments = [_call("a", "lookup", {"q": "x"}), _call("b", "get_weather", {"city": "y"}),
                 {"id": "a", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "z'}},
                 {"id": "", "type": "function", "function": {"name": "", "arguments": '"}'}}]
    result = _assembled(fragments)
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("lookup", {"q": "x"}), ("get_weather", {"city": "y"}), ("lookup", {"q": "z"})]


def test_a_head_of_one_brace_under_an_earlier_calls_id_after_another_call_is_a_call():
    fragments = [_call("a", "lookup", {"q": "x"}), _call("b", "get_weather", {"city": "y"}),
                 {"id": "a", "type": "function", "function": {"name": "lookup", "arguments": "{"}},
                 {"id": "", "type": "function", "function": {"name": "", "arguments": '"q": "z"}'}}]
    assert [c.arguments for c in _assembled(fragments).calls] == [{"q": "x"}, {"city": "y"}, {"q": "z"}]


def test_a_whole_call_with_an_id_after_a_whole_call_without_one_keeps_its_place():
    calls = [_call("", "lookup", {"q": "x"}), _call("lookup", "lookup", {"q": "y"}),
             _call("get_weather", "get_weather", {"city": "z"}), _call("lookup", "lookup", {"q": "w"})]
    assert [c.arguments for c in _assembled(calls).calls] == [{"q": "x"}, {"q": "y"}, {"city": "z"}, {"q": "w"}]


def test_the_id_after_the_name_still_joins_its_call():
    fragments = [{"type": "function", "function": {"name": "lookup", "arguments": ""}},
                 {"id": "call_1", "type": "function", "function": {"name": "", "arguments": '{"q": "x"}'}}]
    assert [(c.id, c.arguments) for c in _assembled(fragments).calls] == [("call_1", {"q": "x"})]


def test_arguments_sent_again_from_their_start_are_one_call():
    fragments = [_call("a", "lookup", {"q": "x"}),
                 {"id": "a", "type": "function", "function": {"name": "lookup", "arguments": '{"q": '}},
                 {"id": "", "type": "function", "function": {"name": "", "arguments": '"x"}'}}]
    assert [(c.name, c.arguments) for c in _assembled(fragments).calls] == [("lookup", {"q": "x"})]


def test_calls_sent_again_in_every_packet_are_still_read_once():
    """Ollama's plugin repeats every call so far in each packet, under the same ids."""
    first, second = _call("0", "lookup", {"q": "a"}), _call("1", "lookup", {"q": "b"})
    result = _assembled([first, first, second, first, second])
    assert [(c.id, c.arguments) for c in result.calls] == [("0", {"q": "a"}), ("1", {"q": "b"})]


def test_a_head_with_empty_arguments_then_its_arguments_under_its_id_is_one_call():
    result = _assembled([_call("x", "lookup", {}), _call("x", "lookup", {"q": "a"})])
    assert [(c.id, c.arguments) for c in result.calls] == [("x", {"q": "a"})]


# --- a closing tag inside a ReAct action's input ------------------------------------------------


@pytest.mark.parametrize("value", ["</think>", "a </think> b", "</THINKING>"])
def test_a_closing_tag_in_an_action_input_reaches_the_tool_as_written(value):
    arguments = {"q": value, "n": 1}
    turn = parse_react(f"Thought: look it up.\nAction: lookup\nAction Input: {json.dumps(arguments)}")
    assert [(a.name, a.input) for a in turn.actions] == [("lookup", arguments)]


def test_a_closing_tag_in_a_text_input_is_kept():
    turn = parse_react("Thought: x\nAction: lookup\nAction Input: plain </think> text")
    assert [a.input for a in turn.actions] == ["plain </think> text"]


def test_a_closing_tag_before_the_step_still_ends_the_reasoning_a_template_opened():
    turn = parse_react('my reasoning</think>\nThought: x\nAction: lookup\nAction Input: {"q": "a"}')
    assert [(a.name, a.input) for a in turn.actions] == [("lookup", {"q": "a"})]


@pytest.mark.parametrize(("reply", "closes"), [
    ('Thought: t\nAction: lookup\nAction Input: {"q": "P", "k0": "</think>"}', False),
    ('Thought: t\nAction: lookup\nAction Input: {"q": "a \\" </think> b"}', False),
    ("my reasoning</think>\nThought: t\nFinal Answer: ok", True),
    ('I read "a" and {b}</think>\nFinal Answer: ok', True),
])
def test_a_closing_tag_in_a_json_string_is_no_end_of_a_block_the_template_opened(reply, closes):
    """Read as one, every later reply of the run was held until its first ``</think>``: the next
    action's input holding one then ended its \"reasoning\" there and the rest was the answer."""
    assert closes_unopened_block(reply) is closes
