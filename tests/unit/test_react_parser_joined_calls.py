"""Call objects written one after another on the same line (``{...} {...}``, ``{...}, {...}``,
``{...}; {...}``): with several actions allowed each is an action, in order, however the reply
is chunked; text with braces after an action stays what it was."""

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.model_call import ModelChunk
from agent_core.react.parser import ActionFound, ReactStreamParser, parse_react
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ToolCalls
from tests.unit.helpers import drain, merged

A = '{"action": "a", "action_input": {}}'
B = '{"action": "b", "action_input": {"x": 1}}'
NAMED_A = '{"name": "a", "arguments": {}}'
NAMED_B = '{"name": "b", "arguments": {"x": 1}}'
BOTH = [("a", {}), ("b", {"x": 1})]

JOINED = {
    "labelled, space": f"Action: {A} {B}",
    "bare, space": f"{A} {B}",
    "bare, comma": f"{A}, {B}",
    "bare, semicolon": f"{A}; {B}",
    "bare, nothing between": f"{A}{B}",
    "name/arguments, space": f"{NAMED_A} {NAMED_B}",
    "name/arguments, semicolon": f"{NAMED_A};{NAMED_B}",
    "fenced, space": f"```json\n{A} {B}\n```",
    "labelled fence, comma": f"Thought: both\nAction:\n```json\n{A}, {B}\n```",
    "under a thought": f"Thought: both at once\n{A} {B}",
    "under a thought, then the answer label": f"Thought: both\n{A}; {B}\nFinal Answer: invented",
    "after a call token": f"<|python_tag|>{NAMED_A}; {NAMED_B}",
    "in a tool_call tag": f"<tool_call>{NAMED_A} {NAMED_B}</tool_call>",
    "input of a named action": f'Action: a\nAction Input: {{}} {B}',
    "tabs around a comma": f"{A}\t ,\t{B}",
}


def _read(text: str, size: int | None) -> tuple[list, object]:
    """``text`` read in pieces of ``size`` characters (whole for None): merged events, turn."""
    return _read_chunks([text] if size is None else [text[i : i + size] for i in range(0, len(text), size)])


def _read_chunks(chunks: list[str]) -> tuple[list, object]:
    parser = ReactStreamParser(allow_multiple_actions=True)
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.finish()
    return merged(events), parser.result()


@pytest.mark.parametrize("text", JOINED.values(), ids=JOINED.keys())
def test_each_call_object_on_the_line_is_an_action_in_order(text):
    turn = parse_react(text, allow_multiple_actions=True)
    assert [(action.name, action.input) for action in turn.actions] == BOTH
    assert turn.final_answer is None and turn.problem is None
    assert "{" not in turn.thought  # neither call is left in the thought


@pytest.mark.parametrize("text", JOINED.values(), ids=JOINED.keys())
@pytest.mark.parametrize("size", [1, 3, 7])
def test_a_stream_in_pieces_reads_as_the_whole_reply(text, size):
    whole = _read(text, None)
    assert _read(text, size) == whole
    events, turn = whole
    assert [event for event in events if isinstance(event, ActionFound)] == list(turn.actions)


def test_three_calls_on_one_line_and_each_keeps_its_own_raw_text():
    turn = parse_react(f"{A} {B}, {A}", allow_multiple_actions=True)
    assert [action.name for action in turn.actions] == ["a", "b", "a"]
    assert [action.raw for action in turn.actions] == [A, B, A]


def test_a_joined_call_is_streamed_as_soon_as_its_json_closes():
    parser = ReactStreamParser(allow_multiple_actions=True)
    assert [e.name for e in parser.feed(f"{A}, ") if isinstance(e, ActionFound)] == ["a"]
    assert [e.name for e in parser.feed(B) if isinstance(e, ActionFound)] == ["b"]


def test_joined_calls_under_a_thought_go_back_to_it_when_a_labelled_action_follows():
    # an example in the thought, as a lone bare object is (dify-official-plugins#3861)
    turn = parse_react(f"Thought: the shape is\n{A} {B}\nAction: c\nAction Input: {{}}", allow_multiple_actions=True)
    assert [action.name for action in turn.actions] == ["c"]
    assert A in turn.thought and B in turn.thought


