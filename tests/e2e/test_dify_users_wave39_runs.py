"""Wave 39: a seventh set of users' own reports (2024-2026) about Dify's Agent node, its
strategies and the agent apps' Function Calling and ReAct runners, from langgenius/dify,
langgenius/dify-plugin-daemon and aws-samples/dify-aws-tool, none cited by an earlier wave. Each
is replayed through the real plugin process (the runner plays the daemon) with scripted model
turns and tools, or against a model plugin's contract backend, in both strategies where the
report applies. Each case names its report and asserts what the user needed: the tool ran, the
answer shown once and alone, what the model was sent, a finished log tree, the usage reported.
The table is in docs/real-world-cases.md, "Users' reports, wave 39".
"""

from __future__ import annotations

import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    SELF_SERVED,
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    assert_no_traceback,
    call_turn,
    logs_json,
    observations,
    prompt_text,
    text_of,
    tool_named,
    tools_ran,
    weather_tool,
)


def run_contract(plugin, contract: str, strategy: str, *, model: str | None = None, **fields):
    """The calculator question against one official model plugin's contract backend, streamed;
    ``model`` overrides the contract's model name, ``fields`` are other ``Scenario`` fields."""
    backend = CONTRACTS[contract](shape="stream")
    settings = CONTRACTS[contract].model_settings(stream=True)
    if model:
        settings["model"] = model
    if "features" in fields:
        settings["features"] = sorted(set(settings.get("features") or []) | set(fields.pop("features")))
    scenario = Scenario(query=fields.pop("query", "What is 37 * 91?"), tools=fields.pop("tools", ["calculator"]),
                        strategy=strategy, model=ModelSettings(**settings), **fields)
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


def log_nodes(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def streamed(result) -> str:
    """Every text message the node streamed to the chat, joined in order."""
    return "".join(str((m.get("message") or {}).get("text", "")) for m in result.messages if m.get("type") == "text")


# --- model plugins ---------------------------------------------------------------------------------------

# A tool round kept in memory, as Dify's agent apps store it: the assistant's call and its result.
TOOL_ROUND_HISTORY = [
    {"role": "user", "content": "What is 12 * 12?"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call_h1", "name": "calculator",
                                                          "arguments": {"expression": "12 * 12"}}]},
    {"role": "tool", "content": "144", "tool_call_id": "call_h1", "name": "calculator"},
    {"role": "assistant", "content": "12 * 12 is 144."},
]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify17579_an_azure_openai_model_runs_the_agent_node(plugin, strategy):
    """langgenius/dify#17579 (1.1.3, Azure OpenAI ``gpt-4o-mini`` in an Agent node): every run
    failed with "Failed to transform agent message" until the strategy plugin was updated. Against
    the Azure OpenAI plugin's contract: nothing is refused, the tool runs once with the model's
    input and the node answers with its result."""
    backend, result = run_contract(plugin, "azure_openai", strategy, model="gpt-4o-mini")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert tools_ran(result) == [("calculator", {"expression": "37 * 91"})]
    assert "3367" in result.text


IMAGE = {"url": "https://example.com/uploads/receipt.png", "mime_type": "image/png", "filename": "receipt.png",
         "size": 4096}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify4686_azure_gpt4o_reads_an_image_after_a_tool_round(plugin, strategy):
    """langgenius/dify#4686 (Azure OpenAI ``gpt-4o``): after a turn that used a tool, a question
    with an uploaded photo failed with "'function' is not an allowed role. The allowed roles are
    [system, user, assistant]". Memory of that turn (Dify keeps its question and answer) and a
    question with an image that needs the tool again, against the Azure OpenAI plugin's contract
    with vision: nothing is refused, no message has the role ``function``, every request carries
    the image, and the node answers."""
    history = [{"role": "user", "content": "What is 12 * 12?"}, {"role": "assistant", "content": "12 * 12 is 144."}]
    backend, result = run_contract(plugin, "azure_openai", strategy, model="gpt-4o", history=history, files=[IMAGE],
                                   features=["vision"], query="And what is 37 * 91? Also look at the photo.")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and len(result.llm_requests) == 2
    roles = {m["role"] for request in result.llm_requests for m in request["prompt_messages"]}
    assert "function" not in roles, roles
    assert all(IMAGE["url"] in prompt_text(request) for request in result.llm_requests)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify7328_bedrock_answers_a_follow_up_after_a_tool_round(plugin, strategy):
    """langgenius/dify#7328 (0.7.0, Claude 3.5 Sonnet on Bedrock in an agent; also
    aws-samples/dify-aws-tool#155 and langgenius/dify#16421): runs failed with "The toolConfig
    field must be defined when using toolUse and toolResult content blocks" when a request without
    tools followed one that used them. A memory that holds a tool round, against the Bedrock
    plugin's contract: every request is accepted, the new question's tool runs and the node
    answers."""
    backend, result = run_contract(plugin, "bedrock", strategy, history=TOOL_ROUND_HISTORY)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text
    assert tools_ran(result) == [("calculator", {"expression": "37 * 91"})]


