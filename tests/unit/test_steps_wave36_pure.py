"""The pure parts behind the wave-36 blind steps (``tests/e2e/test_blind_steps_wave36.py``): a call
written as code or in a ```tool_code block that never closed, LangChain's ``Action: Final Answer``
cut inside its input, a second ``Action Input:`` under one ``Action:``, a backtick left unpaired
around an action input, and JSON steps written one after another."""

import json

import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core.call_markup import open_call_fence, open_code_call
from agent_core.function_calling.react_steps import react_step_calls
from agent_core.react.json_step import several_steps
from agent_core.react.parser import parse_react
from agent_core.react.turn import final_step_input, quoted_final_input, unpaired_ticks
from agent_core.tool_schema import filled_schema
from agent_core.turn import ToolCalls

NAMES = ("lookup", "look")


def tool(name: str = "lookup") -> PromptMessageTool:
    return PromptMessageTool(name=name, description="Looks a word up",
                             parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})


@pytest.mark.parametrize(("text", "expected"), [
    ("```tool_code\nlookup(q='a", True),
    ("Let me check.\n```tool_call\nprint(default_api.lookup(q='a'))", True),
    ("```tool_code\nlookup(q='a')\n```", False),  # closed: an answer may show it
    ("```tool_code\nsomething_else(q='a", False),  # names no tool of the node
    ("```python\nlookup(q='a", False),  # not a block that announces a call
    ("Use `lookup` like this:\n```tool_code\nlookup(q='a')\n```\nthen:\n```tool_code\nlook(", True),
])
def test_open_call_fence(text, expected):
    assert open_call_fence(text, NAMES) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ("lookup(q='a", True),
    ("  print(default_api.lookup(q='a'", True),
    ("[lookup(q='a'), lookup(q='b", True),  # Llama's list of calls
    ("lookup(q='a')", False),
    ("lookup is the tool (it looks words up", False),  # prose that names the tool
    ("other(q='a", False),
    ("", False),
])
def test_open_code_call(text, expected):
    assert open_code_call(text, NAMES) is expected


@pytest.mark.parametrize(("raw", "expected"), [
    ('Thought: done\nAction: Final Answer\nAction Input: "The laws are', True),
    ("Thought: done\nAction: final_answer\nAction Input: The laws are", True),
    ("Action: Finish\n  Action Input: The laws", True),
    ('Thought: x\nAction: lookup\nAction Input: {"q": "a', False),
    ('Action:\n```json\n{"action": "Final Answer", "action_input": "The', False),  # the JSON blob: blob_answer's
    ("Thought: done\nFinal Answer: The laws are", False),
])
def test_final_step_input(raw, expected):
    assert final_step_input(raw) is expected


@pytest.mark.parametrize(("text", "expected"), [
    ('`{"q": "Paris"}', '{"q": "Paris"}'),
    ('{"q": "Paris"}`', '{"q": "Paris"}'),
    ('``[{"q": "a"}]', '[{"q": "a"}]'),
    ('`{"q": "Paris"}`', '`{"q": "Paris"}`'),  # a closed code span: read where inputs are read
    ("`Paris", "`Paris"),  # a text input keeps what the model wrote
    ('{"q": "Paris"}', '{"q": "Paris"}'),
])
def test_unpaired_ticks(text, expected):
    assert unpaired_ticks(text) == expected


def test_a_second_action_input_under_one_action_is_an_action_of_its_own():
    parsed = parse_react('Thought: x\nAction: lookup\nAction Input: {"q": "a"}\nAction Input: {"q": "b"}',
                         allow_multiple_actions=True)
    assert [(a.name, a.input) for a in parsed.actions] == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]


def test_an_action_input_without_any_action_is_still_no_call():
    parsed = parse_react('Thought: x\nAction Input: "just text"', allow_multiple_actions=True)
    assert parsed.actions == ()


def test_function_calling_reads_the_second_action_input_as_a_call():
    text = 'Thought: x\nAction: lookup\nAction Input: {"q": "a"}\nAction Input: {"q": "b"}'
    read = react_step_calls(text, 0, {"lookup": tool()})
    assert not isinstance(read, str) and read is not None
    calls, _ = read
    assert [(c.name, c.arguments) for c in calls] == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]


def step(action: str, action_input) -> str:
    return json.dumps({"action": action, "action_input": action_input})


def test_json_steps_one_after_another_are_one_round_of_calls_in_order():
    decision = several_steps(step("lookup", {"q": "a"}) + "\n" + step("look", {"q": "b"}), [tool(), tool("look")], 3)
    assert isinstance(decision, ToolCalls)
    assert [(c.id, c.name, c.arguments) for c in decision.calls] == [
        ("react-3-1", "lookup", {"q": "a"}), ("react-3-2", "look", {"q": "b"})]


@pytest.mark.parametrize("text", [
    step("lookup", {"q": "a"}),  # one step: read as one
    step("lookup", {"q": "a"}) + step("Final Answer", "done"),  # an answer among them
    step("lookup", {"q": "a"}) + step("nosuch", {"q": "b"}),  # a step naming no tool
    step("lookup", {"q": "a"}) + " and " + step("lookup", {"q": "b"}),  # text between them
])
def test_other_texts_are_not_several_steps(text):
    assert several_steps(text, [tool()], 1) is None


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"type": "object", "properties": {"q": "Paris"}}, {"q": "Paris"}),
    ({"type": "object", "properties": {"q": "Paris", "limit": 3}, "required": ["q"]}, {"q": "Paris", "limit": 3}),
    ({"properties": {"q": "Paris"}}, {"q": "Paris"}),
    ({"type": "object", "properties": {"q": {"type": "string"}}}, None),  # the schema itself: refused elsewhere
    ({"type": "object", "properties": {"other": "x"}}, None),  # names no parameter of the tool
    ({"type": "object", "properties": {}}, None),
    ({"q": "Paris"}, None),  # values: nothing to unwrap
    ({"type": "object", "properties": {"q": "Paris"}, "note": "x"}, None),  # a key no schema has
])
def test_filled_schema(arguments, expected):
    assert filled_schema(arguments, {"q", "limit"}) == expected


def test_filled_schema_leaves_a_tool_that_takes_type_or_properties_alone():
    assert filled_schema({"type": "bug", "properties": {"q": "x"}}, {"type", "q"}) is None
    assert filled_schema({"properties": {"q": "x"}}, {"properties", "q"}) is None


@pytest.mark.parametrize(("raw", "expected"), [
    ('Thought: done\nAction: Final Answer\nAction Input: "The laws are', True),
    ("Thought: done\nAction: Final Answer\nAction Input: The laws are", False),
    ('Thought: done\nFinal Answer: "The laws are', False),
])
def test_quoted_final_input(raw, expected):
    assert quoted_final_input(raw) is expected
