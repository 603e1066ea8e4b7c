"""Wave 36: a fourth set of Dify users' own bug reports (2025-2026) about the Agent node and its
strategies, from langgenius/dify, langgenius/dify-official-plugins and
langgenius/dify-plugin-daemon, none cited by an earlier wave. Each is replayed through the real
plugin process (the runner plays the daemon) with scripted model turns and tools, or against a
model plugin's contract backend, in both strategies where the report applies. Each test names its
report in its docstring and asserts what the user expected to see. The table is in
docs/real-world-cases.md, "Users' reports, wave 36"; reports about Dify itself are listed there
with why.
"""

from __future__ import annotations

import json
import time

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    SELF_SERVED,
    STRATEGIES,
    TRACEBACK,
    CallsUntilTold,
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


def run_contract(plugin, contract: str, strategy: str, *, brain: TaskBrain | None = None, tools=("calculator",),
                 toolbox=None, **fields):
    """The calculator question (or ``brain``'s task) against one official model plugin's
    contract backend, streamed; ``fields`` are other ``Scenario`` fields."""
    backend = CONTRACTS[contract](shape="stream", brain=brain)
    model = ModelSettings(**CONTRACTS[contract].model_settings(stream=True))
    scenario = Scenario(query=fields.pop("query", "What is 37 * 91?"), tools=list(tools), strategy=strategy,
                        model=model, **fields)
    return backend, run_scenario(scenario, backend, toolbox or default_toolbox(), plugin=plugin, timeout=60)