def test_dify10148_qwen25_on_xinference_writes_its_call_as_text_and_it_runs(run):
    """langgenius/dify#10148 (0.10.1, ``qwen2.5:7b`` instruct on Xinference): "sometimes the agent
    senses the tool, but does not actually call the tool, and it is interrupted". Qwen2.5 served
    without a tool parser writes its call as a Hermes ``<tool_call>`` block in the content after a
    sentence: the call runs in round 1, and the chat shows the sentence and the answer, never the
    block."""
    reply = {"text": "I will check the current time.\n<tool_call>\n"
                     '{"name": "current_time", "arguments": {}}\n</tool_call>', "split": 9}
    result = run([reply, {"text": "It is 14:05 now."}], query="What time is it?", tools=["current_time"],
                 model={"provider": "langgenius/xinference/xinference", "model": "qwen2.5-instruct"})
    assert_clean(result, run)
    assert [name for name, _ in tools_ran(result)] == ["current_time"]
    assert result.text.endswith("It is 14:05 now.") and "<tool_call>" not in streamed(result), result.text


def test_dify15962_function_calling_runs_a_model_sent_without_its_schema(run):
    """langgenius/dify#15962 (1.0.1, Function Calling with ``qwen2.5``): every run failed before
    the first round with "1 validation error for FunctionCallingParams model.entity Input should
    be a valid dictionary" (the model came with ``entity: null``). A Function Calling node whose
    model comes without its schema: the tool runs and the node answers."""
    result = run([call_turn("function_calling", "current_time", {}), {"text": "It is 08:00."}],
                 query="当前时间", tools=["current_time"], model=dict(SELF_SERVED, model="qwen2.5", entity=False))
    assert_clean(result, run)
    assert [name for name, _ in tools_ran(result)] == ["current_time"]
    assert result.text == "It is 08:00."
    assert "ValidationError" not in json.dumps(result.messages)


# --- tools -----------------------------------------------------------------------------------------------


TOOL_FAILURES = [
    pytest.param("dify20392", "tool invoke error: read tool response failed: request failed: 401 Unauthorized: "
                              "Invalid Authorization token.", "401 Unauthorized", id="dify20392-401"),
    pytest.param("dify27210", "Failed to invoke tool: Error during cleanup: timed out", "timed out",
                 id="dify27210-cleanup-timeout"),
]


