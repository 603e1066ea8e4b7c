"""A parameter's declaration, or a list of them, sent as a call's arguments (wave 34): refused as
the tool's schema with that reason, never run and never refused as "missing"; values, even under
a parameter named ``name``, still run."""

import pytest

from agent_core.json_args import ArgumentsError, declarations_listed, decode_arguments
from agent_core.prompts import MSG_DECLARATIONS_LISTED
from agent_core.tool_schema import schema_echo

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


@pytest.mark.parametrize("listed", [
    [DECLARATION, {"name": "limit", "type": "number", "description": "how many"}],
    [{"type": "object", "properties": {"q": {"type": "string"}}}, {"type": "object", "properties": {}}],
])
def test_a_list_of_declarations_is_refused_with_that_reason(listed):
    assert declarations_listed(listed)
    with pytest.raises(ArgumentsError) as raised:
        decode_arguments(listed)
    assert MSG_DECLARATIONS_LISTED in str(raised.value)


@pytest.mark.parametrize("value", [
    [1, 2], ["a", "b"], [{"q": "a"}, {"q": "b"}], [{"type": "text"}, {"type": "image"}],
    [DECLARATION], [DECLARATION, "x"], "text", {"type": "string", "name": "q"},
])
def test_other_arrays_are_no_listed_declarations(value):
    assert not declarations_listed(value)