def log_nodes(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def text_messages(result) -> list[str]:
    return [str((m.get("message") or {}).get("text", "")) for m in result.messages if m.get("type") == "text"]


# --- usage and streaming ------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify37742_usage_keeps_prompt_and_completion_tokens_with_an_mcp_tool(run, strategy):
    """langgenius/dify#37742 (1.14.2): with MCP tools in the Agent node, the node's usage had
    ``total_tokens: 2460`` but ``prompt_tokens`` and ``completion_tokens`` always 0. A tool round
    and an answer whose model plugin reports 1000 + 60 and 1300 + 100 tokens: the node's usage
    says 2300 prompt and 160 completion tokens, which add up to its 2460 total."""
    first = call_turn(strategy, "maps_weather", {"value": "Hangzhou"})
    first["usage"] = {"prompt_tokens": 1000, "completion_tokens": 60}
    final = answer_turn(strategy, "Cloudy in Hangzhou, 18 C.")
    final["usage"] = {"prompt_tokens": 1300, "completion_tokens": 100}
    mcp = tool_named("maps_weather", [text_message('{"city": "Hangzhou", "weather": "cloudy", "temp": 18}')])
    result = run([first, final], query="Weather in Hangzhou?", strategy=strategy, tools=[mcp])
    assert_clean(result, run)
    metadata = result.execution_metadata
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (2300, 160, 2460)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify26958_the_agents_answer_streams_in_pieces(run, strategy):
    """langgenius/dify#26958 (2025-10, Cloud): in a chatflow the Agent node waited for the whole
    reply and then printed it at once; the user needed it streamed. An answer the model streams
    five characters a chunk reaches the chat as many text messages, in order, whole."""
    answer = "Dify streams the agent's answer as the model writes it, piece by piece."
    final = answer_turn(strategy, answer)
    final["split"] = 5
    result = run([final], query="Do you stream?", strategy=strategy)
    assert_clean(result, run)
    pieces = [t for t in text_messages(result) if t]
    assert "".join(pieces) == answer
    assert len(pieces) >= 5, pieces


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18488_dify19916_each_step_is_shown_before_the_answer(run, strategy):
    """langgenius/dify#18488 (2025-04: with an MCP agent strategy in a chatflow, nothing of the
    intermediate rounds came out until the end) and langgenius/dify#19916 (2025-05: each
    reasoning step and tool call should come out as it happens). The round's tool call is logged,
    finished with its result, before the first character of the answer is sent."""
    result = run([call_turn(strategy, "get_weather", {"city": "Lyon"}), answer_turn(strategy, "Sunny in Lyon.")],
                 query="Weather in Lyon?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    first_text = next(n for n, m in enumerate(result.messages)
                      if m.get("type") == "text" and (m.get("message") or {}).get("text"))
    finished = [n for n, m in enumerate(result.messages) if m.get("type") == "log"
                and (m.get("message") or {}).get("label") == "CALL get_weather"
                and (m.get("message") or {}).get("status") == "success"]
    assert finished and finished[0] < first_text, (finished, first_text)


def test_dop1980_ollama_answers_stream_in_the_agent_node(plugin):
    """langgenius/dify-official-plugins#1980 (Ollama plugin 0.0.7; also langgenius/dify#27028):
    in the Agent node an Ollama model's output did not stream, with or without tools. Against
    the Ollama plugin's contract, streamed: the answer after the tool round comes as more than
    one text message, and whole."""
    backend, result = run_contract(plugin, "ollama", "function_calling")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    assert len([t for t in text_messages(result) if t]) > 1, text_messages(result)


# --- model plugins ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify16103_claude_uses_tools_in_the_agent_node(plugin, strategy):
    """langgenius/dify#16103 (1.0.1, Cloud): "Anthropic claude models cannot use tools in agent
    node". Against the Anthropic plugin's contract (extended thinking on): the call runs, its
    ``tool_use`` is answered by a ``tool_result``, the provider refuses nothing and the node
    answers without the reasoning."""
    backend, result = run_contract(plugin, "anthropic", strategy)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and REASONING_MARK not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18513_claude_with_knowledge_and_a_tool(plugin, strategy):
    """langgenius/dify#18513 (1.2.0, Claude 3.5 Sonnet): the chat worked until the knowledge
    base and Tavily were used; then every turn failed with an error. Knowledge as the node's
    context and a tool call, against the Anthropic plugin's contract: no request is refused, the
    knowledge is in every request, and the node answers."""
    context = [{"content": "Invoices are paid within 30 days.", "title": "terms.md",
                "metadata": {"_source": "knowledge", "position": 1, "dataset_id": "ds-1", "dataset_name": "Terms",
                             "document_id": "d-1", "document_name": "terms.md", "segment_id": "s-1", "score": 0.9}}]
    backend, result = run_contract(plugin, "anthropic", strategy, context=context)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    assert len(backend.requests) == 2
    assert all("Invoices are paid within 30 days." in prompt_text(r) for r in backend.requests)


def test_dop1137_an_openai_reasoning_model_never_gets_a_function_role(plugin):
    """langgenius/dify-official-plugins#1137 (agent strategies 0.0.18, OpenAI 0.0.28; also
    langgenius/dify#21274): with an OpenAI o-series model, Function Calling and the time tools,
    round 2 failed with "messages[x].role does not support 'function' with this model". Against
    the OpenAI plugin's contract: the tool result goes back as a ``tool`` message answering the
    call's id, no message has the ``function`` role, and the node answers."""
    backend, result = run_contract(plugin, "openai", "function_calling")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    roles = {m.get("role") for body in backend.provider_requests for m in body.get("messages") or body.get("input") or []
             if isinstance(m, dict)}
    assert "function" not in roles, roles


def test_dop424_tongyi_function_calling_in_the_agent_node(plugin):
    """langgenius/dify-official-plugins#424 (1.0.0, Tongyi 0.0.9, qwen-max): the Agent node with
    Function Calling failed with "[tongyi] Error: PluginInvokeError: KeyError 'name'". Against the
    Tongyi plugin's contract: the call goes back as the plugin reads it, nothing is refused, and
    the node answers."""
    backend, result = run_contract(plugin, "tongyi", "function_calling")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and "KeyError" not in json.dumps(result.messages)


def test_dop980_a_call_without_an_id_goes_back_with_a_string_id(run):
    """langgenius/dify-official-plugins#980 (also langgenius/dify#20283, Gemini 2.5 Flash, the
    current-time tool): round 2 failed in the Gemini plugin with "function_call_id received is
    not a string". A streamed call that comes with no id: the round goes back with a string id
    on the call, and the tool message answers that same id."""
    turn = {"chunks": [{"tool_calls": [{"index": 0, "type": "function", "function": {
        "name": "current_time", "arguments": json.dumps({"timezone": "UTC"})}}]}], "finish_reason": "tool_calls"}
    result = run([turn, answer_turn("function_calling", "It is past noon UTC.")], query="Current time?",
                 tools=["current_time"])
    assert_clean(result, run)
    messages = result.llm_requests[1]["prompt_messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    (tool,) = [m for m in messages if m["role"] == "tool"]
    call_id = assistant["tool_calls"][0]["id"]
    assert isinstance(call_id, str) and call_id, assistant
    assert tool["tool_call_id"] == call_id


class TwoCallsBrain(TaskBrain):
    """Calls the calculator twice in one turn (parallel calls), then answers with both results."""

    def reply(self, request):
        self.turns += 1
        reasoning = f"({REASONING_MARK} {self.turns}) two sums at once."
        results = [text_of(m.get("content")) for m in request.get("prompt_messages") or [] if m.get("role") == "tool"]
        if not results:
            calls = (BrainCall(id="call_a", name="calculator", arguments={"expression": "37 * 91"}),
                     BrainCall(id="call_b", name="calculator", arguments={"expression": "12 * 12"}))
            return Reply(reasoning=reasoning, calls=calls)
        return Reply(reasoning=reasoning, text="Results: " + " and ".join(r.strip() for r in results))


def test_dop3921_parallel_calls_on_azure_openai(plugin):
    """langgenius/dify-official-plugins#3921 (1.15.0, agent strategies 0.0.48 and 0.0.40, Azure
    OpenAI gpt-4.1-mini, 20+ API tools): when the model asked for more than one tool in a turn,
    the node failed with a 400 from the model. Two parallel calls among 21 tools, against the
    Azure OpenAI plugin's contract: both run, each tool message answers its own call's id,
    nothing is refused, and the answer has both results."""
    toolbox = default_toolbox()
    extra = [tool_named(f"api_{n}", [text_message("ok")]) for n in range(1, 21)]
    for tool in extra:
        toolbox.add(tool)
    backend, result = run_contract(plugin, "azure_openai", "function_calling", brain=TwoCallsBrain(),
                                   tools=["calculator", *[t.name for t in extra]], toolbox=toolbox)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and "144" in result.text, result.text
    messages = backend.requests[1]["prompt_messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert len(set(ids)) == 2 and [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ids


class TwoRoundsBrain(TaskBrain):
    """Calls the calculator in one round, then again with the first result, then answers."""

    def reply(self, request):
        self.turns += 1
        reasoning = f"({REASONING_MARK} {self.turns}) one step at a time."
        results = [text_of(m.get("content")).strip() for m in request.get("prompt_messages") or []
                   if m.get("role") == "tool"]
        if len(results) < 2:
            expression = "37 * 91" if not results else f"{results[0].split('=')[-1].strip()} + 1"
            return Reply(reasoning=reasoning, calls=(BrainCall(id=f"call_{self.turns}", name="calculator",
                                                              arguments={"expression": expression}),))
        return Reply(reasoning=reasoning, text=f"The result is {results[-1].split('=')[-1].strip()}")


def test_dop2306_deepseek_reasoner_thinks_across_several_tool_rounds(plugin):
    """langgenius/dify-official-plugins#2306 (fixed in the DeepSeek plugin by PR #2307, 2025-12):
    ``deepseek-reasoner`` with thinking and tool use over several rounds failed once a round's
    ``reasoning_content`` was not sent back. Two tool rounds, the second using the first's
    result, against the DeepSeek plugin's contract: every round goes back with its reasoning,
    nothing is refused, and the answer holds no reasoning."""
    backend, result = run_contract(plugin, "deepseek", "function_calling", brain=TwoRoundsBrain(),
                                   query="What is 37 * 91, plus one?")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert len(backend.requests) == 3
    assert "3368" in result.text and REASONING_MARK not in result.text and "<think>" not in result.text


# --- what the model writes ---------------------------------------------------------------------------


def test_dify26058_a_select_parameter_is_offered_as_a_string_with_its_options(run):
    """langgenius/dify#26058 (1.6.0, Azure OpenAI gpt-4o, Tavily 0.1.2): the node failed with 400
    "Invalid schema for function 'tavily_search': 'select' is not valid under any of the given
    schemas": Dify's ``select`` parameter type was sent as a JSON-schema type. The tool is
    offered with that parameter as a string limited to its options, and the call runs."""
    tavily = tool_named("tavily_search", [text_message("3 results")], ToolParam("query", description="query"),
                        ToolParam("search_depth", type="select", options=("basic", "advanced"), required=False))
    result = run([call_turn("function_calling", "tavily_search", {"query": "dify", "search_depth": "basic"}),
                  answer_turn("function_calling", "Found 3 results.")], query="Search dify.", tools=[tavily])
    assert_clean(result, run)
    (declared,) = result.llm_requests[0]["tools"]
    depth = declared["parameters"]["properties"]["search_depth"]
    assert depth.get("type") == "string" and depth.get("enum") == ["basic", "advanced"], depth
    assert '"select"' not in json.dumps(declared["parameters"])
    assert result.tool_requests[0]["tool_parameters"]["search_depth"] == "basic"


def test_dop636_arguments_that_are_not_json_do_not_end_the_run(run):
    """langgenius/dify-official-plugins#636 (1.1.3): Function Calling often failed before the
    tool ran with "PluginInvokeError: JSONDecodeError: Expecting ':' delimiter: line 1 column 5
    (char 4)". A call whose arguments miss a colon: the run goes on (the arguments read as meant,
    or the model told what was wrong), no ``JSONDecodeError`` reaches the user, and the node
    answers."""
    broken = {"text": "", "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city" "Paris"}'}]}
    turns = [broken, call_turn("function_calling", "get_weather", {"city": "Paris"}, call_id="call_2"),
             answer_turn("function_calling", "Sunny in Paris.")]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny in Paris."
    assert "JSONDecodeError" not in json.dumps(result.messages) and TRACEBACK not in json.dumps(result.messages)
    assert result.tool_requests and all(r["tool_parameters"] == {"city": "Paris"} for r in result.tool_requests)


def test_dop1227_qwen3_on_vllm_writes_its_call_in_the_content(run):
    """langgenius/dify-official-plugins#1227 (also langgenius/dify#21978, 1.5.1): Qwen3 served by
    vLLM, added through the OpenAI-API-compatible plugin, with Function Calling "was unable to
    call the provided tools": without vLLM's tool parser the call comes back as Qwen3's
    ``<tool_call>`` text in the content. The call is read from the text, runs, and the answer
    holds no markup."""
    markup = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Hangzhou"}}\n</tool_call>'
    result = run([{"text": markup}, answer_turn("function_calling", "Sunny in Hangzhou.")],
                 query="Weather in Hangzhou?", tools=[weather_tool()], model=dict(SELF_SERVED, model="qwen3-32b"))
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Hangzhou"}]
    assert result.text == "Sunny in Hangzhou." and "<tool_call>" not in result.text


def test_dop3022_kimi_k2_react_action_input_not_strict_json(run):
    """langgenius/dify-official-plugins#3022 (also langgenius/dify#35826, 1.13.3 Cloud,
    kimi-k2-instruct through the OpenAI-API-compatible plugin 0.0.47, ReAct): the Agent node
    failed with "Invalid JSON". An action whose input is a Python-style dict (single quotes,
    ``True``): the tool runs with the values meant, and the node answers."""
    step = {"text": "Thought: I need the weather.\nAction: get_weather\nAction Input: {'city': 'Oslo', 'metric': True}"}
    weather = ScriptedTool(name="get_weather", description="Weather for a city",
                           parameters=[ToolParam("city"), ToolParam("metric", type="boolean", required=False)],
                           responses=[text_message("Snow, -3 C")])
    result = run([step, answer_turn("ReAct", "Snow in Oslo, -3 C.")], query="Weather in Oslo?", strategy="ReAct",
                 tools=[weather], model=dict(SELF_SERVED, model="kimi-k2-instruct"))
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo", "metric": True}]
    assert result.text == "Snow in Oslo, -3 C."


def test_dify26156_a_final_answer_action_is_the_answer_alone(run):
    """langgenius/dify#26156 (1.8.1, Cloud): the Agent node's ``text`` always held the JSON step
    ``"action": "Final Answer"`` instead of the answer. A ReAct reply that gives its answer as an
    action named "Final Answer": the node's text is the answer alone."""
    step = ('Thought: I know this.\nAction:\n```json\n'
            '{"action": "Final Answer", "action_input": "Paris is the capital of France."}\n```')
    result = run([{"text": step}], query="Capital of France?", strategy="ReAct", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Paris is the capital of France."
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18038_a_distilled_r1_model_runs_react_on_ollama(run, strategy):
    """langgenius/dify#18038 (0.15.3 / 1.0.1): ReAct with local Ollama models, even
    DeepSeek-R1-Distill-72B, never got a tool to run. A reply that reasons in ``<think>`` and
    then writes its step: the tool runs, and the answer, also after reasoning, comes without it."""
    reasoning = "<think>The user wants the weather. I should call get_weather for Kyoto.</think>\n"
    final = answer_turn(strategy, "Rain in Kyoto.")
    final["text"] = "<think>I have the observation.</think>\n" + final["text"]
    result = run([call_turn(strategy, "get_weather", {"city": "Kyoto"}, before=reasoning), final],
                 query="Weather in Kyoto?", strategy=strategy, tools=[weather_tool("Rain, 12 C")],
                 model=dict(SELF_SERVED, provider="langgenius/ollama/ollama", model="deepseek-r1:70b"))
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Kyoto"}]
    assert result.text == "Rain in Kyoto."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify29682_arguments_nested_under_the_tools_name_reach_the_tool(run, strategy):
    """langgenius/dify#29682 (1.11.1): a workflow published as a tool, with one string and two
    option parameters, failed when the Agent node called it; the request shown was
    ``{"idle_rack": {"dataCenterId": "48", "entireType": "整租", ...}}``, the arguments wrapped in
    the tool's own name. The tool gets the inner arguments."""
    rack = ScriptedTool(name="idle_rack", description="Find idle racks",
                        parameters=[ToolParam("dataCenterId"), ToolParam("entireType", type="select", options=("整租", "散租")),
                                    ToolParam("plannedU", type="select", options=("10", "20"))],
                        responses=[text_message('{"racks": 3}')])
    inner = {"dataCenterId": "48", "entireType": "整租", "plannedU": "10"}
    result = run([call_turn(strategy, "idle_rack", {"idle_rack": inner}), answer_turn(strategy, "3 idle racks.")],
                 query="Idle racks in DC 48?", strategy=strategy, tools=[rack])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [inner]
    assert result.text == "3 idle racks."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23888_a_call_repeated_without_progress_is_stopped(run, strategy):
    """langgenius/dify#23888 (1.7.1): the agent called the same MCP tool again and again. The
    same call with the same arguments and the same result, four times: the fourth is not run,
    the model is told why, and the node answers."""
    turns = [call_turn(strategy, "list_orders", {"value": "open"}, call_id=f"c{n}") for n in range(1, 5)]
    turns.append(answer_turn(strategy, "You have 2 open orders."))
    orders = tool_named("list_orders", [text_message('{"open": 2}')] * 4)
    result = run(turns, query="How many open orders?", strategy=strategy, tools=[orders], maximum_iterations=6)
    assert_clean(result, run)
    assert result.text == "You have 2 open orders."
    assert len(result.tool_requests) == 3
    told = observations(result.llm_requests[4])[-1]
    assert "was not run again" in told and "list_orders" in told, told
    assert [n.status for n in log_nodes(result, "CALL list_orders")][-1] == "error"


# --- what tools return -------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1108_a_workflow_tools_output_reaches_the_model(run, strategy):
    """langgenius/dify-official-plugins#1108 (agent strategies 0.0.16; also langgenius/dify#21227,
    1.4.2): every workflow published as a tool failed in the Agent node with "tool invoke error:
    'str' object has no attribute 'type'", though the workflow ran. A workflow tool answers as
    Dify's workflow tool does (its outputs as JSON text, then as a JSON message, a list of rows
    inside): the model reads the rows, the call's log finishes, and the node answers."""
    outputs = {"result": [{"id": 1, "name": "Alpha"}, {"id": 2, "name": "Beta"}]}
    flow = tool_named("DataSearchToolV3", [text_message(json.dumps(outputs, ensure_ascii=False)), json_message(outputs)])
    result = run([call_turn(strategy, "DataSearchToolV3", {"value": "a"}), answer_turn(strategy, "Alpha and Beta.")],
                 query="Search the data.", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert "Alpha" in seen and "Beta" in seen and "has no attribute" not in seen, seen
    assert [n.status for n in log_nodes(result, "CALL DataSearchToolV3")] == ["success"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify21350_a_workflow_tools_result_is_read_once(run, strategy):
    """langgenius/dify#21350 (1.3.1; also langgenius/dify#20371): in the Agent node a workflow
    tool's result came back twice, and the observation repeated it ("the workflow returns both
    text and json, and the Agent uses both"). A workflow tool's Chinese output, as JSON text
    (not ASCII-escaped) and as a JSON message: the model reads each value once."""
    outputs = {"projectone": {"info": [{"项目": "智慧园区", "状态": "进行中"}]}}
    flow = tool_named("project_info", [text_message(json.dumps(outputs, ensure_ascii=False)), json_message(outputs)])
    result = run([call_turn(strategy, "project_info", {"value": "p1"}), answer_turn(strategy, "智慧园区 is in progress.")],
                 query="Status of project one?", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("智慧园区") == 1, seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify24705_a_workflow_tool_failing_inside_dify_is_an_observation(run, strategy):
    """langgenius/dify#24705 (1.8.0): a workflow tool called by the Agent node answered "tool
    invoke error: Instance <Account at 0x7f094a2ed7c0> is not bound to a Session" (a fault in
    Dify's workflow tool). The failure is the model's observation, the call's log says it
    failed, and the node still answers."""
    error = ("tool invoke error: Instance <Account at 0x7f094a2ed7c0> is not bound to a Session; "
             "attribute refresh operation cannot proceed")
    flow = tool_named("getDouYinvideo", [], error=error)
    result = run([call_turn(strategy, "getDouYinvideo", {"value": "v1"}), answer_turn(strategy, "The video tool failed.")],
                 query="Get the video.", strategy=strategy, tools=[flow])
    assert_clean(result, run)
    assert result.text == "The video tool failed."
    (told,) = observations(result.llm_requests[1])
    assert "not bound to a Session" in told, told
    (node,) = log_nodes(result, "CALL getDouYinvideo")
    assert node.status == "error"
    assert_no_traceback(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify31127_a_form_parameter_bound_to_an_array_of_objects_reaches_the_tool_as_a_list(run, strategy):
    """langgenius/dify#31127 (1.11.2): a tool parameter set by the user (not "Automatic") and
    bound to an ``array[object]`` variable did not reach the tool as that array. The value set
    on the node reaches the tool as the same list of objects, beside what the model filled in."""
    items = [{"sku": "A1", "qty": 2}, {"sku": "B7", "qty": 1}]
    order = ScriptedTool(name="place_order", description="Place an order",
                         parameters=[ToolParam("note"), ToolParam("items", type="array", form="form")],
                         responses=[text_message("order 981 placed")], runtime_parameters={"items": items})
    result = run([call_turn(strategy, "place_order", {"note": "deliver Monday"}), answer_turn(strategy, "Order 981.")],
                 query="Place my order.", strategy=strategy, tools=[order])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"note": "deliver Monday", "items": items}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18910_an_image_for_a_model_without_vision_reaches_the_tool_that_reads_it(run, strategy):
    """langgenius/dify#18910 (2025-04): with a model without vision, the user's image could not
    reach the tool that reads images (another model behind a workflow tool). The image sent with
    the question, and bound to the tool's file parameter in the node (not "Automatic"), for a
    model without ``vision``: the model is told an image came (its name and type, never its signed
    address, which expires within minutes), calls the tool, and the tool gets the file itself."""
    image = {"url": "https://upload.example.com/files/receipt.png?timestamp=1&nonce=n&sign=s",
             "filename": "receipt.png", "size": 2048, "mime_type": "image/png", "type": "image",
             "transfer_method": "local_file", "extension": ".png"}
    ocr = ScriptedTool(name="read_image", description="Reads the text of an image",
                       parameters=[ToolParam("question", required=False), ToolParam("image", type="file", form="form")],
                       responses=[text_message("TOTAL 42.00")], runtime_parameters={"image": image})
    result = run([call_turn(strategy, "read_image", {"question": "total"}), answer_turn(strategy, "The total is 42.00.")],
                 query="What is the total on this receipt?", strategy=strategy, tools=[ocr], files=[image],
                 model={"features": ["tool-call", "multi-tool-call", "stream-tool-call"]})
    assert_clean(result, run)
    sent = prompt_text(result.llm_requests[0])
    assert "receipt.png" in sent and "image/png" in sent and "sign=s" not in sent, sent[-300:]
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"question": "total", "image": image}]
    assert result.text == "The total is 42.00."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify15665_a_model_without_its_schema_still_runs(run, strategy):
    """langgenius/dify#15665 (1.0.0 and 1.0.1): every Agent node failed before the first round
    with "1 validation error for ReActParams model.entity Input should be a valid dictionary"
    (Dify sent the model without its schema). A node whose model comes with ``entity: null``:
    the tool runs and the node answers."""
    result = run([call_turn(strategy, "get_weather", {"city": "Graz"}), answer_turn(strategy, "Sunny in Graz.")],
                 query="Weather in Graz?", strategy=strategy, tools=[weather_tool()], model={"entity": False})
    assert_clean(result, run)
    assert result.text == "Sunny in Graz."
    assert "ValidationError" not in json.dumps(result.messages)


def test_dify25842_a_long_react_run_answers_before_the_limit(plugin):
    """langgenius/dify#25842 (1.7.1 Cloud, ReAct): a conversation round that ran past 250 s failed
    with "PluginInvokeError: invocation exited without response". With a 7 s run limit and a
    2 s tool each round, the run stops calling in time, and the model's answer arrives before
    the limit."""

    def slow(params):
        time.sleep(2)
        yield text_message(f"page {params.get('value')}")

    toolbox = default_toolbox()
    toolbox.add(LocalTool(name="crawl", description="Slow crawl", parameters=[ToolParam("value")], handler=slow))
    backend = CallsUntilTold("ReAct", "Crawled what time allowed.")
    scenario = Scenario(query="Crawl ten pages.", tools=["crawl"], strategy="ReAct", maximum_iterations=10,
                        params={"run_timeout": 7})
    started = time.monotonic()
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    elapsed = time.monotonic() - started
    backend.release()
    toolbox.release()
    assert_clean_end(result)
    assert result.text == "Crawled what time allowed."
    assert elapsed < 7, elapsed