@pytest.mark.parametrize(
    ("text", "thought"),
    [
        (f"Thought: t\nAction: {A} {{not json", "t\n {not json"),
        (f"Thought: t\nAction: {A} {{like this}}", "t\n {like this}"),
        (f"Thought: t\nAction: {A} {{\"x\": 1}} and more", 't\n {"x": 1} and more'),
        (f"Thought: t\nAction: {A} , then {B}", f"t\n , then {B}"),
        (f"Thought: t\nAction: {A},,{B}", f"t\n,,{B}"),
        (f"```json\n{A} {{not json\n```", "{not json\n```"),
    ],
)
@pytest.mark.parametrize("size", [None, 1, 3, 7])
def test_braces_that_are_no_call_after_an_action_stay_in_the_thought(text, thought, size):
    # as before calls joined on a line were read: shown in the log, never run
    _, turn = _read(text, size)
    assert [action.name for action in turn.actions] == ["a"]
    assert turn.thought == thought


@pytest.mark.parametrize("text", [f"{A} ", f"{A} ,", f"{A};"])
def test_separators_with_nothing_after_them_end_the_turn_as_before(text):
    turn = parse_react(text, allow_multiple_actions=True)
    assert [action.name for action in turn.actions] == ["a"] and not turn.ended_inside


def test_a_joined_call_cut_by_the_end_of_the_reply_says_the_reply_ended_inside_it():
    # as an unclosed object on the next line does: a reply cut at the output limit runs nothing
    turn = parse_react(f'{A} {{"action": "b", "action_input": {{"x": ', allow_multiple_actions=True)
    assert turn.ended_inside


@pytest.mark.parametrize("text", [f"Action: {A} {B}", f"{A}, {B}", f"{A}\n{B}"])
def test_with_one_action_allowed_the_first_runs_as_with_a_call_on_the_next_line(text):
    assert [action.name for action in parse_react(text).actions] == ["a"]


_SEPARATORS = st.sampled_from(["", " ", "  ", "\t", ",", ", ", " ,", ";", "; ", " ; ", "\t,\t"])
_CALLS = st.sampled_from([A, B, NAMED_A, NAMED_B])


@settings(max_examples=200, deadline=None)
@given(
    calls=st.lists(_CALLS, min_size=2, max_size=4),
    separators=st.lists(_SEPARATORS, min_size=3, max_size=3),
    opener=st.sampled_from(["", "Action: ", "Thought: t\n", "```json\n", "<tool_call>"]),
    cuts=st.lists(st.integers(1, 400), max_size=6),
)
def test_any_calls_joined_on_a_line_are_each_an_action_however_chunked(calls, separators, opener, cuts):
    line = calls[0] + "".join(sep + call for sep, call in zip(separators, calls[1:], strict=False))
    text = opener + line
    whole = _read(text, None)
    bounds = sorted({0, len(text), *(cut for cut in cuts if cut < len(text))})
    assert _read_chunks([text[a:b] for a, b in pairwise(bounds)]) == whole
    assert [action.name for action in whole[1].actions] == [call.split('"')[3] for call in calls]


def test_the_turn_runs_both_joined_calls_in_one_round_in_order():
    reply = 'Thought: both cities\nAction: {"action": "weather", "action_input": {"city": "Paris"}}, ' \
        '{"action": "weather", "action_input": {"city": "Oslo"}}'
    chunks = iter([ModelChunk(text=reply[i : i + 5]) for i in range(0, len(reply), 5)] + [ModelChunk(finish_reason="stop")])
    _, turn = drain(read_react_turn(chunks, ToolRegistry(None), 3))
    assert isinstance(turn.decision, ToolCalls)
    assert [(call.id, call.arguments) for call in turn.decision.calls] == [
        ("react-3-1", {"city": "Paris"}),
        ("react-3-2", {"city": "Oslo"}),
    ]
