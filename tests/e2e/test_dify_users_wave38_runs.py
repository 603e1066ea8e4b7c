"""Wave 38: a sixth set of users' own reports (2024-2026) about Dify's Agent node and agent
strategies, from langgenius/dify, langgenius/dify-official-plugins and
junjiem/dify-plugin-agent-mcp_sse, none cited by an earlier wave. Each is replayed through the
real plugin process (the runner plays the daemon) with scripted model turns and tools, or against
a model plugin's contract backend, in both strategies where the report applies. Each test names
its report in its docstring and asserts what the user expected to see: the answer, the tool's
input, what the model was sent, a finished log tree, the error the run ends with.
The table is in docs/real-world-cases.md, "Users' reports, wave 38".
"""

from __future__ import annotations

import json
import re

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from local_runner.tools import ScriptedTool, ToolParam, text_message
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


def run_contract(plugin, contract: str, strategy: str, *, model: str | None = None, brain: TaskBrain | None = None,
                 **fields):
    """The calculator question against one official model plugin's contract backend, streamed;
    ``model`` overrides the contract's model name, ``brain`` the scripted model's task,
    ``fields`` are other ``Scenario`` fields."""
    backend = CONTRACTS[contract](shape="stream", brain=brain)
    settings = CONTRACTS[contract].model_settings(stream=True)
    if model:
        settings["model"] = model
    scenario = Scenario(query=fields.pop("query", "What is 37 * 91?"), tools=fields.pop("tools", ["calculator"]),
                        strategy=strategy, model=ModelSettings(**settings), **fields)
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


def log_nodes(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def text_pieces(result) -> list[str]:
    """The text messages the node streamed to the chat, in order."""
    pieces = [str((m.get("message") or {}).get("text", "")) for m in result.messages if m.get("type") == "text"]
    return [p for p in pieces if p]


# --- model plugins ---------------------------------------------------------------------------------------


def test_dop2523_kimi_k2_5_keeps_its_reasoning_on_the_tool_call_message(plugin):
    """langgenius/dify-official-plugins#2523 (1.11.4, Moonshot plugin 0.1.0, ``kimi-k2.5``): the
    Agent node failed with "thinking is enabled but reasoning_content is missing in assistant tool
    call message": the round-2 request lost round 1's reasoning. Against the Moonshot plugin's
    contract, ``kimi-k2.5`` (thinking on by default): nothing is refused, the tool runs and the
    answer holds no reasoning."""
    backend, result = run_contract(plugin, "moonshot", "function_calling", model="kimi-k2.5")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and REASONING_MARK not in result.text
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"expression": "37 * 91"}]


def test_mcp_sse143_gemini_3_on_vertex_keeps_the_thought_signature(plugin):
    """junjiem/dify-plugin-agent-mcp_sse#143 (1.8.1, Function Calling, Gemini 3 Flash on Vertex AI):
    every tool round failed with "function call `project_search` in the 2. content block is missing
    a `thought_signature`". Against the Vertex AI plugin's contract with ``gemini-3-flash-preview``:
    the round-2 request is accepted (the signature went back with the call), and the node answers."""
    backend, result = run_contract(plugin, "vertex_ai", "function_calling", model="gemini-3-flash-preview")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    assert len(backend.provider_requests) == 2


class TwoCallsBrain(TaskBrain):
    """A model that calls the calculator twice in one reply (two ``function_call`` parts), then
    answers with both results."""

    def reply(self, request: dict) -> Reply:
        self.turns += 1
        tool_messages = [m for m in request.get("prompt_messages") or [] if m.get("role") == "tool"]
        if not tool_messages:
            calls = (BrainCall(id="call_a", name="calculator", arguments={"expression": "37 * 91"}),
                     BrainCall(id="call_b", name="calculator", arguments={"expression": "12 * 12"}))
            return Reply(reasoning="", text="", calls=calls)
        results = " and ".join(text_of(m.get("content")).strip() for m in tool_messages)
        return Reply(reasoning="", text=f"The results are {results}.")


