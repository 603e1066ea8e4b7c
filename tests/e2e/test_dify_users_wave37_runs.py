"""Wave 37: a fifth set of users' own bug reports (2025-2026) about Dify's Agent node and agent
strategies, from langgenius/dify, langgenius/dify-official-plugins, third-party agent-strategy and
MCP plugins built on it (junjiem/dify-plugin-agent-mcp_sse, junjiem/dify-plugin-tools-mcp_sse,
hjlarry/dify-plugin-mcp_server) and the MCP servers users plugged into it, none cited by an
earlier wave. Each is replayed through the real plugin process (the runner plays the daemon) with
scripted model turns and tools, or against a model plugin's contract backend, in both strategies
where the report applies. Each test names its report in its docstring and asserts what the user
expected to see: the answer, the files, the usage, a finished log tree, what the model was sent.
The table is in docs/real-world-cases.md, "Users' reports, wave 37".
"""

from __future__ import annotations

import base64
import dataclasses
import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK
from local_runner.tools import ScriptedTool, ScriptedToolError, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    SELF_SERVED,
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    assert_no_traceback,
    call_turn,
    observations,
    prompt_text,
    text_of,
    tool_named,
    weather_tool,
)


def run_contract(plugin, contract: str, strategy: str, *, model: str | None = None, **fields):
    """The calculator question against one official model plugin's contract backend, streamed;
    ``model`` overrides the contract's model name, ``fields`` are other ``Scenario`` fields."""
    backend = CONTRACTS[contract](shape="stream")
    settings = CONTRACTS[contract].model_settings(stream=True)
    if model:
        settings["model"] = model
    scenario = Scenario(query=fields.pop("query", "What is 37 * 91?"), tools=["calculator"], strategy=strategy,
                        model=ModelSettings(**settings), **fields)
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


def log_nodes(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def user_texts(request: dict) -> list[str]:
    """The text of every user message of a model request, in order."""
    return [text_of(m.get("content")) for m in request["prompt_messages"] if m["role"] == "user"]


# --- model plugins and servers ------------------------------------------------------------------------


def test_dop586_xinference_qwen_reads_the_tool_result_of_round_one(plugin):
    """langgenius/dify-official-plugins#586 (1.1.1, Xinference plugin 0.0.2, agent strategies
    0.0.12, Qwen2.5-32B-Instruct on Xinference with vLLM): in round 2, when the tool's result went
    back to the model, Xinference logged "Can't parse single qwen tool call output" and the node
    failed. Against the Xinference plugin's contract: the round-2 request carries the call and a
    tool message with the tool's name (Xinference's Qwen template needs it), nothing is refused,
    and the answer reaches the user."""
    backend, result = run_contract(plugin, "xinference", "function_calling")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    (body,) = backend.provider_requests[1:2]
    tools = [m for m in body["messages"] if m.get("role") == "tool"]
    assert [m.get("name") for m in tools] == ["calculator"], tools
    assert backend.calls_lost == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1428_a_deepseek_model_on_siliconflow_works_in_both_strategies(plugin, strategy):
    """langgenius/dify-official-plugins#1428 (1.7.1, SiliconFlow plugin 0.0.22, agent strategies
    0.0.23): a DeepSeek model served by SiliconFlow "not supported in agent node, neither function
    call, nor react". Against the SiliconFlow plugin's contract (the SDK's OpenAI-compatible base),
    model ``deepseek-ai/DeepSeek-V3``: in both strategies the tool runs and the node answers."""
    backend, result = run_contract(plugin, "siliconflow", strategy, model="deepseek-ai/DeepSeek-V3")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"expression": "37 * 91"}]