@pytest.mark.parametrize("report, error, shown", TOOL_FAILURES)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_failing_tool_is_an_observation_and_the_node_answers(run, strategy, report, error, shown):
    """langgenius/dify#20392 (1.4.1, Cloud: every agent tool call failed with "401 Unauthorized:
    Invalid Authorization token" while the same tool worked as a workflow node) and
    langgenius/dify#27210 (1.7.1, an MCP tool: "Failed to invoke tool: Error during cleanup: timed
    out" and the workflow stopped). The tool's failure is the model's observation, the call's log
    node ends as an error, and the node answers instead of failing."""
    tool = tool_named("query_crm", [], ToolParam("customer"), error=error)
    result = run([call_turn(strategy, "query_crm", {"customer": "ACME"}),
                  answer_turn(strategy, "The CRM is not reachable right now.")],
                 query="Open deals of ACME?", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert shown in observations(result.llm_requests[1])[0], report
    assert [n.status for n in log_nodes(result, "CALL query_crm")] == ["error"]
    assert result.text == "The CRM is not reachable right now."
    assert_no_traceback(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19663_a_tool_past_its_time_limit_is_told_and_the_run_goes_on(run, strategy):
    """langgenius/dify#19663 (0.15.0, a workflow published as a tool that runs for minutes:
    "Failed to invoke tool: timed out" ended the whole run). A tool slower than the node's tool
    time limit: the model is told the call timed out, the call's log node is an error, and the
    node answers with what it has."""
    slow = ScriptedTool(name="build_report", description="Builds a report", parameters=[ToolParam("q")],
                        responses=[text_message("report ready")], latency=3.0)
    result = run([call_turn(strategy, "build_report", {"q": "Q3"}),
                  answer_turn(strategy, "The report takes too long; try a smaller period.")],
                 query="Build the Q3 report.", strategy=strategy, tools=[slow], tool_timeout=1)
    assert_clean(result, run)
    told = observations(result.llm_requests[1])[0]
    assert "time" in told.lower() and "report ready" not in told, told
    assert [n.status for n in log_nodes(result, "CALL build_report")] == ["error"]
    assert result.text == "The report takes too long; try a smaller period."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify3061_the_same_tool_runs_again_in_later_rounds(run, strategy):
    """langgenius/dify#3061 (0.5.11, Qwen: "Cannot use the same tool multiple times": after one
    call the agent stopped using the tool). The same tool called in three rounds with different
    inputs: each call runs, each result reaches the model, and the node answers."""
    draw = tool_named("draw", [text_message("image A"), text_message("image B"), text_message("image C")],
                      ToolParam("prompt"))
    turns = [call_turn(strategy, "draw", {"prompt": p}, call_id=f"c{n}") for n, p in enumerate(["cat", "dog", "fox"])]
    result = run([*turns, answer_turn(strategy, "Here are the cat, the dog and the fox.")], query="Draw a cat, a dog, a fox.",
                 strategy=strategy, tools=[draw])
    assert_clean(result, run)
    assert [p["prompt"] for _, p in tools_ran(result)] == ["cat", "dog", "fox"]
    last = prompt_text(result.llm_requests[-1])
    assert all(f"image {x}" in last for x in "ABC"), last
    assert result.text == "Here are the cat, the dog and the fox."


def test_dify14717_a_slow_tools_call_is_shown_before_its_result_comes(run, plugin):
    """langgenius/dify#14717 (an agent calling a slow workflow tool "remains in a blocked state"
    with nothing to see until it ends). A 1 s tool: its CALL log node is sent as started before
    the plugin asks the daemon to run the tool, and finished after, with the result."""
    slow = ScriptedTool(name="slow_flow", description="A slow workflow", parameters=[ToolParam("q")],
                        responses=[text_message("flow done")], latency=1.0)
    result = run([call_turn("function_calling", "slow_flow", {"q": "go"}), {"text": "Done."}], query="Run the flow.",
                 tools=[slow])
    assert_clean(result, run)
    (call,) = log_nodes(result, "CALL slow_flow")
    order = []
    for entry in result.transcript:
        if entry.get("dir") != "from_plugin":
            continue
        body = ((entry.get("json") or {}).get("data") or {})
        inner = body.get("data") or {}
        if inner.get("type") == "tool":
            order.append("tool")
        message = inner.get("message") if isinstance(inner, dict) else None
        if isinstance(message, dict) and message.get("id") == call.id:
            order.append(message.get("status"))
    assert "tool" in order and "start" in order, order
    assert order.index("start") < order.index("tool") < order.index("success"), order
    assert "flow done" in json.dumps(call.data)


# --- the iteration limit ---------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20272_more_than_five_rounds_run_when_the_node_allows_them(run, strategy):
    """langgenius/dify#20272 (1.4.0: "Unable to exceed max_iteration limit of 5 in agent"; also
    langgenius/dify#7883, "We need beyond 5 max_iteration setting for Agents"). A node set to 8
    rounds and a model that needs seven tool rounds: all seven calls run, and round 8 answers."""
    pages = tool_named("read_page", [text_message(f"page {n}") for n in range(1, 8)], ToolParam("n"))
    turns = [call_turn(strategy, "read_page", {"n": str(n)}, call_id=f"c{n}") for n in range(1, 8)]
    result = run([*turns, answer_turn(strategy, "I read all seven pages.")], query="Read pages 1 to 7.",
                 strategy=strategy, tools=[pages], maximum_iterations=8)
    assert_clean(result, run)
    assert [p["n"] for _, p in tools_ran(result)] == [str(n) for n in range(1, 8)]
    assert len(result.llm_requests) == 8
    assert result.text == "I read all seven pages."


def test_dify19463_react_with_two_rounds_calls_the_tool_then_answers(run):
    """langgenius/dify#19463 (1.3.0, ReAct with an MCP tool and two iterations: "sometimes there
    is ROUND2, and sometimes there isn't"). A ReAct node limited to two rounds whose round 1 is a
    thought and an action: the tool runs, round 2 is asked with its observation, and the node's
    text is round 2's answer; the log has two round nodes, both finished."""
    search = tool_named("mcp_search", [text_message("3 hits for 'solar'")], ToolParam("query"))
    result = run([call_turn("ReAct", "mcp_search", {"query": "solar"}), answer_turn("ReAct", "Three hits about solar.")],
                 query="Search for solar.", strategy="ReAct", tools=[search], maximum_iterations=2)
    assert_clean(result, run)
    assert tools_ran(result) == [("mcp_search", {"query": "solar"})]
    assert "3 hits" in observations(result.llm_requests[1])[0]
    rounds = [n for n in result.root_logs() if "ROUND" in n.label.upper()]
    assert len(rounds) == 2 and all(n.status == "success" for n in rounds), [(n.label, n.status) for n in rounds]
    assert result.text == "Three hits about solar."


# --- what the user sees ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify4705_the_answer_is_shown_once(run, strategy):
    """langgenius/dify#4705 (0.6.8: "The Agent have two same Final answer": the chat showed the
    answer twice while the agent's output had it once; also langgenius/dify#11213, output repeated
    through the API). After a tool round, an answer streamed in pieces: the chat gets it exactly
    once, and the node's text is it."""
    answer = "Oslo is sunny, 21 C, with a light breeze from the west."
    reply = dict(answer_turn(strategy, answer), split=6)
    result = run([call_turn(strategy, "get_weather", {"city": "Oslo"}), reply], query="Weather in Oslo?",
                 strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert streamed(result).count("light breeze") == 1, streamed(result)
    assert result.text == answer


def test_dify8168_react_shows_the_tools_result_once_and_only_through_the_answer(run):
    """langgenius/dify#8168 (0.7.3, ReAct with Qwen-32B and one iteration: "the tool response is
    exceptionally repeated twice"; also langgenius/dify#2972, a custom tool's result streamed
    twice). A ReAct run whose tool returns a marked text: the mark is in the round-2 request once,
    the chat never shows the tool's raw text, and the node's text is the answer alone."""
    tool = tool_named("lookup_policy", [text_message("POLICY-7731: refunds within 30 days")], ToolParam("topic"))
    result = run([call_turn("ReAct", "lookup_policy", {"topic": "refunds"}),
                  answer_turn("ReAct", "Refunds are possible within 30 days.")],
                 query="What is the refund policy?", strategy="ReAct", tools=[tool], maximum_iterations=1)
    assert_clean(result, run)
    assert prompt_text(result.llm_requests[1]).count("POLICY-7731") == 1
    assert "POLICY-7731" not in streamed(result)
    assert result.text == "Refunds are possible within 30 days."


def test_dify12412_the_chat_gets_the_final_answer_without_thoughts_or_actions(run):
    """langgenius/dify#12412 (0.12.1: the agent "always output that how to thought and which tool
    was used"; the user wanted only the final answer). A ReAct run with a thought, an action and
    a final answer: the text streamed to the chat is the final answer alone, with no ``Thought:``,
    ``Action`` or action input; the thought and the call are in the log."""
    step = call_turn("ReAct", "get_weather", {"city": "Kyoto"})
    step["text"] = step["text"].replace("Thought: I will use get_weather.", "Thought: PLAN-12 check Kyoto first.")
    result = run([dict(step, split=3), dict(answer_turn("ReAct", "Kyoto is sunny today."), split=3)],
                 query="Weather in Kyoto?", strategy="ReAct",
                 tools=[weather_tool()])
    assert_clean(result, run)
    shown = streamed(result)
    assert shown.strip() == "Kyoto is sunny today.", shown
    assert "PLAN-12" in logs_json(result) and "Kyoto" in json.dumps(log_nodes(result, "CALL get_weather")[0].data)


USAGE = [{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
         {"prompt_tokens": 200, "completion_tokens": 25, "total_tokens": 225}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify4473_the_node_reports_the_tokens_of_every_round(run, strategy):
    """langgenius/dify#4473 (0.6.8: "CoT agent token usage is empty": a ReAct agent's run showed
    0 tokens). A tool round and an answer whose model calls report 150 and 225 tokens: the node's
    usage is their sum, 375, with prompt and completion tokens summed too."""
    turns = [{**call_turn(strategy, "get_weather", {"city": "Lima"}), "usage": USAGE[0]},
             {**answer_turn(strategy, "Lima is sunny."), "usage": USAGE[1]}]
    result = run(turns, query="Weather in Lima?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    metadata = result.execution_metadata or {}
    assert metadata.get("total_tokens") == 375, metadata
    assert metadata.get("prompt_tokens") == 320 and metadata.get("completion_tokens") == 55, metadata


PROSE_CLAIMS = [
    "I looked up the record and I have updated the record name to Delete Team. Done.",
    'I called update_record with {"name": "Delete Team"} and it succeeded.',
    'I have already called `update_record({"name": "Delete Team"})` and the record is updated.',
    'Done: update_record(name="Delete Team") returned "updated".',
]


@pytest.mark.parametrize("claim", PROSE_CLAIMS)
def test_dify40671_the_log_shows_only_the_tools_that_ran(run, claim):
    """langgenius/dify#40671 (1.16.1, Function Calling with ``claude-haiku-4-5``: the agent
    "fabricates tool-call success without executing the tool"; also langgenius/dify#31722, "Agent
    may skip tool execution and hallucinate successful tool output"). A model that runs one tool
    and then claims in prose, even quoting the call's arguments, to have also updated a record:
    the claim runs nothing, only the call that ran has a CALL log node, and the claim stays the
    model's answer text for the user to judge."""
    update = tool_named("update_record", [text_message("updated")], ToolParam("name"))
    result = run([call_turn("function_calling", "get_weather", {"city": "Rome"}), {"text": claim}],
                 query="Rename the record to Delete Team.", tools=[weather_tool(), update])
    assert_clean(result, run)
    assert [name for name, _ in tools_ran(result)] == ["get_weather"]
    assert log_nodes(result, "CALL update_record") == [] and len(log_nodes(result, "CALL get_weather")) == 1
    assert result.text == claim


# --- memory ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify6046_a_short_reply_is_read_with_the_question_it_answers(run, strategy):
    """langgenius/dify#6046 (an agent bot "lack of history conversation messages": asked for a
    ticket, the user answered "12345" and the bot did not know what the number meant). With memory
    on: the bot's question reaches the model before the user's "12345", in order."""
    history = [{"role": "user", "content": "This ticket failed, please check."},
               {"role": "assistant", "content": "Please give me the ticket number so I can check it."}]
    result = run([answer_turn(strategy, "Ticket 12345 failed at the payment step.")], query="12345",
                 strategy=strategy, tools=[weather_tool()], history=history)
    assert_clean(result, run)
    sent = prompt_text(result.llm_requests[0])
    asked, answered = sent.index("Please give me the ticket number"), sent.rindex("12345")
    assert sent.index("This ticket failed") < asked < answered


MEMORY_CONTRACTS = [
    *["openai", "anthropic", "gemini", "deepseek", "tongyi", "bedrock", "azure_openai", "mistralai"],
    pytest.param("moonshot", marks=pytest.mark.xfail(strict=True, reason=(
        "memory turns lose their reasoning by design, and a Kimi thinking model refuses an earlier "
        "assistant tool-call message without reasoning_content (as the contract models it); the call "
        "is not flattened to text. Dify's own memory never holds tool calls, so no Dify run sends this"))),
]


@pytest.mark.parametrize("contract", MEMORY_CONTRACTS)
def test_dify4688_a_tool_round_in_memory_reaches_the_model_whole(plugin, contract):
    """langgenius/dify#4688 (0.6.8: a search tool's results "wouldn't be included in the next round
    of conversation"; the user asked for tool output in memory). Dify's memory keeps each turn's
    question and answer only (``api/core/memory/token_buffer_memory.py``, langgenius/dify commit
    b753ad9efb49bf81535d0f9ed44ad6e579beffe1), so a tool round reaches memory only from another
    caller; the plugin says its memory is safe to replay to any provider. A memory holding an
    earlier turn's call and its result, against each model plugin's contract: nothing is refused,
    the result follows its call as a tool message, and the new question is answered."""
    backend, result = run_contract(plugin, contract, "function_calling", history=TOOL_ROUND_HISTORY)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    messages = result.llm_requests[0]["prompt_messages"]
    (call_at,) = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("tool_calls")]
    assert messages[call_at + 1]["role"] == "tool" and text_of(messages[call_at + 1]["content"]) == "144"
    assert "3367" in result.text
