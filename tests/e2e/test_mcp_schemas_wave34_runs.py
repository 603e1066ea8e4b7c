"""MCP tools through the real plugin process, in both strategies: declared as Dify hands them
over (``mcp_entity`` of the unit tests' ``test_mcp_schemas_wave34``: one ``ToolParameter`` per top-level
property, ``input_schema`` for objects and arrays), called with the arguments a model writes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from local_runner.tools import ScriptedTool, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations
from tests.unit.test_mcp_schemas_wave34 import MCP_TOOLS, NOTION_BLOCKS, _obj, mcp_entity


@dataclass(kw_only=True)
class McpTool(ScriptedTool):
    """A ``ScriptedTool`` declared as Dify declares an MCP server's tool with ``input_schema``."""

    input_schema: dict[str, Any] = field(default_factory=dict)

    def entity(self) -> dict[str, Any]:
        entity = mcp_entity(self.name, self.description, self.input_schema, provider=self.provider)
        entity["credential_id"] = self.credential_id
        return entity


def mcp_tool(name: str, description: str, schema: dict[str, Any]) -> McpTool:
    return McpTool(name=name, description=description, input_schema=schema, responses=[text_message(f"{name} done")])


def call(strategy: str, name: str, arguments: dict[str, Any], call_id: str = "c1") -> dict:
    if strategy == "ReAct":
        blob = json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
        return {"text": f"Thought: use {name}.\nAction:\n```json\n{blob}\n```"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def declared_tools(strategy: str, request: dict) -> dict[str, Any]:
    """The tools the model read in ``request``: the provider's tool list (Function Calling), or
    the tool list ReAct's prompt shows (name -> parameters)."""
    if strategy == "function_calling":
        return {tool["name"]: tool["parameters"] for tool in request["tools"]}
    prompt = "\n".join(str(m["content"]) for m in request["prompt_messages"] if m["role"] == "system")
    return {name: schema for name, schema in _react_tools(prompt)}


def _react_tools(prompt: str):
    decoder = json.JSONDecoder()
    for line in prompt.splitlines():
        start = line.find("{")
        if start < 0:
            continue
        try:
            value, _ = decoder.raw_decode(line, start)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") == "object" and "properties" in value:
            yield line[:start], value


def _schema_in(strategy: str, request: dict, name: str) -> dict[str, Any]:
    if strategy == "function_calling":
        return declared_tools(strategy, request)[name]
    for head, schema in _react_tools("\n".join(str(m["content"]) for m in request["prompt_messages"] if m["role"] == "system")):
        if name in head:
            return schema
    raise AssertionError(f"{name} not in ReAct's tool list")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_public_mcp_tool_is_declared_whole_and_its_call_reaches_it_intact(run, strategy):
    """All the public servers' tools in one node: the model reads each object or array parameter's
    schema whole, and each call (arrays of objects, nested objects, null for a nullable, numbers
    from a number enum, quotes and JSON in text) reaches its tool as the model wrote it."""
    tools = [mcp_tool(name, text, schema) for name, text, schema, _ in MCP_TOOLS]
    turns = [call(strategy, name, arguments, f"c{n}") for n, (name, _, _, arguments) in enumerate(MCP_TOOLS)]
    result = run([*turns, answer_turn(strategy, "Done.")], tools=tools, strategy=strategy, timeout=180,
                 maximum_iterations=len(MCP_TOOLS) + 1)
    assert_clean(result, run)
    assert [r["tool"] for r in result.tool_requests] == [name for name, *_ in MCP_TOOLS]
    for request, (name, _, _, arguments) in zip(result.tool_requests, MCP_TOOLS, strict=True):
        assert request["tool_parameters"] == arguments, name
    first = run.backend.requests[0]
    for name, _, schema, _ in MCP_TOOLS:
        declared = _schema_in(strategy, first, name)
        assert sorted(declared["required"]) == sorted(schema.get("required", [])), name
        for key, given in schema["properties"].items():
            if isinstance(given.get("type"), str) and given["type"] in ("object", "array"):
                assert declared["properties"][key] == given, (name, key)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_mcp_tool_whose_items_refer_to_defs_dify_left_behind_is_declared_without_the_reference(run, strategy):
    """Notion's (and every Pydantic model's) ``$ref`` into the root's ``$defs``, gone in Dify's
    conversion: the request carried a reference to nothing, which OpenAI refuses whole."""
    tool = mcp_tool("API-patch-block-children", "Append block children", NOTION_BLOCKS)
    arguments = {"block_id": "b1", "children": [{"text": {"content": "Hello"}}]}
    result = run([call(strategy, tool.name, arguments), answer_turn(strategy, "Done.")], tools=[tool], strategy=strategy)
    assert_clean(result, run)
    assert result.tool_requests[0]["tool_parameters"] == arguments
    assert "$ref" not in json.dumps(run.backend.requests[0].get("tools") or run.backend.requests[0]["prompt_messages"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_array_parameter_given_plain_text_is_not_run_and_the_model_is_told(run, strategy):
    """It ran: the MCP server got ``"Email=a@b.c"`` for a list of form fields."""
    name, text, schema, arguments = next(t for t in MCP_TOOLS if t[0] == "browser_fill_form")
    tool = mcp_tool(name, text, schema)
    turns = [call(strategy, name, {"fields": "Email=a@b.c"}), call(strategy, name, arguments, "c2"), answer_turn(strategy, "Done.")]
    result = run(turns, tools=[tool], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [arguments]
    assert any("must be a JSON array" in text for text in observations(run.backend.requests[1]))


ODD_NAMES = ["github.create_issue", "notion/API-post-search", "Test With Space", "météo_actuelle", "查询天气", "resolve-library-id"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_tool_names_with_dots_slashes_spaces_or_other_scripts_run_the_right_tool(run, strategy):
    """Each name is offered (Function Calling: under a name providers take) and each call runs the
    tool it names, with its own arguments, under the tool's own name."""
    tools = [mcp_tool(name, f"Tool {n}", _obj({"q": {"type": "string"}, "n": {"type": "array", "items": {"type": "integer"}}}, ["q"]))
             for n, name in enumerate(ODD_NAMES)]
    first = run([answer_turn(strategy, "ok")], tools=tools, strategy=strategy)
    offered = list(declared_tools(strategy, run.backend.requests[0])) if strategy == "function_calling" else ODD_NAMES
    assert len(offered) == len(ODD_NAMES) and first.ok
    turns = [call(strategy, shown, {"q": original, "n": [n]}, f"c{n}") for n, (shown, original) in enumerate(zip(offered, ODD_NAMES, strict=True))]
    result = run([*turns, answer_turn(strategy, "Done.")], tools=tools, strategy=strategy, maximum_iterations=10)
    assert_clean(result, run)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [
        (name, {"q": name, "n": [n]}) for n, name in enumerate(ODD_NAMES)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_150_tools_of_one_server_fit_the_request_and_the_last_one_runs(run, strategy):
    """A server of 150 tools, each with a long description and an array of objects: every one is
    offered, and the 150th is called and runs."""
    schema = _obj({"items": {"type": "array", "items": _obj({"id": {"type": "string"}, "qty": {"type": "integer", "enum": [1, 2, 5]}}, ["id"])},
                   "note": {"type": "string", "description": "A note. " * 50}}, ["items"])
    tools = [mcp_tool(f"server.tool_{n:03d}", "Does one thing of many. " * 80, schema) for n in range(150)]
    last = "server_tool_149" if strategy == "function_calling" else "server.tool_149"
    arguments = {"items": [{"id": "a", "qty": 5}, {"id": "b", "qty": 1}], "note": "x"}
    result = run([call(strategy, last, arguments), answer_turn(strategy, "Done.")], tools=tools, strategy=strategy, timeout=120)
    assert_clean(result, run)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("server.tool_149", arguments)]
    if strategy == "function_calling":
        assert len(run.backend.requests[0]["tools"]) == 150
    else:
        assert all(f"server.tool_{n:03d}" in json.dumps(run.backend.requests[0]["prompt_messages"]) for n in range(150))
