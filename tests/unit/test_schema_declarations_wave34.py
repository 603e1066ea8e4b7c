"""A parameter's declaration, or a list of them, sent as a call's arguments (wave 34): refused as
the tool's schema with that reason, never run and never refused as "missing"; values, even under
a parameter named ``name``, still run."""

import json

import pytest
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core.declarations import arguments_refusal, declared_parameters
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.json_args import ArgumentsError, decode_arguments
from agent_core.model_call import ModelChunk
from agent_core.prompts import MSG_DECLARATIONS_LISTED
from agent_core.react.turn import read_react_turn
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from agent_core.tool_schema import ToolRegistry, schema_echo
from agent_core.turn import ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

DECLARATION = {"name": "q", "type": "string", "required": True, "description": "the word"}


@pytest.mark.parametrize("arguments", [
    DECLARATION,
    {"name": "q", "type": "string"},
    {"name": "q", "llm_description": "the word", "form": "llm", "label": {"en_US": "Q"}},
    {"name": "q", "in": "query", "schema": {"type": "string"}},  # OpenAPI's parameter object
])
def test_one_parameter_s_declaration_is_a_schema_echo(arguments):
    assert "name" in schema_echo(arguments, {"q", "limit"}, {"q", "limit"})


@pytest.mark.parametrize(("arguments", "parameters"), [
    ({"name": "Paris", "type": "city"}, {"name", "type"}),  # the tool takes a name: these are values
    ({"name": "q", "type": "string"}, {"name", "type"}),
    ({"name": "bob", "type": "string"}, {"q"}),  # names no parameter of the tool
    ({"name": "q", "value": "cats"}, {"q"}),  # a key no declaration has: a value was given
    ({"name": "q", "required": True}, {"q"}),  # neither a type nor a description
])
def test_what_is_no_declaration_is_not_refused(arguments, parameters):
    assert schema_echo(arguments, parameters, parameters) == []


def test_a_one_item_list_of_a_declaration_reads_as_the_declaration_and_is_refused():
    arguments = decode_arguments([DECLARATION])
    assert schema_echo(arguments, {"q"}, {"q"})


LISTED = [DECLARATION, {"name": "limit", "type": "number", "description": "how many"}]


def refusal(value, parameters) -> str:
    with pytest.raises(ArgumentsError) as raised:
        decode_arguments(value)
    return arguments_refusal(raised.value, parameters)


def test_a_list_of_declarations_of_the_tool_s_parameters_is_refused_with_that_reason():
    assert declared_parameters(LISTED, {"q", "limit"}) == 2
    assert refusal(LISTED, {"q", "limit"}) == MSG_DECLARATIONS_LISTED
    assert refusal(json.dumps(LISTED), {"q", "limit"}) == MSG_DECLARATIONS_LISTED


@pytest.mark.parametrize(("value", "parameters"), [
    # items that name no parameter of the tool: a list of values (a batch of people), refused as an array
    ([{"name": "Alice", "type": "admin"}, {"name": "Bob", "type": "user"}], {"users"}),
    # the tool takes a parameter called name: name and type are values there
    (LISTED, {"name", "type", "q", "limit"}),
    # a key no declaration has
    ([DECLARATION, {"name": "limit", "type": "number", "value": 5}], {"q", "limit"}),
    # printed schemas with no parameter names (read before as "declarations listed")
    ([{"type": "object", "properties": {"q": {"type": "string"}}}, {"type": "object", "properties": {}}], {"q"}),
])
def test_an_array_that_declares_no_parameter_of_the_tool_gets_the_plain_reason(value, parameters):
    assert declared_parameters(value, parameters) == 0
    assert refusal(value, parameters).startswith("its arguments must be a JSON object")


@pytest.mark.parametrize("value", [
    [1, 2], ["a", "b"], [{"q": "a"}, {"q": "b"}], [{"type": "text"}, {"type": "image"}],
    [DECLARATION, "x"], "text", [], {"name": "q", "value": "cats"},
])
def test_other_values_declare_nothing(value):
    assert declared_parameters(value, {"q", "limit"}) == 0


def test_a_printed_list_with_a_parameter_the_tool_lacks_still_reads_as_declarations():
    """A model printing the tool's parameter list may add one the tool does not have (``q`` and an
    invented ``limit`` for a tool taking ``q``): the reason still says it listed declarations."""
    value = [DECLARATION, {"name": "limit", "type": "number", "description": "how many"}]
    assert declared_parameters(value, {"q"}) == 2
    assert refusal(value, {"q"}) == MSG_DECLARATIONS_LISTED


def test_one_declaration_counts_one_alone_or_in_a_list():
    assert declared_parameters(DECLARATION, {"q"}) == 1
    assert declared_parameters([DECLARATION], {"q"}) == 1


def test_function_calling_tells_the_model_its_arguments_listed_the_tool_s_declarations():
    assembler = ToolCallAssembler()
    assembler.add(ToolCallDelta.from_raw({"id": "c1", "function": {"name": "search", "arguments": json.dumps(LISTED)}}))
    assembler.add(ToolCallDelta.from_raw({"id": "c2", "function": {"name": "other", "arguments": json.dumps(LISTED)}}))
    (listed, other) = assembler.finish("tool_calls", parameters={"search": {"q": {}, "limit": {}}, "other": {"x": {}}}).invalid
    assert listed.error == MSG_DECLARATIONS_LISTED
    assert other.error.startswith("its arguments must be a JSON object")  # names none of its parameters


def test_react_tells_the_model_its_action_input_listed_the_tool_s_declarations():
    text = f"Thought: I search.\nAction: search\nAction Input: {json.dumps(LISTED)}"
    chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason="stop")])
    _, turn = drain(read_react_turn(chunks, ToolRegistry([tool("search", "q", "limit")]), 1))
    assert isinstance(turn.decision, ToolCalls) and not turn.decision.calls
    assert turn.decision.invalid[0].error == MSG_DECLARATIONS_LISTED



def test_the_function_calling_turn_reads_the_tool_s_parameter_names_for_the_reason():
    search = PromptMessageTool(name="search", description="", parameters={
        "type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "number"}}})
    native = ToolCallDelta(index=0, id="c1", name="search", arguments=json.dumps(LISTED))
    chunks = iter([ModelChunk(tool_calls=(native,)), ModelChunk(finish_reason="tool_calls")])
    _, turn = drain(read_function_calling_turn(chunks, [search]))
    assert turn.decision.invalid[0].error == MSG_DECLARATIONS_LISTED
