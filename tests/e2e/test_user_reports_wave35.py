"""Wave 35: a third set of Dify users' own bug reports (2025-2026) about the Agent node and its
strategies, from langgenius/dify, langgenius/dify-official-plugins and
langgenius/dify-plugin-daemon, none cited by an earlier wave. Each is replayed through the real
plugin process with scripted model turns and tools (or a model plugin's contract backend), in
both strategies where the report applies. Each test names its report in its docstring and asserts
what the user expected to see. The table is in docs/real-world-cases.md, "Users' reports against
agent strategies (wave 35)"; reports about Dify itself are listed there with why.
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from local_runner import ModelSettings, PluginProcess, Scenario, default_toolbox, run_scenario
from local_runner.backends import Pricing, make_usage
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.protocol import MAX_LINE_BYTES
from local_runner.tools import LocalTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
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


def run_contract(plugin, contract: str, strategy: str, **model_fields):
    """The calculator question against one official model plugin's contract backend, streamed."""
    backend = CONTRACTS[contract](shape="stream")
    model = ModelSettings(**{**CONTRACTS[contract].model_settings(stream=True), **model_fields})
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy=strategy, model=model)
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


def user_texts(request: dict) -> list[str]:
    return [text_of(m["content"]) for m in request["prompt_messages"] if m["role"] == "user"]


def log_labels(result) -> list[str]:
    return [n.label for n in result.logs.values()]


# --- what a model plugin needs back --------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify28988_deepseek_thinking_gets_its_reasoning_content_back(plugin, strategy):
    """langgenius/dify#28988 (1.9.0, Function Calling, DeepSeek plugin): the Agent node failed in
    round 2 with 400 "Missing `reasoning_content` field in the assistant message at message index
    2". Played against the DeepSeek plugin's contract, which refuses a tool-call turn sent back
    without its ``reasoning_content``."""
    backend, result = run_contract(plugin, "deepseek", strategy)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and REASONING_MARK not in result.text and "<think>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2088_gemini_3_on_vertex_ai_gets_its_thought_signature_back(plugin, strategy):
    """langgenius/dify-official-plugins#2088 (1.9.1; also langgenius/dify#29187, 1.10.1-fix.1):
    ``gemini-3-pro-preview`` in an Agent node failed in round 2 with 400 INVALID_ARGUMENT
    "Function call is missing a thought_signature in functionCall parts". Played against the
    Vertex AI plugin's contract (Gemini 3 requires the signature on each call it returned)."""
    backend, result = run_contract(plugin, "vertex_ai", strategy)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and len(backend.requests) == 2