def test_dop812_gemini_two_tool_calls_in_one_turn_both_run(plugin):
    """langgenius/dify-official-plugins#812 (1.3.0, agent strategies 0.0.14): with a Gemini model,
    Function Calling "can't support parallel tool call": a reply with two calls failed. Against the
    Gemini plugin's contract, a reply with two calls: both run, the round-2 request is accepted
    (each call answered), and the answer has both results."""
    backend, result = run_contract(plugin, "gemini", "function_calling", brain=TwoCallsBrain())
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert sorted(r["tool_parameters"]["expression"] for r in result.tool_requests) == ["12 * 12", "37 * 91"]
    assert "3367" in result.text and "144" in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify26574_claude_follow_up_after_an_answer_that_came_back_empty(plugin, strategy):
    """langgenius/dify#26574 (also langgenius/dify-official-plugins#1803, langgenius/dify#10013 and
    langgenius/dify#16382: Claude 3.5 Sonnet / Sonnet 4, "after the second or follow up question"):
    a very long answer was stored empty, and every follow-up failed with Anthropic's 400
    "messages.N: all messages must have non-empty content except for the optional final assistant
    message". A memory whose last assistant turn is empty, against the Anthropic plugin's contract:
    nothing is refused and the follow-up is answered."""
    history = [{"role": "user", "content": "Write me a long essay about batteries."},
               {"role": "assistant", "content": ""},
               {"role": "user", "content": "Thanks. Now a short question."},
               {"role": "assistant", "content": "   "}]
    backend, result = run_contract(plugin, "anthropic", strategy, history=history)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text


OLLAMA_NO_TOOLS = ('[ollama] Error: PluginInvokeError: {"args":{},"error_type":"InvokeBadRequestError","message":"API '
                   'request failed with status code 400: {\\"error\\":\\"registry.ollama.ai/library/deepseek-r1:1.5b '
                   'does not support tools\\"}"}')


def test_dify13538_an_ollama_model_that_refuses_tools_runs_them_with_react_steps(run):
    """langgenius/dify#13538 (also langgenius/dify#12655; Ollama, ``deepseek-r1:1.5b`` and
    ``qwen:7b`` marked as supporting function calls): every Agent run failed with "[ollama] Error:
    API request failed with status code 400: ... does not support tools". When the model plugin
    refuses the native tools before any reply, Function Calling runs the tools with ReAct steps
    instead (the same fallback as for a model that declares no tool calling), says so in the log,
    and the node answers; the refused request is the only one that declared tools."""
    step = {"text": 'Thought: I need the time.\nAction:\n```json\n{"action": "current_time", "action_input": {}}\n```'}
    result = run([{"error": OLLAMA_NO_TOOLS}, step, answer_turn("ReAct", "It is 09:30.")],
                 query="What time is it?", tools=["current_time"],
                 model={"provider": "langgenius/ollama/ollama", "model": "deepseek-r1:1.5b"})
    assert_clean(result, run)
    assert result.text == "It is 09:30."
    assert len(result.tool_requests) == 1
    assert [bool(r.get("tools")) for r in result.llm_requests] == [True, False, False]
    (note,) = log_nodes(result, "USING ReAct")
    assert "does not support tools" in json.dumps(note.data), note.data


def test_dify16739_qwq_writes_its_call_after_its_reasoning_and_it_runs(run):
    """langgenius/dify#16739 (1.0.1, QwQ-32B): with Function Calling the model "can't get current
    time" (the agent "cant see the tool"); only ReAct with three iterations worked. A QwQ reply
    that reasons in ``<think>`` and then writes its call as Hermes ``<tool_call>`` text: the call
    runs in round 1 and the node answers without the reasoning or the markup."""
    reply = {"text": "<think>The user wants the time; current_time gives it.</think>\n\n"
                     '<tool_call>\n{"name": "current_time", "arguments": {}}\n</tool_call>', "split": 7}
    result = run([reply, {"text": "<think>Got it.</think>\n\nIt is 10:15."}], query="What time is it?",
                 tools=["current_time"], model=dict(SELF_SERVED, model="QwQ-32B"), maximum_iterations=1)
    assert_clean(result, run)
    assert len(result.tool_requests) == 1
    assert result.text == "It is 10:15."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22846_a_thinking_models_answer_has_no_half_think_tag(run, strategy):
    """langgenius/dify#22846 (1.6, a thinking model in the Agent node): the reply shown after the
    Agent node had the opening ``<think>`` tag but not the closing one. A reasoning model's answer
    streamed three characters a chunk (the tags split across chunks): the node's text is the answer
    alone, with no ``<think>`` or ``</think>`` and none of the reasoning."""
    answer = answer_turn(strategy, "Paris is the capital of France.")
    reply = {"text": "<think>The user asks for a capital. Easy.</think>\n" + answer["text"], "split": 3}
    result = run([reply], query="What is the capital of France?", strategy=strategy, tools=[weather_tool()],
                 model=dict(SELF_SERVED, model="qwen3-32b"))
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."
    assert "think>" not in "".join(text_pieces(result))


