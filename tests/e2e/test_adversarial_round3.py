"""Adversarial cases of issue 13 found in its third red-team round, through the real plugin:
values that look like what the strategy guards against but are not (a JSON schema given as a
tool's argument), and secrets and cut replies in places the earlier rounds did not try."""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end


def call_turn(strategy: str, name: str, arguments: dict) -> dict:
    """A model turn calling ``name`` with ``arguments``, in the strategy's own format."""
    if strategy == "ReAct":
        return {"text": f"Thought: check it.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": arguments}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_json_schema_given_as_an_argument_is_run_not_refused_as_a_schema_echo(run, strategy):
    """A validator tool's ``schema`` argument is a JSON schema (``type``, ``properties``): it is
    a value, not the model repeating the tool's own parameter schema."""
    validator = ScriptedTool(name="validate_json", description="Checks data against a JSON schema",
                             parameters=[ToolParam("schema", description="the JSON schema"),
                                         ToolParam("data", description="the JSON data")],
                             responses=[text_message("valid")])
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    turns = [call_turn(strategy, "validate_json", {"schema": schema, "data": '{"name": "x"}'}),
             answer_turn(strategy, "It is valid.")]
    result = run(turns, query="Is it valid?", tools=[validator], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "It is valid."
    assert [json.loads(r["tool_parameters"]["schema"]) for r in result.tool_requests] == [schema]