def test_dify16989_tools_stay_declared_when_the_iteration_limit_asks_for_the_answer(run):
    """langgenius/dify#16989 (2025-03; also langgenius/dify#27428, #27215, #17545, fixed in the
    Bedrock plugin by langgenius/dify-official-plugins PR #2068): two tools, Maximum Iterations 1
    or 2, Bedrock: the request after the tool round failed with "The toolConfig field must be
    defined when using toolUse and toolResult content blocks". The answer asked for at the limit
    still declares the tools the history's calls name, and the node answers."""
    turns = [call_turn("function_calling", "get_weather", {"city": "Paris"}),
             answer_turn("function_calling", "Sunny in Paris.")]
    other = tool_named("search", [text_message("none")])
    result = run(turns, query="Weather in Paris?", tools=[weather_tool(), other], maximum_iterations=1)
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    first, last = result.llm_requests
    assert {t["name"] for t in last["tools"]} == {t["name"] for t in first["tools"]} == {"get_weather", "search"}
    assert any(m["role"] == "tool" for m in last["prompt_messages"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop587_maximum_iterations_1_still_offers_the_tools(run, strategy):
    """langgenius/dify-official-plugins#587 (1.1.1, agent plugin 0.0.12, Xinference): with
    Maximum Iterations 1 no tool was sent to the model. With one round, the first request offers
    the tool, the call runs, and the answer comes after it."""
    result = run([call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Sunny in Oslo.")],
                 query="Weather in Oslo?", strategy=strategy, tools=[weather_tool()], maximum_iterations=1)
    assert_clean(result, run)
    if strategy == "function_calling":
        assert [t["name"] for t in result.llm_requests[0]["tools"]] == ["get_weather"]
    else:
        assert "get_weather" in prompt_text(result.llm_requests[0])
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Sunny in Oslo."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2244_a_reply_of_reasoning_only_does_not_leave_the_answer_empty(run, strategy):
    """langgenius/dify-official-plugins#2244 (1.11.0, plugin 0.0.37, DeepSeek-V3.2 on SiliconFlow
    with thinking on): in the Agent node the reply had only ``reasoning_content`` and no content;
    the node's answer was empty. A reply that is only a reasoning block is asked again; when the
    model keeps replying so, the node answers with what it wrote, never an empty text."""
    only_reasoning = {"text": "<think>The user greets me. I answer: Hello, how can I help?</think>"}
    result = run([dict(only_reasoning) for _ in range(3)], query="Hi", strategy=strategy)
    assert_clean(result, run)
    assert result.text.strip(), result.messages
    assert "Hello, how can I help?" in result.text
    assert "<think>" not in result.text


def test_dify25237_the_tool_round_goes_back_with_its_calls_and_ids(run):
    """langgenius/dify#25237 (1.8.0, gpt-oss:20b through Ollama): after the tool ran, the next
    request's assistant message was empty and named no call, so the model did not know it had
    called the tool and asked for it again. The round goes back with its call, and the tool
    message answers that call's id."""
    result = run([call_turn("function_calling", "get_weather", {"city": "Rome"}, call_id="call_7x"),
                  answer_turn("function_calling", "Sunny in Rome.")],
                 query="Weather in Rome?", tools=[weather_tool()])
    assert_clean(result, run)
    messages = result.llm_requests[1]["prompt_messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    (tool,) = [m for m in messages if m["role"] == "tool"]
    assert [(c["id"], c["function"]["name"]) for c in assistant["tool_calls"]] == [("call_7x", "get_weather")]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Rome"}
    assert tool["tool_call_id"] == "call_7x" and "Sunny, 21 C" in text_of(tool["content"])
    assert messages.index(assistant) < messages.index(tool)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify41014_a_round_that_only_reasons_still_finishes_its_log(run, strategy):
    """langgenius/dify#41014 (agent plugin 0.0.40, Qwen; also Gemini with ``include_thoughts``):
    with ReAct a round sometimes stopped in the middle: its ROUND log started and never finished,
    no tool ran, no answer came, and nothing said why. A round whose reply is only reasoning is
    asked again; the call made then runs; every log node finishes and the node answers."""
    turns = [{"chunks": [{"content": "<think>I should look up the weather"}, {"content": " first.</think>"}]},
             call_turn(strategy, "get_weather", {"city": "Lima"}), answer_turn(strategy, "Sunny in Lima.")]
    result = run(turns, query="Weather in Lima?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Lima."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Lima"}]
    rounds = [n for n in result.logs.values() if n.label.startswith("ROUND ")]
    assert rounds and all(n.status == "success" for n in rounds), [(n.label, n.status) for n in rounds]


# --- model and tool failures ---------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1704_a_tool_name_the_node_lacks_is_an_observation_not_a_keyerror(run, strategy):
    """langgenius/dify-official-plugins#1704 (1.8.1, Gemini 2.5 Pro with Tavily and Jina in a
    loop): the Agent node sometimes halted with PluginInvokeError {"error_type":"KeyError",
    "message":"'search'"}: the model called a tool named ``search`` the node did not have. The
    model is told the tool does not exist, calls the real one, and the node answers."""
    turns = [call_turn(strategy, "search", {"value": "dify"}), call_turn(strategy, "tavily_search", {"value": "dify"}, call_id="c2"),
             answer_turn(strategy, "Dify is an LLM app platform.")]
    tavily = tool_named("tavily_search", [text_message("Dify: an open-source LLM app platform.")])
    result = run(turns, query="What is Dify?", strategy=strategy, tools=[tavily])
    assert_clean(result, run)
    assert result.text == "Dify is an LLM app platform."
    assert [r["tool"] for r in result.tool_requests] == ["tavily_search"]
    told = observations(result.llm_requests[1])[0]
    assert "search" in told and "tavily_search" in told, told
    assert "KeyError" not in json.dumps(result.messages)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23450_a_workflow_tool_answering_500_is_an_observation(run, strategy):
    """langgenius/dify#23450 (1.4.0): a workflow published as a tool failed inside the Agent node
    and the whole node failed: "Failed to transform agent message: PluginInvokeError ... invoke
    tool failed: request failed with status code: 500". The failure is the model's observation
    (its message, no traceback), the log marks the call as failed, and the node answers."""
    error = 'invoke tool failed: request failed with status code: 500 and respond with: {"message": "Internal Server Error"}'
    broken = tool_named("publish_flow", [], error=error)
    result = run([call_turn(strategy, "publish_flow", {"value": "x"}), answer_turn(strategy, "The workflow failed (500).")],
                 query="Run the flow.", strategy=strategy, tools=[broken])
    assert_clean(result, run)
    assert result.text == "The workflow failed (500)."
    (told,) = observations(result.llm_requests[1])
    assert "500" in told and TRACEBACK not in told, told
    (node,) = [n for n in result.logs.values() if n.label == "CALL publish_flow"]
    assert node.status == "error" and "500" in node.error
    assert_no_traceback(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify15725_a_model_plugins_keyerror_ends_the_run_readably(run, strategy):
    """langgenius/dify#15725 (1.0.1, Tongyi qwen-max): the Agent node failed with "read llm model
    failed: ... PluginInvokeError: {"error_type":"KeyError","message":"'name'"}" in the model
    plugin. The run ends with an error that names the model's failure (its type and message, no
    Python traceback), and no log node is left running."""
    failure = ('[tongyi] Error: PluginInvokeError: {"args":{},"error_type":"KeyError","message":"\'name\'"}\n'
               f'{TRACEBACK}:\n  File "/app/models/llm/llm.py", line 412, in _handle\n    name = call["name"]\n'
               "KeyError: 'name'")
    result = run([{"error": failure}], query="Weather?", strategy=strategy, tools=[weather_tool()])
    assert not result.ok
    assert "KeyError" in result.error_text and "name" in result.error_text, result.error_text
    assert_no_traceback(result)
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1667_rounds_before_a_failure_keep_their_details(run, strategy):
    """langgenius/dify-official-plugins#1667 (1.8.0): when the Agent node failed, its rounds could
    not be opened to see what happened. The model fails in round 2: round 1's thought and call
    stay in the log, finished, with the call's arguments and result; the failing round ends as
    an error."""
    result = run([call_turn(strategy, "get_weather", {"city": "Kyiv"}), {"error": "upstream 502 Bad Gateway"}],
                 query="Weather in Kyiv?", strategy=strategy, tools=[weather_tool()])
    assert not result.ok and "502" in result.error_text
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    (node,) = [n for n in result.logs.values() if n.label == "CALL get_weather"]
    assert node.status == "success"
    assert "Kyiv" in json.dumps(node.data, ensure_ascii=False) and "Sunny, 21 C" in json.dumps(node.data)
    rounds = {n.label: n.status for n in result.logs.values() if n.label.startswith("ROUND ")}
    assert rounds.get("ROUND 1") == "success" and rounds.get("ROUND 2") == "error", rounds


# --- the query, the instruction, the knowledge ---------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19715_the_question_is_still_there_after_the_tool_ran(run, strategy):
    """langgenius/dify#19715 (1.3.1): in a chatflow Agent node, once the tool call succeeded the
    agent forgot the user's question and asked for more details. The request after the tool
    round still holds the question, before the result."""
    query = "Which of Paris or Rome is warmer today?"
    result = run([call_turn(strategy, "get_weather", {"city": "Paris"}), answer_turn(strategy, "Both are 21 C.")],
                 query=query, strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert any(query in text for text in user_texts(result.llm_requests[1])), user_texts(result.llm_requests[1])
    text = prompt_text(result.llm_requests[1])
    assert text.index(query) < text.index("Sunny, 21 C")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify17420_the_instruction_still_leads_the_second_turn(run, strategy):
    """langgenius/dify#17420 (1.0.1, DeepSeek V3, ReAct): the steps the instruction required were
    followed on the first question of a conversation only; on the next question the agent went
    straight to the tool. With memory holding the first turn, the instruction still opens the
    second turn's request, whole."""
    instruction = "Always: first get the current time, then search the knowledge base, then call the API tool."
    history = [{"role": "user", "content": "Create order 1."}, {"role": "assistant", "content": "Order 1 created."}]
    result = run([answer_turn(strategy, "Order 2 created.")], query="Create order 2.", strategy=strategy,
                 instruction=instruction, history=history, tools=[weather_tool()])
    assert_clean(result, run)
    first = result.llm_requests[0]["prompt_messages"][0]
    assert first["role"] == "system" and text_of(first["content"]).startswith(instruction)
    assert "Order 1 created." in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify30344_knowledge_context_and_a_search_tool_together(run, strategy):
    """langgenius/dify#30344 (1.11.2): an Agent node with the Tavily tool worked with the context
    empty and failed with an internal server error once the context was set. Context and the
    tool together: the context reaches the model in both rounds, the tool runs, the node answers
    and cites the knowledge."""
    context = [{"content": "The X1 battery lasts 14 hours.", "title": "x1.md", "metadata": {
        "_source": "knowledge", "position": 1, "dataset_id": "ds-1", "dataset_name": "Docs", "document_id": "d-1",
        "document_name": "x1.md", "segment_id": "s-1", "score": 0.9}}]
    tavily = tool_named("tavily_search", [text_message("Reviews say 13 hours in practice.")])
    result = run([call_turn(strategy, "tavily_search", {"value": "X1 battery"}),
                  answer_turn(strategy, "14 hours rated, about 13 in practice.")],
                 query="How long does the X1 battery last?", strategy=strategy, tools=[tavily], context=context)
    assert_clean(result, run)
    assert result.text == "14 hours rated, about 13 in practice."
    for request in result.llm_requests:
        assert "The X1 battery lasts 14 hours." in prompt_text(request)
    assert [r["tool"] for r in result.tool_requests] == ["tavily_search"]
    assert result.retriever_resources, result.messages


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify26943_the_knowledge_used_comes_back_as_citations(run, strategy):
    """langgenius/dify#26943 (2025-10): with a knowledge base feeding the agent, the
    ``retriever_resources`` of the answer were empty, so the retrieval context could not be
    evaluated. The results given as the node's context come back as one citation message naming
    each dataset, document and segment."""
    context = [{"content": f"Fact {n}.", "title": f"doc{n}.md", "metadata": {
        "_source": "knowledge", "position": n, "dataset_id": f"ds-{n}", "dataset_name": "Docs",
        "document_id": f"doc-{n}", "document_name": f"doc{n}.md", "segment_id": f"seg-{n}", "score": 0.8}}
        for n in (1, 2)]
    result = run([answer_turn(strategy, "Facts 1 and 2.")], query="What are the facts?", strategy=strategy,
                 context=context)
    assert_clean(result, run)
    cited = result.retriever_resources
    assert [(c.get("dataset_id"), c.get("document_id"), c.get("segment_id")) for c in cited] == [
        ("ds-1", "doc-1", "seg-1"), ("ds-2", "doc-2", "seg-2")], cited
    assert sum(m["type"] == "retriever_resources" for m in result.messages) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify39431_an_uploaded_spreadsheet_is_not_dropped_silently(run, strategy):
    """langgenius/dify#39431 (1.15.0, qwen-long): an Excel file uploaded to the agent disappeared;
    the files parameter reached the model empty. A spreadsheet in the query, for a model that
    reads no documents: the model is told which file came with the question (its name and type),
    and the node answers."""
    sheet = {"url": "https://upload.example.com/files/sales.xlsx", "filename": "sales.xlsx", "size": 4096,
             "mime_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
    result = run([answer_turn(strategy, "Please paste the rows.")], query="Sum the sales column.", strategy=strategy,
                 files=[sheet])
    assert_clean(result, run)
    assert "sales.xlsx" in prompt_text(result.llm_requests[0])


PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "USD"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify39201_every_round_is_priced_and_a_running_total_counts_once(run, strategy):
    """langgenius/dify PR #39201 (2026-07): Agent Monitor showed ``total_price = 0`` for agent
    runs: the usage reached Dify as token counts only, and streamed usage reported as a running
    total risked being counted twice. A tool round whose stream reports usage twice as a running
    total, then the answer: the node's usage counts each call once, priced, in USD, with a
    latency."""
    first = call_turn(strategy, "get_weather", {"city": "Paris"})
    prices = Pricing.from_dict(PRICING)
    chunks = [{"content": first.get("text") or "", "usage": make_usage(300, 10, prices, latency=0.4)}]
    if strategy == "function_calling":
        chunks.append({"tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]})
    chunks.append({"content": "", "usage": make_usage(300, 40, prices, latency=0.9),
                   "finish_reason": "tool_calls" if strategy == "function_calling" else "stop"})
    final = answer_turn(strategy, "Sunny in Paris.")
    final["usage"] = {"prompt_tokens": 500, "completion_tokens": 20}
    result = run([{"chunks": chunks}, final], query="Weather in Paris?", strategy=strategy, tools=[weather_tool()],
                 model={"pricing": PRICING})
    assert_clean(result, run)
    metadata = result.execution_metadata
    assert metadata["total_tokens"] == 340 + 520, metadata
    assert metadata["total_price"] == pytest.approx(300 * 2e-6 + 40 * 8e-6 + 500 * 2e-6 + 20 * 8e-6)
    assert metadata["currency"] == "USD" and float(metadata.get("latency") or 0) > 0, metadata


# --- what tools return -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify32812_a_document_a_tool_made_reaches_the_nodes_files(run, strategy):
    """langgenius/dify#32812 (1.13.0): the Agent node's tool generated a document (the file was in
    storage), but the reply node could not get it. A tool file sent as a ``binary_link`` (Dify's
    type for a tool's non-image file) reaches the node's files with its ``tool_file_id``; the
    model is told it was sent and is not handed a link to write."""
    url = "https://dify.example.com/files/tools/7c2e.docx?timestamp=1&nonce=n&sign=s"
    writer = tool_named("docx_writer", [{"type": "binary_link", "message": {"text": url},
                                         "meta": {"tool_file_id": "7c2e", "filename": "report.docx",
                                                  "mime_type": "application/vnd.openxmlformats-officedocument."
                                                               "wordprocessingml.document"}}])
    result = run([call_turn(strategy, "docx_writer", {"value": "report"}), answer_turn(strategy, "Your report is ready.")],
                 query="Write the report as Word.", strategy=strategy, tools=[writer])
    assert_clean(result, run)
    assert [f["meta"].get("tool_file_id") for f in result.files] == ["7c2e"]
    told = observations(result.llm_requests[1])[0]
    assert "report.docx" in told and url not in told, told


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify42114_a_binary_tool_output_is_a_file_not_text(run, strategy):
    """langgenius/dify#42114 (1.17.0): binary plugin tool outputs were stringified for the agent
    and the generated files were missing from the chat and the logs. A PDF sent as a ``blob``
    reaches the node's files byte for byte; the model reads its name, type and size, never its
    base64; the call's log names the file."""
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 8
    encoded = base64.b64encode(pdf).decode()
    maker = tool_named("pdf_maker", [{"type": "blob", "message": {"blob": encoded},
                                      "meta": {"mime_type": "application/pdf", "filename": "invoice.pdf"}}])
    result = run([call_turn(strategy, "pdf_maker", {"value": "invoice"}), answer_turn(strategy, "Invoice attached.")],
                 query="Make the invoice PDF.", strategy=strategy, tools=[maker])
    assert_clean(result, run)
    (sent,) = result.files
    assert base64.b64decode(sent["blob"]) == pdf and sent["meta"]["filename"] == "invoice.pdf"
    told = observations(result.llm_requests[1])[0]
    assert "invoice.pdf" in told and "application/pdf" in told and encoded[:64] not in prompt_text(result.llm_requests[1])
    (node,) = [n for n in result.logs.values() if n.label == "CALL pdf_maker"]
    assert "invoice.pdf" in json.dumps(node.data)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify39418_an_mcp_tools_text_and_structured_content_both_reach_the_model(run, strategy):
    """langgenius/dify#39418 (1.16.0): an MCP tool's result has ``content`` (text) and
    ``structuredContent`` (JSON); only the text came out of the tool. Dify's MCP tool sends the
    structured part as a JSON message beside the text: the model reads both."""
    wiki = tool_named("get_page", [text_message("Page 'Dify' found."),
                                   json_message({"title": "Dify", "revision": 4127, "latest": True})])
    result = run([call_turn(strategy, "get_page", {"value": "Dify"}), answer_turn(strategy, "Revision 4127.")],
                 query="Latest revision of the Dify page?", strategy=strategy, tools=[wiki])
    assert_clean(result, run)
    told = observations(result.llm_requests[1])[0]
    assert "Page 'Dify' found." in told and "4127" in told, told


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dpd309_a_tool_result_of_megabytes_reaches_the_model_shortened(run, strategy, longest_line):
    """langgenius/dify-plugin-daemon#309 (2025-05, MCP): when a tool returned a very large body,
    the agent received nothing and the run broke off (also langgenius/dify-plugin-daemon#423: a
    line over the daemon's 5 MB scanner limit, "bufio.Scanner: token too long", kills the plugin).
    An 8 MB result: the model reads its start with a note that it was shortened, every line the
    plugin writes fits the daemon, and the node answers."""
    big = "row: " + "data " * 1_600_000
    dump = tool_named("db_dump", [text_message(big)])
    result = run([call_turn(strategy, "db_dump", {"value": "all"}), answer_turn(strategy, "The table has many rows.")],
                 query="Dump the table.", strategy=strategy, tools=[dump], timeout=240)
    assert_clean(result, run)
    assert result.text == "The table has many rows."
    told = observations(result.llm_requests[1])[0]
    assert told.startswith("row: data") and 0 < len(told) < len(big)
    assert longest_line[0] < MAX_LINE_BYTES


def test_dify24847_the_calls_input_is_in_the_agent_log(run):
    """langgenius/dify#24847 (2025-08): the user needed the input the Agent node's tool call got
    (an MCP tool's parameters). The CALL node of the log holds the arguments as sent to the tool,
    and the result."""
    arguments = {"city": "Porto"}
    result = run([call_turn("function_calling", "get_weather", arguments), answer_turn("function_calling", "Sunny.")],
                 query="Weather in Porto?", tools=[weather_tool()])
    assert_clean(result, run)
    (node,) = [n for n in result.logs.values() if n.label == "CALL get_weather"]
    data = json.dumps(node.data, ensure_ascii=False)
    assert "Porto" in data and "Sunny, 21 C" in data
    assert result.tool_requests[0]["tool_parameters"] == arguments


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23042_the_answer_after_a_time_tool_is_the_nodes_text(run, strategy):
    """langgenius/dify#23042 (1.5.0, agent plugin 0.0.16/0.0.19, GPT-4o, Qwen-plus, Gemini 2.5
    Pro): in a workflow the Agent node with the current-time tool output only ``""`` as text.
    The answer after the real current-time tool, streamed a few characters a chunk, is the node's
    text, whole."""
    answer = "It is now past noon in Berlin, about 14:05."
    final = answer_turn(strategy, answer)
    final["split"] = 3
    result = run([call_turn(strategy, "current_time", {"timezone": "Europe/Berlin"}), final],
                 query="What time is it in Berlin?", strategy=strategy, tools=["current_time"])
    assert_clean(result, run)
    assert result.text == answer
    assert len(result.tool_requests) == 1


# --- time limits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify16120_a_model_that_never_finishes_ends_before_the_daemon_kills_it(run, strategy):
    """langgenius/dify#16120 (1.0.1, OpenAI-API-compatible; also langgenius/dify#15082): after
    about four minutes the node failed with "PluginDaemonInternalServerError: killed by timeout".
    A model stream that never ends, under a 6 s run limit (raised to the node's least, 10 s): the
    run ends before that limit, with a notice the user can read, and every log node finishes."""
    started = time.monotonic()
    result = run([{"chunks": [{"content": "Let me"}], "hang": True}], query="Summarise.", strategy=strategy,
                 params={"run_timeout": 6})
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    shown = (result.text or "") + (result.error_text or "")
    assert "time" in shown.lower(), shown
    assert_no_traceback(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify29783_the_daemons_execution_limit_bounds_the_run(strategy):
    """langgenius/dify#29783 (1.11.1; also langgenius/dify#26291): ``PLUGIN_MAX_EXECUTION_TIMEOUT``
    seemed not to apply; runs were cut elsewhere or went on. When the daemon's environment says 8
    s, a slow tool round leaves the run room for an answer, which comes before those 8 s."""

    def slow(params):
        time.sleep(3)
        yield text_message(f"page {params.get('value')}")

    tool = LocalTool(name="crawl", description="Slow crawl", parameters=[ToolParam("value")], handler=slow)
    toolbox = default_toolbox()
    toolbox.add(tool)
    backend = CallsUntilTold(strategy, answer="Crawled what time allowed.")
    with PluginProcess(DEFAULT_PLUGIN_DIR, env={"PLUGIN_MAX_EXECUTION_TIMEOUT": "8"}) as own:
        scenario = Scenario(query="Crawl five pages.", tools=["crawl"], strategy=strategy, maximum_iterations=10)
        started = time.monotonic()
        result = run_scenario(scenario, backend, toolbox, plugin=own, timeout=60)
        elapsed = time.monotonic() - started
    backend.release()
    toolbox.release()
    assert_clean_end(result)
    assert result.text == "Crawled what time allowed."
    assert len(result.tool_requests) < 5
    assert elapsed < 8, elapsed