def test_dify2949_a_react_action_input_written_as_plain_text_reaches_the_one_parameter(run):
    """langgenius/dify#2949 (CoT agent, ``moonshot-v1-8k``): asked "计算一百二十八乘以六等于多少" with an
    expression tool, the model wrote an ``action_input`` that was plain text, not JSON, and the
    conversation broke. An action whose input is a plain string, for a tool with one parameter:
    the string reaches that parameter and the node answers."""
    step = {"text": 'Thought: 我需要计算。\nAction:\n```json\n{"action": "calculator", "action_input": "128*6"}\n```'}
    result = run([step, answer_turn("ReAct", "128 乘以 6 等于 768。")], query="计算一百二十八乘以六等于多少",
                 strategy="ReAct", tools=["calculator"], model=dict(SELF_SERVED, model="moonshot-v1-8k"))
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"expression": "128*6"}]
    assert "768" in observations(result.llm_requests[1])[0]
    assert result.text == "128 乘以 6 等于 768。"


def test_dify6080_a_call_naming_two_tools_at_once_is_answered_and_the_calls_then_run(run):
    """langgenius/dify#6080 (0.6.13, OpenRouter models): asked for the time and a search, the model
    sent one call named ``current_time;searxng_search`` and the agent failed to recognise it. That
    call: the model is told no tool has that name and which tools exist, calls them one by one in
    the next round, both run, and the node answers."""
    search = tool_named("searxng_search", [text_message("3 results about Mars")], ToolParam("query"))
    glued = {"text": "", "tool_calls": [{"id": "c1", "name": "current_time;searxng_search", "arguments": {}}]}
    apart = {"text": "", "tool_calls": [{"id": "c2", "name": "current_time", "arguments": {}},
                                        {"id": "c3", "name": "searxng_search", "arguments": {"query": "Mars"}}]}
    result = run([glued, apart, {"text": "It is 10:00; Mars news: 3 results."}], query="Time, and news about Mars?",
                 tools=["current_time", search], model=dict(SELF_SERVED, model="openrouter/auto"))
    assert_clean(result, run)
    told = observations(result.llm_requests[1])[0]
    assert "current_time" in told and "searxng_search" in told, told
    assert sorted(r["tool"] for r in result.tool_requests) == ["current_time", "searxng_search"]
    assert result.text == "It is 10:00; Mars news: 3 results."


@pytest.mark.parametrize("error", [
    pytest.param("[models] Error: 'type'", id="dop3473"),
    pytest.param("[anthropic] Error: peer closed connection without sending complete message body "
                 "(incomplete chunked read)", id="dify12802"),
])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_plugin_failure_ends_the_run_with_its_own_message(run, strategy, error):
    """langgenius/dify-official-plugins#3473 (1.16.0, plugin daemon 0.6.3: every model call of the
    Agent node failed with "[models] Error: 'type'") and langgenius/dify#12802 (Claude 3.5 Sonnet:
    "peer closed connection without sending complete message body" after a long conversation):
    faults below the strategy. What the strategy owes the user: after a finished tool round, the
    run ends with the model plugin's own message and the round it failed in, no traceback, and no
    log node left running."""
    result = run([call_turn(strategy, "get_weather", {"city": "Lyon"}), {"error": error}],
                 query="Weather in Lyon?", strategy=strategy, tools=[weather_tool()])
    assert not result.ok
    assert error in (result.error_text or "") and "round 2" in (result.error_text or "")
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    assert_no_traceback(result)