def test_dify16613_deepseek_r1_runs_react_in_the_agent_node(plugin):
    """langgenius/dify#16613 (1.0.1, agent strategies 0.0.9): DeepSeek-R1 worked in chat apps but
    the Agent node failed with every strategy tried; the answer was "some models do not support
    ReAct at this moment". ``deepseek-reasoner`` with ReAct against the DeepSeek plugin's contract:
    the tool runs, nothing is refused, and the answer holds no reasoning."""
    backend, result = run_contract(plugin, "deepseek", "ReAct", model="deepseek-reasoner")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and REASONING_MARK not in result.text and "<think>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19138_a_model_plugin_fault_ends_the_run_with_its_own_message(run, strategy):
    """langgenius/dify#19138 (also langgenius/dify#19139 and langgenius/dify-official-plugins#836;
    1.3.1, Xinference plugin 0.0.2, Qwen2.5-32B-Instruct with tool calling): every call of the
    Agent node failed with "[xinference] Error: PluginInvokeError: ... [models] Error: name 'helper'
    is not defined", a fault inside the Xinference model plugin that no strategy can work around.
    What the strategy owes the user: the run ends with that message (not a traceback and not the
    strategy's own failure), and the log tree shows the round as failed, not left running."""
    error = ("[xinference] Error: PluginInvokeError: {\"args\":{\"description\":\"[models] Error: name 'helper' "
             "is not defined\"},\"error_type\":\"InvokeError\",\"message\":\"[models] Error: name 'helper' is not defined\"}")
    result = run([{"error": error}], query="What time is it?", strategy=strategy, tools=["current_time"],
                 model={"provider": "langgenius/xinference/xinference", "model": "qwen2.5-32b-instruct"})
    assert not result.ok
    assert "name 'helper' is not defined" in (result.error_text or "")
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    assert_no_traceback(result)
    assert result.tool_requests == []


