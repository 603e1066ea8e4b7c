"""Wave 39: a schema echoed for an array parameter whose items are no objects (``tool_schema``'s
``lists``) is refused with the reason; an array of objects keeps items that hold ``type``."""

import pytest
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.tool_schema import ToolRegistry


def _tool(tags: dict) -> ToolEntity:
    note = {"name": "note", "label": {"en_US": "note"}, "human_description": {"en_US": "note"}, "type": "string",
            "form": "llm", "llm_description": "the note", "required": True}
    return ToolEntity.model_validate({
        "identity": {"author": "a", "name": "tag_it", "label": {"en_US": "tag_it"}, "provider": "a/b/b"},
        "parameters": [note, {"name": "tags", "label": {"en_US": "tags"}, "human_description": {"en_US": "tags"},
                              "form": "llm", "llm_description": "tags", "required": False, **tags}],
        "description": {"human": {"en_US": "tags"}, "llm": "Tags a note"}, "output_schema": {},
        "has_runtime_parameters": False, "runtime_parameters": {}, "provider_type": "builtin"})


PLAIN = {"type": "array"}
STRINGS = {"type": "array", "input_schema": {"type": "array", "items": {"type": "string"}}}
OBJECTS = {"type": "array", "input_schema": {"type": "array", "items": {"type": "object"}}}
ECHOES = [{"type": "array", "items": {"type": "string"}}, {"type": "string"}, [{"type": "string"}],
          [{"type": "string", "description": "a tag"}, {"type": "string"}], {"items": {"type": "string"}}]


@pytest.mark.parametrize("declared", [PLAIN, STRINGS], ids=["plain array", "array of strings"])
@pytest.mark.parametrize("echo", ECHOES)
def test_an_echo_for_an_array_of_scalars_is_refused_naming_the_schema(declared, echo):
    entity = _tool(declared)
    problem = ToolRegistry([entity]).validate_arguments(entity, {"note": "milk", "tags": echo})
    assert problem and "schema" in problem, problem


@pytest.mark.parametrize("declared", [PLAIN, STRINGS, OBJECTS], ids=["plain array", "array of strings", "objects"])
@pytest.mark.parametrize("tags", [["home", "shop"], [], ["string", "type"]])
def test_values_of_an_array_are_not_an_echo(declared, tags):
    entity = _tool(declared)
    problem = ToolRegistry([entity]).validate_arguments(entity, {"note": "milk", "tags": tags})
    assert problem is None, problem


def test_an_array_of_objects_may_hold_items_with_a_type():
    """A list of field definitions is a value of an array of objects, not its schema."""
    entity = _tool(OBJECTS)
    problem = ToolRegistry([entity]).validate_arguments(entity, {"note": "milk", "tags": [{"type": "string"}]})
    assert problem is None, problem