# --- tools -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22466_a_number_the_model_writes_as_a_string_reaches_the_tool_as_a_number(run, strategy):
    """langgenius/dify#22466 (1.6.0, an MCP tool in the Agent node): the tool failed with "Input
    validation error: '0.5' is not valid under any of the given schemas": a number parameter got
    the string ``"0.5"``. A ``number`` parameter the model fills with ``"0.5"``: the tool receives
    the number 0.5."""
    scale = tool_named("set_threshold", [text_message("threshold set")], ToolParam("value", type="number"))
    result = run([call_turn(strategy, "set_threshold", {"value": "0.5"}), answer_turn(strategy, "Done.")],
                 query="Set the threshold to one half.", strategy=strategy, tools=[scale])
    assert_clean(result, run)
    (sent,) = [r["tool_parameters"] for r in result.tool_requests]
    assert sent == {"value": 0.5} and isinstance(sent["value"], float), sent


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify24238_a_long_tool_finishes_within_the_time_limit_set_for_it(run, strategy):
    """langgenius/dify#24238 (also langgenius/dify#27790 and langgenius/dify#23327: MCP tools that
    run for minutes were cut off, and users asked to set the tool's time limit): a tool that takes
    1.5 s with the node's tool time limit at 3 s finishes, its result reaches the model, and its
    log node is a success."""
    deep = ScriptedTool(name="deep_search", description="Slow research", parameters=[ToolParam("q")],
                        responses=[text_message("report: 12 sources")], latency=1.5)
    result = run([call_turn(strategy, "deep_search", {"q": "solid-state batteries"}),
                  answer_turn(strategy, "Found 12 sources.")],
                 query="Research solid-state batteries.", strategy=strategy, tools=[deep], tool_timeout=3)
    assert_clean(result, run)
    assert "12 sources" in observations(result.llm_requests[1])[0]
    assert [n.status for n in log_nodes(result, "CALL deep_search")] == ["success"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mcp_sse104_an_mcp_servers_http_error_is_an_observation(run, strategy):
    """junjiem/dify-plugin-agent-mcp_sse#104 (ReAct, ``deepseek-chat``): the MCP server answered
    "Client error '405 Method Not Allowed' for url .../messages?sessionId=..." and the node failed
    with "PluginInvokeError ... HTTPStatusError". The failure is the model's observation, the call's
    log node ends as an error, and the node answers."""
    error = ("HTTPStatusError: Client error '405 Method Not Allowed' for url 'https://mcp.example.com/messages?sessionId=ab12'"
             "\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/405")
    tool = tool_named("query_orders", [], ToolParam("customer"), error=error)
    result = run([call_turn(strategy, "query_orders", {"customer": "ACME"}),
                  answer_turn(strategy, "The order service is not reachable right now.")],
                 query="Orders of ACME?", strategy=strategy, tools=[tool], model=dict(SELF_SERVED, model="deepseek-chat"))
    assert_clean(result, run)
    assert "405 Method Not Allowed" in observations(result.llm_requests[1])[0]
    assert [n.status for n in log_nodes(result, "CALL query_orders")] == ["error"]
    assert result.text == "The order service is not reachable right now."


# --- what the model is sent ------------------------------------------------------------------------------


IMAGE = {"url": "https://example.com/uploads/invoice.png", "mime_type": "image/png", "filename": "invoice.png",
         "size": 4096}
VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify40731_an_uploaded_image_reaches_a_vision_model_in_the_agent_node(run, strategy):
    """langgenius/dify#40731 (1.16.1): after uploading an image, the Agent node "keeps saying it
    cannot access the image information", while an LLM node reads the same image. A vision model,
    the query with an image file: the user message of every request carries the image as an image
    part beside the question."""
    result = run([call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "An invoice from Oslo.")],
                 query="What is on this picture?", strategy=strategy, files=[IMAGE], tools=[weather_tool()],
                 model={"features": VISION})
    assert_clean(result, run)
    for request in result.llm_requests:
        (message,) = [m for m in request["prompt_messages"]
                      if m["role"] == "user" and "What is on this picture?" in text_of(m["content"])]
        images = [p for p in message["content"] if p.get("type") == "image"] if isinstance(message["content"], list) else []
        assert [p.get("url") for p in images] == [IMAGE["url"]], message


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1582_the_agent_node_remembers_the_conversation(run, strategy):
    """langgenius/dify-official-plugins#1582 (2025-08): "I try to use agent node in the chatflow,
    but it can't make a continuous conversation without memory". With memory on: the earlier
    question and answer reach the model before the new question, in order, in both strategies."""
    history = [{"role": "user", "content": "My order number is 4471."},
               {"role": "assistant", "content": "Thanks, I noted order 4471."}]
    result = run([answer_turn(strategy, "Your order number is 4471.")], query="What was my order number?",
                 strategy=strategy, tools=[weather_tool()], history=history)
    assert_clean(result, run)
    sent = prompt_text(result.llm_requests[0])
    first, second, now = (sent.index("My order number is 4471."), sent.index("Thanks, I noted order 4471."),
                          sent.index("What was my order number?"))
    assert first < second < now


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify11293_bound_knowledge_is_in_the_first_request(run, strategy):
    """langgenius/dify#11293 (an agent bound to a knowledge base: "no retrieval is performed after
    sending the question" unless the prompt demanded it; also langgenius/dify#18039). Knowledge
    given to the node as its context: the first request's system prompt already holds it, before
    any tool call."""
    context = [{"content": "Refunds are possible within 30 days of delivery.", "title": "refunds.md",
                "metadata": {"_source": "knowledge", "position": 1, "document_name": "refunds.md", "score": 0.9}}]
    result = run([answer_turn(strategy, "Within 30 days of delivery.")], query="How long can I ask for a refund?",
                 strategy=strategy, tools=[weather_tool()], context=context)
    assert_clean(result, run)
    system = result.llm_requests[0]["prompt_messages"][0]
    assert system["role"] == "system" and "Refunds are possible within 30 days" in text_of(system["content"])


