"""Through the real plugin process: a tool whose name providers refuse (an MCP tool named
``server.tool``, dify#22867) is offered to a Function Calling model under a name they take, and
the model's call under that name runs the right tool. ReAct writes names in its prompt as the node
gives them."""

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean


def repo_search() -> ScriptedTool:
    return ScriptedTool(
        name="github.search_repositories",
        description="Search GitHub repositories",
        parameters=[ToolParam("query", description="Search words")],
        responses=[text_message("dify: 100k stars")],
    )


def test_function_calling_offers_a_name_providers_take_and_runs_the_tool_it_stands_for(run):
    call = {"tool_calls": [{"id": "c1", "name": "github_search_repositories", "arguments": {"query": "dify"}}]}
    result = run(
        [call, answer_turn("function_calling", "Dify has 100k stars.")], query="Find dify.", tools=[repo_search()]
    )
    assert_clean(result, run)
    assert [tool["name"] for tool in result.llm_requests[0]["tools"]] == ["github_search_repositories"]
    (request,) = result.tool_requests
    assert request["tool"] == "github.search_repositories" and request["tool_parameters"] == {"query": "dify"}
    assert result.text == "Dify has 100k stars."


def test_react_names_the_tool_as_the_node_gives_it(run):
    action = '{"action": "github.search_repositories", "action_input": {"query": "dify"}}'
    turns = [{"text": f"Thought: search\nAction:\n```json\n{action}\n```"}, answer_turn("ReAct", "Found it.")]
    result = run(turns, query="Find dify.", tools=[repo_search()], strategy="ReAct")
    assert_clean(result, run)
    assert result.tool_requests[0]["tool"] == "github.search_repositories"