# --- tools and their results ------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20807_an_mcp_server_tool_call_error_is_an_observation(run, strategy):
    """langgenius/dify#20807 (1.4.1, plugin daemon 0.1.1; worked on 1.2.0): a chatflow's Agent node
    calling a workflow served through the MCP-server plugin failed with "Error executing tool: MCP
    Server tools/call error, invoke app failed". The failure is the model's observation, the call's
    log ends as an error, and the node still answers."""
    error = "Error executing tool: MCP Server tools/call error,invoke app failed"
    flow = tool_named("ask_hr_policy", [], error=error)
    result = run([call_turn(strategy, "ask_hr_policy", {"value": "leave"}),
                  answer_turn(strategy, "The HR policy service failed; please try again later.")],
                 query="How many days of leave do I have?", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    (told,) = observations(result.llm_requests[1])
    assert "invoke app failed" in told, told
    assert [n.status for n in log_nodes(result, "CALL ask_hr_policy")] == ["error"]
    assert result.text == "The HR policy service failed; please try again later."
    assert_no_traceback(result)


class NoParametersTool(ScriptedTool):
    """A tool whose entity has ``parameters: null``, as some MCP servers' tools arrive."""

    def entity(self) -> dict:
        entity = super().entity()
        entity["parameters"] = None
        return entity


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mysql_mcp28_a_tool_declared_with_no_parameters_runs(run, strategy):
    """wenb1n-dev/mysql_mcp_server_pro#28 (2025-06): with this MCP server's tools in Dify's Agent
    node, the run failed with "PluginInvokeError: AttributeError: 'NoneType' object has no
    attribute 'parameters'". A tool whose declaration has ``parameters: null`` (the server's
    ``get_table_list`` takes none): it is offered, the call runs without arguments, and the node
    answers."""
    tables = NoParametersTool(name="get_table_list", description="List the tables",
                              responses=[text_message("users, orders, invoices")])
    result = run([call_turn(strategy, "get_table_list", {}), answer_turn(strategy, "Tables: users, orders, invoices.")],
                 query="Which tables are there?", strategy=strategy, tools=[tables])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{}]
    assert result.text == "Tables: users, orders, invoices."
    assert "get_table_list" in prompt_text(result.llm_requests[0]) + json.dumps(result.llm_requests[0].get("tools"))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_nacos36_a_tool_failing_with_an_exception_group_is_an_observation(run, strategy):
    """nacos-group/nacos-dify-plugins#36 (2026-02): with the Nacos MCP plugin's tools in the Agent
    node, ``list_mcp_server_tools`` answered "tool invoke error: read tool response failed: ...
    PluginInvokeError: {"error_type":"ExceptionGroup","message":"unhandled errors in a TaskGroup
    (1 sub-exception)"}". The failure is the model's observation (with the call's arguments as
    sent), the call's log ends as an error, and the node answers."""
    error = ('tool invoke error: read tool response failed: request failed: req_id: a6b456e1c7 PluginInvokeError: '
             '{"args":{},"error_type":"ExceptionGroup","message":"unhandled errors in a TaskGroup (1 sub-exception)"}')
    nacos = tool_named("list_mcp_server_tools", [], ToolParam("mcp_server_name"), ToolParam("namespace_id"), error=error)
    arguments = {"mcp_server_name": "spring-ai-server", "namespace_id": "public"}
    result = run([call_turn(strategy, "list_mcp_server_tools", arguments),
                  answer_turn(strategy, "The Nacos registry could not list that server's tools.")],
                 query="What tools does spring-ai-server have?", strategy=strategy, tools=[nacos])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [arguments]
    (told,) = observations(result.llm_requests[1])
    assert "unhandled errors in a TaskGroup" in told, told
    assert [n.status for n in log_nodes(result, "CALL list_mcp_server_tools")] == ["error"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_nacos36_an_object_argument_reaches_the_tool_as_an_object(run, strategy):
    """nacos-group/nacos-dify-plugins#36, its follow-up question (2026-02-28): "why must a tool's
    arguments be strings, not maps or objects?". A tool with an ``object`` parameter: it is offered
    to the model as an object, and the object the model gives reaches the tool as an object, not
    as its JSON text."""
    register = tool_named("register_service", [text_message("registered")], ToolParam("name"),
                          ToolParam("metadata", type="object"))
    metadata = {"version": "1.2.0", "weight": 3, "tags": ["blue"]}
    result = run([call_turn(strategy, "register_service", {"name": "orders", "metadata": metadata}),
                  answer_turn(strategy, "orders is registered.")],
                 query="Register orders v1.2.0.", strategy=strategy, tools=[register])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"name": "orders", "metadata": metadata}]
    if strategy == "function_calling":
        (declared,) = result.llm_requests[0]["tools"]
        assert declared["parameters"]["properties"]["metadata"].get("type") == "object", declared


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_server18_a_required_parameter_left_out_is_asked_for_again(run, strategy):
    """hjlarry/dify-plugin-mcp_server#18 (2025-04): a chatflow served as an MCP tool failed in the
    Agent node with "missing functionList": the flow declared a required input the model never
    filled. A call that leaves out a required parameter (no default declared): the model is told
    which one is missing, sends the call again with it, and the tool gets both values."""
    flow = tool_named("query_flow", [text_message("3 matching functions")], ToolParam("question"),
                      ToolParam("functionList", description="Comma-separated function names"))
    turns = [call_turn(strategy, "query_flow", {"question": "which report functions exist?"}),
             call_turn(strategy, "query_flow", {"question": "which report functions exist?", "functionList": "report"},
                       call_id="call_2"),
             answer_turn(strategy, "There are 3 matching functions.")]
    result = run(turns, query="Which report functions exist?", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    told = observations(result.llm_requests[1])[-1]
    assert "functionList" in told, told
    assert result.tool_requests[-1]["tool_parameters"] == {"question": "which report functions exist?",
                                                           "functionList": "report"}
    assert result.text == "There are 3 matching functions."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_tools61_a_workflow_tools_file_reaches_the_chat_beside_its_text(run, strategy):
    """junjiem/dify-plugin-tools-mcp_sse#61 (1.3.1, 2025-05): a workflow ending in a Markdown text
    and an Excel file, served as a tool, came back with its text only: the file never reached the
    user. A tool that answers with its text and the spreadsheet as a blob: the file is in the node's
    files, the model reads the text and is told a file was sent, and the node answers."""
    sheet = b"PK\x03\x04 xlsx bytes of the quarterly report"
    encoded = base64.b64encode(sheet).decode()
    report = tool_named("quarterly_report", [
        text_message("## Q3 report\nRevenue 4.2 M"),
        {"type": "blob", "message": {"blob": encoded},
         "meta": {"filename": "q3.xlsx", "mime_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}},
    ])
    result = run([call_turn(strategy, "quarterly_report", {"value": "Q3"}), answer_turn(strategy, "Here is the Q3 report.")],
                 query="Send me the Q3 report.", strategy=strategy, tools=[report])
    assert_clean(result, run)
    (sent,) = result.files
    assert base64.b64decode(sent["blob"]) == sheet and sent["meta"]["filename"] == "q3.xlsx"
    (seen,) = observations(result.llm_requests[1])
    assert "Revenue 4.2 M" in seen and "q3.xlsx" in seen and encoded not in seen, seen


# --- what the model is sent -----------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_sse83_no_continue_message_is_put_in_the_users_mouth(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#83 (plugin 0.1.7, ReAct, DeepSeek 32B; also
    langgenius/dify#15694, 1.0.0/1.0.1, and langgenius/dify#23187, 1.7.1: "query replaced with
    'continue'"): after each tool call the strategy appended a user message "continue", so the
    model reasoned "the user has just replied 'continue'", answered that instead of the question,
    and looped. In the round after a tool call, no user message is a bare "continue", the user's
    question is still there, and any note the strategy adds says it is not from the user."""
    result = run([call_turn(strategy, "get_weather", {"city": "Changsha"}), answer_turn(strategy, "Sunny in Changsha.")],
                 query="Weather in Changsha?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    texts = user_texts(result.llm_requests[1])
    assert not any(t.strip().lower().strip(".!") == "continue" for t in texts), texts
    assert any("Weather in Changsha?" in t for t in texts), texts
    added = [t for t in texts if "Weather in Changsha?" not in t]
    assert all("not from the user" in t for t in added), added


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_sse65_every_earlier_result_is_sent_in_later_rounds(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#65 (1.2.0, plugin 0.1.5, ReAct, memory on): the agent
    looked up Changsha's stations, then Loudi's, then Changsha's again, and so on: each round
    seemed to forget the one before. Over three rounds, the third request carries both earlier
    results, in order."""
    stations = tool_named("find_stations", [text_message("Changsha: Changsha South, Changsha West"),
                                            text_message("Loudi: Loudi South")], ToolParam("city"))
    turns = [call_turn(strategy, "find_stations", {"city": "Changsha"}, call_id="c1"),
             call_turn(strategy, "find_stations", {"city": "Loudi"}, call_id="c2"),
             answer_turn(strategy, "Take the train from Changsha South to Loudi South.")]
    result = run(turns, query="How do I get from Changsha to Loudi by train?", strategy=strategy, tools=[stations],
                 history=[{"role": "user", "content": "I live in Changsha."},
                          {"role": "assistant", "content": "Noted."}])
    assert_clean(result, run)
    seen = observations(result.llm_requests[2])
    assert len(seen) == 2 and "Changsha South" in seen[0] and "Loudi South" in seen[1], seen
    assert "I live in Changsha." in prompt_text(result.llm_requests[2])
    assert result.text == "Take the train from Changsha South to Loudi South."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_sse25_function_calling_sends_the_tools_with_every_request(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#25 (2025-04; also junjiem/dify-plugin-agent-mcp_sse#31,
    Gemini through the OpenAI-API-compatible plugin): ReAct called the MCP tool, but with Function
    Calling "the request to the LLM only carried my input, not the tools", so the model answered
    that it could not call tools. With a self-served model, every request of both rounds declares
    the tool (natively in Function Calling, in the prompt in ReAct), and the call runs."""
    result = run([call_turn(strategy, "notify", {"value": "deploy finished"}), answer_turn(strategy, "Message sent.")],
                 query="Tell the team the deploy finished.", strategy=strategy,
                 tools=[tool_named("notify", [text_message("sent")])],
                 model=dict(SELF_SERVED, model="Google.gemini-2.0-flash-lite-preview"))
    assert_clean(result, run)
    for request in result.llm_requests:
        if strategy == "function_calling":
            assert [t["name"] for t in request.get("tools") or []] == ["notify"], request.get("tools")
        else:
            assert "notify" in prompt_text(request)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"value": "deploy finished"}]


def test_docs607_function_calling_offers_native_tools_to_a_model_sent_without_its_schema(run):
    """langgenius/dify-docs-archived#607 (1.0.1, Function Calling, Qwen2.5, "current time"): the
    node failed with "1 validation error for FunctionCallingParams model.entity Input should be a
    valid dictionary" (Dify sent the model without its schema). A Function Calling node whose
    model comes with ``entity: null``: the tools are still offered natively, the call runs and the
    node answers."""
    result = run([call_turn("function_calling", "current_time", {"timezone": "Asia/Shanghai"}),
                  answer_turn("function_calling", "It is 14:05 in Shanghai.")],
                 query="当前时间", tools=["current_time"], model={"entity": False, "model": "qwen2.5-72b-instruct"})
    assert_clean(result, run)
    assert [t["name"] for t in result.llm_requests[0].get("tools") or []] == ["current_time"]
    assert result.text == "It is 14:05 in Shanghai."
    assert "ValidationError" not in json.dumps(result.messages)


# --- what the model writes ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2295_an_empty_reply_is_asked_again_and_counted(run, strategy):
    """langgenius/dify-official-plugins#2295 (1.10.0, agent strategies 0.0.25 and the MCP SSE
    strategy 0.2.4, ReAct): from time to time the node answered "I am thinking about how to help
    you" because the model's reply was empty. An empty reply after the tool round: the model is
    asked again, its answer reaches the user, the placeholder never does, and the node's usage
    counts all three model calls."""
    turns = [call_turn(strategy, "get_weather", {"city": "Suzhou"}), {"text": ""}, answer_turn(strategy, "Rain in Suzhou.")]
    for turn, (prompt, completion) in zip(turns, [(900, 40), (1000, 0), (1100, 30)], strict=True):
        turn["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
    result = run(turns, query="Weather in Suzhou?", strategy=strategy, tools=[weather_tool("Rain, 17 C")],
                 maximum_iterations=5)
    assert_clean(result, run)
    assert result.text == "Rain in Suzhou."
    assert "I am thinking about how to help you" not in json.dumps(result.messages)
    metadata = result.execution_metadata
    assert (metadata["prompt_tokens"], metadata["completion_tokens"]) == (3000, 70), metadata


def test_mcp_sse96_a_thought_without_an_answer_after_a_long_result_is_asked_again(run):
    """junjiem/dify-plugin-agent-mcp_sse#96 (1.4.0, plugin 0.1.10, ReAct, DeepSeek V3 / GPT-4.1 /
    Gemini 2.5 Flash): after a tool with a long result (a browser's page), the node answered "I am
    thinking about how to help you." instead of a summary. A reply that is only a Thought after a
    30 KB observation: the model is asked for its Action or Final Answer, and its answer is the
    node's text."""
    page = "Row " + " ".join(f"item-{n}: price {n * 3} EUR;" for n in range(1500))
    browse = tool_named("browser_snapshot", [text_message(page)])
    turns = [call_turn("ReAct", "browser_snapshot", {"value": "https://shop.example/list"}),
             {"text": "Thought: The page lists many items with prices. I should summarise them."},
             answer_turn("ReAct", "The page lists 1500 items priced from 0 to 4497 EUR.")]
    result = run(turns, query="Summarise the shop's price list.", strategy="ReAct", tools=[browse])
    assert_clean(result, run)
    assert result.text == "The page lists 1500 items priced from 0 to 4497 EUR."
    assert "I am thinking about how to help you" not in json.dumps(result.messages)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_sse26_a_reply_of_reasoning_only_after_the_tool_round_is_not_an_empty_output(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#26 (2025-04, both strategies, a GitHub MCP server): round 1
    called the tool and got its output, but round 2 produced nothing, so the node's output was
    empty. A round-2 reply that is only a ``<think>`` block: the model is asked again for its
    answer, and the node's text is that answer, without the reasoning."""
    reasoning_only = {"text": "<think>The repository list is in the result; I will summarise it.</think>"}
    turns = [call_turn(strategy, "list_repos", {"value": "mirages"}), reasoning_only,
             answer_turn(strategy, "You have 2 repositories: blog and notes.")]
    result = run(turns, query="List my GitHub repositories.", strategy=strategy,
                 tools=[tool_named("list_repos", [text_message('["blog", "notes"]')])])
    assert_clean(result, run)
    assert result.text == "You have 2 repositories: blog and notes."
    assert "<think>" not in result.text


def test_mcp_sse117_the_react_answer_streams_in_pieces(run):
    """junjiem/dify-plugin-agent-mcp_sse#117 (2025-07): in a chatflow with ReAct, the final output
    came out all at once, so a long answer meant a long wait. A final answer streamed four
    characters a chunk after a Thought: it reaches the chat as many text messages, whole, with
    none of the Thought."""
    answer = "Step one: open the portal. Step two: choose the form. Step three: submit it."
    final = {"text": f"Thought: I can answer now.\nFinal Answer: {answer}", "split": 4}
    result = run([final], query="How do I file the form?", strategy="ReAct", tools=[weather_tool()])
    assert_clean(result, run)
    pieces = [str((m.get("message") or {}).get("text", "")) for m in result.messages if m.get("type") == "text"]
    pieces = [p for p in pieces if p]
    assert "".join(pieces) == answer
    assert len(pieces) >= 5 and not any("Thought" in p for p in pieces), pieces


def test_dify27987_a_call_a_local_model_writes_as_json_text_is_run(run):
    """langgenius/dify#27987 (1.9.2): a local model behind the OpenAI-API-compatible plugin "returns
    the tools to be invoked", but Dify neither ran them nor went on. A Function Calling reply whose
    content is only the call as a JSON object: the call runs, and the node answers from its result
    without showing the JSON."""
    written = {"text": json.dumps({"name": "get_weather", "arguments": {"city": "Xiamen"}})}
    result = run([written, answer_turn("function_calling", "Sunny in Xiamen, 21 C.")], query="Weather in Xiamen?",
                 tools=[weather_tool()], model=dict(SELF_SERVED, model="qwen2.5-14b-instruct"))
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Xiamen"}]
    assert result.text == "Sunny in Xiamen, 21 C." and '"arguments"' not in result.text


def test_dify17798_a_local_model_without_tool_calling_still_calls_tools(run):
    """langgenius/dify#17798 (1.2.0): a local model in the Agent node with Function Calling never
    called its tools (the model did not declare tool calling; SiliconFlow's API worked). A model
    whose schema declares no tool calling: the run falls back to ReAct steps, says so in the log,
    the step runs the tool, and the node answers."""
    step = {"text": 'Thought: I need the time.\nAction:\n```json\n{"action": "current_time", "action_input": {}}\n```'}
    result = run([step, answer_turn("ReAct", "It is 09:30.")], query="What time is it?", tools=["current_time"],
                 model=dict(SELF_SERVED, model="local-qwen", features=[]))
    assert_clean(result, run)
    assert len(result.tool_requests) == 1
    assert result.text == "It is 09:30."
    assert "declares no native tool calling" in json.dumps([n.data for n in result.logs.values()])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify31786_the_models_reasoning_is_in_the_log_not_in_the_answer(run, strategy):
    """langgenius/dify#31786 (2026-01): users asked to see the Agent node's thinking process (its
    step-by-step reasoning and why it chose a tool) to debug it. A reasoning model's reasoning in
    each round: the log's Thought nodes carry it, round by round; the answer carries none."""
    first = call_turn(strategy, "get_weather", {"city": "Nanjing"},
                      before="<think>PLAN-1: the user wants Nanjing's weather, so get_weather.</think>\n")
    final = answer_turn(strategy, "Cloudy in Nanjing.")
    final["text"] = "<think>CHECK-2: the tool said cloudy.</think>\n" + final["text"]
    result = run([first, final], query="Weather in Nanjing?", strategy=strategy, tools=[weather_tool("Cloudy, 14 C")])
    assert_clean(result, run)
    assert result.text == "Cloudy in Nanjing."
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert "PLAN-1" in thoughts[0].data.get("reasoning", "") and "CHECK-2" in thoughts[-1].data.get("reasoning", "")
    assert "PLAN-1" not in result.text and "CHECK-2" not in result.text


def test_dify25257_the_rounds_before_a_failure_stay_readable(run):
    """langgenius/dify#25257 (also langgenius/dify#25256, 1.8.0; filed first as
    langgenius/dify-official-plugins#1667): when the Agent node failed, the user could not open the
    details of its rounds. A model call that fails in round 2, after a tool round: the run ends
    with the model's error, and round 1 is in the log, finished, with its call's result; no node is
    left running."""
    result = run([call_turn("function_calling", "get_weather", {"city": "Lyon"}),
                  {"error": "Rate limit reached for requests"}], query="Weather in Lyon?", tools=[weather_tool()])
    assert not result.ok
    assert "Rate limit reached" in (result.error_text or "")
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    (call,) = log_nodes(result, "CALL get_weather")
    assert call.status == "success" and "Sunny" in json.dumps(call.data), call.data
    assert_no_traceback(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_message_only_tool_result_reaches_the_model(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#25, its later comment (2025-04-14): the tool answered (its
    ``tool_responses`` were filled) but the node's ``llm_response`` and output stayed empty. A tool
    that answers with a JSON message only: the model reads its fields, and the node's output is the
    model's answer."""
    rows = {"rows": [{"id": 7, "status": "shipped"}]}
    result = run([call_turn(strategy, "order_status", {"value": "7"}), answer_turn(strategy, "Order 7 has shipped.")],
                 query="Status of order 7?", strategy=strategy, tools=[tool_named("order_status", [json_message(rows)])])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert "shipped" in seen, seen
    assert result.text == "Order 7 has shipped."


class SloppyDeclarationTool(ScriptedTool):
    """A tool declared as an MCP bridge may declare it: no description for the model, and labels
    and parameter descriptions whose English text is null."""

    def entity(self) -> dict:
        entity = super().entity()
        entity["identity"]["label"] = {"en_US": None, "zh_Hans": "获取表结构"}
        entity["description"] = {"human": {"en_US": None}, "llm": None}
        for parameter in entity["parameters"]:
            parameter["label"] = {"en_US": None}
            parameter["human_description"] = None
            parameter["llm_description"] = None
        return entity


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_tools50_a_tool_declared_with_null_texts_is_offered_and_runs(run, strategy):
    """junjiem/dify-plugin-tools-mcp_sse#50 (1.2.0, MCP SSE plugin 0.1.0, DeepSeek): with a local MCP
    server's tools, the Agent node failed before the first round with "1 validation error for
    PromptMessageTool description Input should be a valid string [input_value=None]": the tool came
    without a description. A tool whose description, label and parameter texts are null (only its
    name and its parameters' names are known): it is offered to the model (not dropped), the call
    runs, and the node answers."""
    table = SloppyDeclarationTool(name="describe_table", parameters=[ToolParam("table")],
                                  responses=[text_message("id INT, email TEXT")])
    result = run([call_turn(strategy, "describe_table", {"table": "users"}),
                  answer_turn(strategy, "users has id and email.")],
                 query="What columns does users have?", strategy=strategy, tools=[table])
    assert_clean(result, run)
    assert not log_nodes(result, "TOOL DROPPED describe_table")
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"table": "users"}]
    assert result.text == "users has id and email."


def test_mcp_tools50_a_tool_without_a_description_is_accepted_by_bedrock(plugin):
    """junjiem/dify-plugin-tools-mcp_sse#50 again, on Amazon Bedrock: a tool that comes without a
    description is declared to the model with an empty one, and Bedrock's Converse API refuses a
    ``toolSpec`` whose description is empty ("Member must have length greater than or equal to 1";
    aws-samples/bedrock-access-gateway#213 hit the same rule). The calculator, declared without a
    description, against the Bedrock plugin's contract: every tool goes with a description that is
    not empty, nothing is refused, and the node answers."""
    backend = CONTRACTS["bedrock"](shape="stream")
    toolbox = default_toolbox()
    toolbox.add(dataclasses.replace(toolbox.get("calculator"), description=""))
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy="function_calling",
                        model=ModelSettings(**CONTRACTS["bedrock"].model_settings(stream=True)))
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    specs = [t["toolSpec"] for body in backend.provider_requests for t in body["toolConfig"]["tools"]]
    assert specs and all(spec.get("description") for spec in specs), specs


class ObjectOnlyTool(ScriptedTool):
    """A tool that fails as a Zod-validated MCP server does when ``params`` is not an object."""

    def run(self, parameters, released):
        if not isinstance(parameters.get("params"), dict):
            raise ScriptedToolError('[{"code": "invalid_type", "expected": "object", "received": "string", '
                                    '"path": ["params"], "message": "Expected object, received string"}]')
        yield from super().run(parameters, released)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_agent1_a_string_sent_for_an_object_parameter_is_corrected(run, strategy):
    """hjlarry/dify-plugin-mcp_agent#1 (2025-03, a Composio Tavily MCP server): the model sent
    ``{"params": "MCP"}`` where the tool takes an object, the server answered "Expected object,
    received string", and the node ended without results. The server's complaint reaches the model
    as the observation, the model calls again with an object, and that object reaches the tool."""
    tool = ObjectOnlyTool(name="TAVILY_SEARCH", description="Search the web",
                          parameters=[ToolParam("params", type="object")], responses=[text_message("3 results about MCP")])
    turns = [call_turn(strategy, "TAVILY_SEARCH", {"params": "MCP"}),
             call_turn(strategy, "TAVILY_SEARCH", {"params": {"query": "MCP"}}, call_id="call_2"),
             answer_turn(strategy, "MCP is the Model Context Protocol.")]
    result = run(turns, query="What is MCP?", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert "Expected object, received string" in observations(result.llm_requests[1])[-1]
    assert result.tool_requests[-1]["tool_parameters"] == {"params": {"query": "MCP"}}
    assert result.text == "MCP is the Model Context Protocol."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22357_a_second_tool_call_built_on_the_first_result_runs(run, strategy):
    """langgenius/dify#22357 (2025-07): the Agent node had to call ``convertIp`` again with the
    address the first tool returned, and answered with text instead. A call whose argument comes
    from the first call's result: both run, the second with that value, and the node answers."""
    my_ip = tool_named("get_public_ip", [text_message('{"ip": "203.0.113.7"}')])
    locate = tool_named("convertIp", [text_message('{"city": "Hangzhou", "isp": "China Telecom"}')], ToolParam("ip"))
    turns = [call_turn(strategy, "get_public_ip", {"value": "me"}, call_id="c1"),
             call_turn(strategy, "convertIp", {"ip": "203.0.113.7"}, call_id="c2"),
             answer_turn(strategy, "Your address 203.0.113.7 is in Hangzhou (China Telecom).")]
    result = run(turns, query="Where is my IP address located?", strategy=strategy, tools=[my_ip, locate])
    assert_clean(result, run)
    assert [r["tool"] for r in result.tool_requests] == ["get_public_ip", "convertIp"]
    assert result.tool_requests[1]["tool_parameters"] == {"ip": "203.0.113.7"}
    assert "203.0.113.7" in observations(result.llm_requests[1])[0]
    assert result.text == "Your address 203.0.113.7 is in Hangzhou (China Telecom)."


def test_dify16220_two_calls_of_one_tool_keep_their_own_input_and_result(run):
    """langgenius/dify#16220 (1.0.0, an agent with DuckDuckGo image search): asked for a dog and a
    cat, the agent called the tool twice, but only the second call's input and result could be
    seen: they were keyed by the tool's name. Two calls of the same tool in one reply: the log has
    a CALL node for each, with its own input and result, and the model reads both results, each
    answering its own call."""
    class ByQuery(ScriptedTool):
        def run(self, parameters, released):
            yield text_message(f"{parameters.get('query')}.png: a picture of a {parameters.get('query')}")

    tool = ByQuery(name="ddgo_img", description="Image search", parameters=[ToolParam("query")])
    turn = {"text": "", "tool_calls": [{"id": "call_dog", "name": "ddgo_img", "arguments": {"query": "dog"}},
                                       {"id": "call_cat", "name": "ddgo_img", "arguments": {"query": "cat"}}]}
    result = run([turn, answer_turn("function_calling", "Here are a dog and a cat.")],
                 query="Show me a dog and a cat.", tools=[tool])
    assert_clean(result, run)
    calls = log_nodes(result, "CALL ddgo_img")
    assert len(calls) == 2 and all(n.status == "success" for n in calls)
    shown = [json.dumps(n.data, ensure_ascii=False) for n in calls]
    assert sum("picture of a dog" in s for s in shown) == 1 and sum("picture of a cat" in s for s in shown) == 1, shown
    tools = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert [(m["tool_call_id"], "dog" in text_of(m["content"])) for m in tools] == [("call_dog", True), ("call_cat", False)]