# --- what the user and the log see -----------------------------------------------------------------------


def test_dop2000_function_calling_answers_after_the_tool_result(run):
    """langgenius/dify-official-plugins#2000 (1.9.1, agent strategies 0.0.24/0.0.25): the Function
    Calling strategy "does not wait for the tool's call result to return; it simply replies with
    the tool's content quickly". A call and then the answer: no text reaches the chat before the
    call's log node is finished with its result, and the node's text is the answer built on it."""
    result = run([call_turn("function_calling", "get_weather", {"city": "Wuhan"}),
                  {"text": "It is sunny in Wuhan, 21 C.", "split": 5}], query="Weather in Wuhan?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "It is sunny in Wuhan, 21 C."
    (call,) = log_nodes(result, "CALL get_weather")
    kinds = [(m.get("type"), (m.get("message") or {}).get("id"), (m.get("message") or {}).get("status"))
             for m in result.messages]
    first_text = next(i for i, (kind, _, _) in enumerate(kinds) if kind == "text")
    call_done = max(i for i, (kind, node, status) in enumerate(kinds)
                    if kind == "log" and node == call.id and status == "success")
    assert call_done < first_text, kinds


def test_dop2000_react_shows_its_thought_and_action_in_the_log(run):
    """langgenius/dify-official-plugins#2000 again: the ReAct strategy could not "output the
    thought process or the tool's action process". A ReAct run: round 1's Thought log node has the
    model's thought, its CALL node the action's input and the result, and the chat gets the answer
    alone."""
    step = call_turn("ReAct", "get_weather", {"city": "Wuhan"})
    step["text"] = step["text"].replace("Thought: I will use get_weather.", "Thought: PLAN-7 I need the weather first.")
    result = run([step, answer_turn("ReAct", "Sunny in Wuhan.")], query="Weather in Wuhan?", strategy="ReAct",
                 tools=[weather_tool()])
    assert_clean(result, run)
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert "PLAN-7" in json.dumps(thoughts[0].data), thoughts[0].data
    (call,) = log_nodes(result, "CALL get_weather")
    shown = json.dumps(call.data)
    assert "Wuhan" in shown and "Sunny" in shown, call.data
    assert result.text == "Sunny in Wuhan." and "PLAN-7" not in "".join(text_pieces(result))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2356_at_the_iteration_limit_the_model_is_told_to_answer_and_does(run, strategy):
    """langgenius/dify-official-plugins#2356 (2026-01): "when iteration reach limit, return error
    instead of call empty tools". With a limit of two rounds and a model that keeps calling: the
    last request tells the model it may call no more tools, the node's text is the model's
    answer, and no third tool call runs."""
    turns = [call_turn(strategy, "get_weather", {"city": "Oslo"}, call_id="c1"),
             call_turn(strategy, "get_weather", {"city": "Bergen"}, call_id="c2"),
             answer_turn(strategy, "Oslo and Bergen are both sunny.")]
    result = run(turns, query="Weather in Oslo and Bergen?", strategy=strategy, tools=[weather_tool()],
                 maximum_iterations=2)
    assert_clean(result, run)
    assert len(result.tool_requests) == 2
    assert "Do not call any more tools" in prompt_text(result.llm_requests[-1])
    assert result.text == "Oslo and Bergen are both sunny."


def test_dop2565_a_failed_run_still_shows_what_the_agent_did(run):
    """langgenius/dify-official-plugins#2565 (2026-02): "If the agent calls failed in any kind, we
    only get a message of error. Do not know ... what the agent did, what it called and what
    response it got". Two tool rounds, then the model call fails with the OpenAI-compatible
    plugin's 400: the error names the round and the plugin's own message, and both CALL nodes are
    in the log, finished, each with its input and its result."""
    error = ('[openai_api_compatible] Error: req_id: 945bbae97f PluginInvokeError: {"args":{},"error_type":'
             '"InvokeBadRequestError","message":"invalid_param: context length exceeded"}')
    search = tool_named("search", [text_message("hit A"), text_message("hit B")], ToolParam("q"))
    turns = [call_turn("function_calling", "search", {"q": "alpha"}, call_id="c1"),
             call_turn("function_calling", "search", {"q": "beta"}, call_id="c2"), {"error": error}]
    result = run(turns, query="Compare alpha and beta.", tools=[search], model=SELF_SERVED)
    assert not result.ok
    assert "round 3" in (result.error_text or "") and "context length exceeded" in (result.error_text or "")
    calls = log_nodes(result, "CALL search")
    assert [n.status for n in calls] == ["success", "success"]
    shown = [json.dumps(n.data) for n in calls]
    assert "alpha" in shown[0] and "hit A" in shown[0] and "beta" in shown[1] and "hit B" in shown[1], shown
    assert result.unfinished_logs() == []
    assert_no_traceback(result)


def test_dify20089_text_before_a_tool_call_is_not_lost(run):
    """langgenius/dify#20089 (1.4.0): "Agent Should Output Planning Text Before Tool Execution": the
    user saw nothing until the tools were done. A Function Calling reply that says what it will do
    and calls a tool: that text reaches the chat before the answer, and the answer follows it."""
    plan = "I'll check the weather in Rome first."
    result = run([call_turn("function_calling", "get_weather", {"city": "Rome"}, before=plan),
                  {"text": "Rome is sunny, 21 C."}], query="Should I take an umbrella in Rome?", tools=[weather_tool()])
    assert_clean(result, run)
    streamed = "".join(text_pieces(result))
    assert plan in streamed and streamed.index(plan) < streamed.index("Rome is sunny, 21 C."), streamed


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_docs652_a_model_selected_without_a_mode_still_runs(run, strategy):
    """langgenius/dify-docs-archived#652 (a model served by LM Studio through its community plugin):
    chatting with an agent failed with "Invalid LLM mode: None" (the model selector came without
    its ``mode``, also "model.mode Field required" in workflows). A node whose model selector has
    ``mode: null``: the run goes as a chat model's, the tool runs and the node answers."""
    result = run([call_turn(strategy, "get_weather", {"city": "Graz"}), answer_turn(strategy, "Cloudy in Graz.")],
                 query="Weather in Graz?", strategy=strategy, tools=[weather_tool("Cloudy, 9 C")],
                 model={"provider": "stvlynn/lmstudio/lmstudio", "model": "deepseek-r1-distill-qwen-32b", "mode": None})
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Graz"}]
    assert result.text == "Cloudy in Graz."


def test_dify15385_react_runs_a_local_model_sent_without_its_schema(run):
    """langgenius/dify#15385 (also langgenius/dify-official-plugins#1116; 1.0.0, a local LLM
    service): every ReAct run failed before the first round with "1 validation error for
    ReActParams model.entity Input should be a valid dictionary" (Dify sent the model with
    ``entity: null``). A ReAct node whose model comes without its schema: the tool runs and the
    node answers."""
    result = run([call_turn("ReAct", "current_time", {}), answer_turn("ReAct", "It is 08:00.")],
                 query="What time is it?", strategy="ReAct", tools=["current_time"],
                 model=dict(SELF_SERVED, model="local-llm", entity=False))
    assert_clean(result, run)
    assert len(result.tool_requests) == 1
    assert result.text == "It is 08:00."
    assert "ValidationError" not in json.dumps(result.messages)


PROVIDER_NAME = r"^[a-zA-Z0-9_-]{1,64}$"


def test_dify22867_tools_named_in_chinese_or_with_spaces_are_offered_under_names_providers_take(run):
    """langgenius/dify#22867 (1.6, MCP tools from a workflow served over HTTP, OpenAI and Groq
    models; also junjiem/dify-plugin-agent-mcp_sse#101 with ``deepseek-chat``): the run failed with
    "Invalid 'tools[0].function.name': string does not match pattern ... '^[a-zA-Z0-9_-]+$'"
    because tools were named "代码计算器" or "Test With Space". Such tools: every name the model is
    offered matches that pattern, the names differ, and a call made with the offered name reaches
    the tool the user configured."""
    calculator = tool_named("代码计算器", [text_message("42")], ToolParam("expression"))
    spaced = tool_named("Test With Space", [text_message("ok")])
    probe = run([{"text": "Which one?"}], query="Compute 6 * 7.", tools=[calculator, spaced])
    assert_clean(probe, run)
    offered = {t["name"]: t for t in probe.llm_requests[0]["tools"]}
    assert all(re.match(PROVIDER_NAME, name) for name in offered), sorted(offered)
    assert len(offered) == 2
    (chinese,) = [name for name, t in offered.items() if "expression" in json.dumps(t.get("parameters"))]
    result = run([{"text": "", "tool_calls": [{"id": "c1", "name": chinese, "arguments": {"expression": "6 * 7"}}]},
                  {"text": "6 * 7 = 42."}], query="Compute 6 * 7.", tools=[calculator, spaced])
    assert_clean(result, run)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("代码计算器", {"expression": "6 * 7"})]
    assert result.text == "6 * 7 = 42."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20733_a_tool_result_larger_than_the_window_is_shortened_and_the_run_answers(run, strategy):
    """langgenius/dify#20733 (1.4.0, an MCP tool with Function Calling, Qwen): round 1's tool
    returned about 38,000 tokens and round 2 came back empty with no error (also
    langgenius/dify-plugin-daemon#307: "Agent fails to retrieve large tool return values"). A tool
    result of 1.2 MB for a model with a 32k-token window: the model reads the start of it with a
    note that the rest was left out, round 2's request stays well within the window, and the node
    answers."""
    rows = "".join(f"row {n}: order {n * 7} shipped to warehouse {n % 13};\n" for n in range(24_000))
    dump = tool_named("export_orders", [text_message(rows)])
    result = run([call_turn(strategy, "export_orders", {"value": "all"}), answer_turn(strategy, "24,000 orders, all shipped.")],
                 query="Summarise all orders.", strategy=strategy, tools=[dump], model={"context_size": 32_000})
    assert_clean(result, run)
    assert result.text == "24,000 orders, all shipped."
    seen = observations(result.llm_requests[1])[0]
    assert seen.startswith("row 0: order 0") and "Ask for a narrower result" in seen and len(seen) < 60_000, len(seen)
    assert len(prompt_text(result.llm_requests[1])) < 32_000 * 3
