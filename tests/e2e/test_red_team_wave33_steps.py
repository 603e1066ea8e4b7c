"""Red-team wave 33 of the steps a model writes (issue 13), through the real plugin process:
arguments that repeat the tool's parameter schema in shapes the earlier waves did not try. A tool
whose parameters are all optional ran them, the schema as its arguments; one with a required
parameter refused them as "missing", a reason that does not tell the model what it did."""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations


def call_turn(strategy: str, name: str, arguments: dict) -> dict:
    """A model turn calling ``name`` with ``arguments``, in the strategy's own format."""
    if strategy == "ReAct":
        return {"text": f"Thought: search it.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": "c1", "name": name, "arguments": arguments}]}


def search_tool() -> ScriptedTool:
    """``search(q?, limit?)``: every parameter optional, so nothing is "missing" from any call."""
    return ScriptedTool(name="search", description="Searches the web",
                        parameters=[ToolParam("q", description="what to look for", required=False),
                                    ToolParam("limit", type="number", description="results", required=False)],
                        responses=[text_message("3 results")])


ECHOES = {
    "the schema without its type": {"properties": {"q": {"type": "string", "description": "what to look for"}},
                                    "required": []},
    "the tool's whole declaration": {"name": "search", "description": "Searches the web", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "number"}}}},
    "a parameter's schema with maxLength": {"q": {"type": "string", "maxLength": 200}},
    "a parameter's schema with examples": {"q": {"description": "what to look for", "examples": ["cats"]}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(ECHOES))
def test_arguments_that_repeat_the_schema_are_not_run_and_the_model_is_told_why(run, strategy, kind):
    turns = [call_turn(strategy, "search", ECHOES[kind]), call_turn(strategy, "search", {"q": "cats"}),
             answer_turn(strategy, "Found 3.")]
    result = run(turns, query="Search cats", tools=[search_tool()], strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Found 3."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "cats"}], "the schema was sent as arguments"
    (told,) = observations(result.llm_requests[1])
    assert "repeat the tool's parameter schema" in told and '{"q": "..."}' in told
    first_round = result.root_logs()[0]
    (node,) = [n for n in result.children(first_round) if n.label == "CALL search"]
    assert node.status == "error" and "schema" in node.error


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parameters_named_like_schema_keys_still_run(run, strategy):
    """``title``, ``description``, ``type`` and ``properties`` are real parameters of an issue
    tracker: values given for them are values, not an echo of the schema."""
    tracker = ScriptedTool(name="open_issue", description="Opens an issue",
                           parameters=[ToolParam("title", description="title"),
                                       ToolParam("description", description="body", required=False),
                                       ToolParam("type", type="select", options=("bug", "feature"), required=False),
                                       ToolParam("properties", description="labels as JSON", required=False)],
                           responses=[text_message("issue #7")])
    arguments = {"title": "Crash", "description": "It crashes on start", "type": "bug",
                 "properties": {"title": "x", "priority": "high"}}
    turns = [call_turn(strategy, "open_issue", arguments), answer_turn(strategy, "Opened #7.")]
    result = run(turns, query="File a bug", tools=[tracker], strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Opened #7."
    (sent,) = [r["tool_parameters"] for r in result.tool_requests]
    assert {k: sent[k] for k in ("title", "description", "type")} == {"title": "Crash", "description": "It crashes on start",
                                                                     "type": "bug"}
    assert json.loads(sent["properties"]) == {"title": "x", "priority": "high"}
