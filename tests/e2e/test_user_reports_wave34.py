"""Wave 34: a second set of Dify users' own bug reports about the Agent node and its strategies
(2024-2026), each reproduced through the real plugin process with scripted model turns and tools,
in both strategies where the report applies. Each test names its report in its docstring and
asserts what the user expected to see. The table is in docs/real-world-cases.md, "Users' reports
against agent strategies (wave 34)"; reports about Dify itself are listed there with why.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
import yaml

from local_runner.protocol import MAX_LINE_BYTES
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean,
    call_turn,
    observations,
    prompt_text,
    text_of,
    weather_tool,
)

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""The function-name pattern OpenAI, Groq and DeepSeek enforce on a declared tool."""


def tool_named(name: str, responses: list[dict], params: list[ToolParam] | None = None, **fields) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"The {name} tool",
                        parameters=params if params is not None else [ToolParam("value", required=False)],
                        responses=responses, **fields)


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith(" Thought")]


def texts(result) -> list[str]:
    return [m["message"]["text"] for m in result.messages if m["type"] == "text"]


# --- tool calls the provider or the tool refused -----------------------------------------------------


def test_dify32286_call_arguments_that_are_not_json_never_fail_the_node(run):
    """langgenius/dify#32286 (also langgenius/dify#32266; Dify Cloud 1.12.1, Function Calling with
    GPT-4.1): the Agent node broke one time in five with PluginInvokeError "1 validation error for
    dict[str,any] Invalid JSON: expected value at line 1 column 1 [input_value='key not found']":
    the call's arguments were not JSON. The model is told so and calls again; the node answers."""
    bad = {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": "key not found"}]}
    result = run([bad, call_turn("function_calling", "get_weather", {"city": "Paris"}, call_id="call_2"),
                  answer_turn("function_calling", "Sunny in Paris.")],
                 query="Weather in Paris?", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    told = observations(result.llm_requests[1])
    assert len(told) == 1 and "JSON" in told[0], told
    assert "ValidationError" not in json.dumps([n.data for n in result.logs.values()])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23134_an_mcp_tool_named_with_spaces_is_offered_and_runs(run, strategy):
    """langgenius/dify#23134 (1.7.1): a workflow published as an MCP server, "Test With Space",
    added to an Agent node: the tool's name, with spaces, broke the node (providers accept only
    ``^[a-zA-Z0-9_-]+$``). The tool is offered under a name providers take and runs under its own."""
    name = "Test With Space"
    tool = tool_named(name, [text_message("WORKFLOW-OK 42")])
    offered = name
    if strategy == "function_calling":  # the name the first request declares
        first = run([answer_turn(strategy, "Hello.")], query="Hi.", strategy=strategy, tools=[tool])
        (declared,) = first.llm_requests[0]["tools"]
        offered = declared["name"]
        assert PROVIDER_NAME.match(offered), offered
    result = run([call_turn(strategy, offered, {"value": "x"}), answer_turn(strategy, "The workflow said 42.")],
                 query="Run the workflow.", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert [r["tool"] for r in result.tool_requests] == [name]
    assert "WORKFLOW-OK 42" in observations(result.llm_requests[1])[0]
    assert result.text == "The workflow said 42."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify16208_a_select_parameter_is_offered_with_its_options_and_passed(run, strategy):
    """langgenius/dify#16208 (fixed in langgenius/dify-plugin-sdks#96, 2025-04): the Agent node
    could not pass a tool's ``select`` parameter. The options reach the model (an ``enum`` in
    Function Calling, the schema in ReAct's prompt) and the chosen value reaches the tool."""
    tool = ScriptedTool(name="convert", description="Convert a temperature", parameters=[
        ToolParam("value", type="number", description="degrees"),
        ToolParam("unit", type="select", options=("celsius", "fahrenheit"), description="target unit")],
        responses=[text_message("69.8")])
    result = run([call_turn(strategy, "convert", {"value": 21, "unit": "fahrenheit"}), answer_turn(strategy, "69.8 F.")],
                 query="21 C in F?", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    assert [r["tool_parameters"]["unit"] for r in result.tool_requests] == ["fahrenheit"]
    if strategy == "function_calling":
        (declared,) = result.llm_requests[0]["tools"]
        assert declared["parameters"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]
    else:
        assert "fahrenheit" in prompt_text(result.llm_requests[0])
    assert result.text == "69.8 F."


# --- what the model reads of a tool's result ------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2863_a_tool_result_reaches_the_model_once_without_a_wrapper(run, strategy):
    """langgenius/dify-official-plugins#2863 (2026-04; also langgenius/dify#19440, 1.3.1): the
    Agent node fed the same tool result back two or three times, "a raw string, followed by a
    JSON string, followed by a 'tool response' wrapper" (``{X}tool response: {X}``), tripling the
    tokens of the step. The model reads the result once."""
    rows = {"orders": [{"id": 7, "total": 129.5}, {"id": 8, "total": 12.0}]}
    db = tool_named("query_orders", [text_message(json.dumps(rows)), json_message(rows)])
    result = run([call_turn(strategy, "query_orders", {"value": "x"}), answer_turn(strategy, "Two orders.")],
                 query="List my orders.", strategy=strategy, tools=[db])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("129.5") == 1, seen
    assert "tool response" not in seen.lower()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18501_a_tool_answering_with_a_link_or_json_is_not_empty_to_the_model(run, strategy):
    """langgenius/dify#18501 (2025-04, GPT-4o): "Tool Returns No Results When Run By Agent": the
    call was made, but the agent saw an empty response. A tool that answers with a link message
    and a JSON message (no text) still gives the model both."""
    tool = tool_named("find_doc", [{"type": "link", "message": {"text": "https://docs.example.com/a/42"}},
                                   json_message({"title": "Refund policy", "pages": 3})])
    result = run([call_turn(strategy, "find_doc", {"value": "refunds"}), answer_turn(strategy, "See the refund policy.")],
                 query="Where is the refund policy?", strategy=strategy, tools=[tool])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert "https://docs.example.com/a/42" in seen and "Refund policy" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22618_a_base64_image_in_a_tools_json_does_not_flood_the_model(run, strategy):
    """langgenius/dify#22618 (1.5.1): an MCP tool returned a chart as
    ``{"img_base64": "data:image/png;base64,..."}`` and the app froze on it. The model never reads
    the image's bytes as text, and every line fits the daemon."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(200_000)).decode()
    chart = tool_named("make_chart", [json_message({"title": "Sales", "img_base64": f"data:image/png;base64,{png}"})])
    result = run([call_turn(strategy, "make_chart", {"value": "sales"}), answer_turn(strategy, "Here is the chart.")],
                 query="Chart my sales.", strategy=strategy, tools=[chart], timeout=120)
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert "Sales" in seen and png[:2000] not in seen
    assert len(json.dumps(result.llm_requests[1], ensure_ascii=False).encode()) < MAX_LINE_BYTES


# --- the answer: empty, placeholder, garbled ---------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify26464_a_blank_reply_in_a_loop_round_is_asked_again(run, strategy):
    """langgenius/dify#26464 (1.8.0): an Agent node (Function Calling) inside a loop with Exa
    search tools returned ``{"llm_response": "", "tool_responses": []}`` in some iterations. A
    reply of only blank lines after a tool round is not the answer: the model is asked again."""
    turns = [call_turn(strategy, "get_weather", {"city": "Paris"}), {"text": "\n\n  \n"},
             answer_turn(strategy, "Sunny in Paris.")]
    result = run(turns, query="Weather in Paris?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22183_the_answer_is_never_a_placeholder(run, strategy):
    """langgenius/dify#22183 (1.6.0; also langgenius/dify#18974 and
    junjiem/dify-plugin-agent-mcp_sse#46): the Agent node answered "I am thinking about how to
    help you" instead of calling the time tool: the strategy's placeholder for a round it could
    not read. A round that only thinks aloud is not shown as a placeholder; the tool runs when
    the model calls it, and the user reads the model's answer."""
    clock = tool_named("current_time", [text_message("2025-07-11 09:30")], params=[])
    thinking = ({"text": "Thought: The user wants the time; I should call current_time."} if strategy == "ReAct"
                else {"text": "<think>The user wants the time; I should call current_time.</think>"})
    turns = [thinking, call_turn(strategy, "current_time", {}), answer_turn(strategy, "It is 09:30.")]
    result = run(turns, query="What time is it?", strategy=strategy, tools=[clock])
    assert_clean(result, run)
    assert "I am thinking about how to help you" not in "".join(texts(result))
    assert result.text == "It is 09:30."
    assert len(result.tool_requests) == 1


CHINESE = "查询结果：共有 3 张表，分别是 users、orders 和 items。👍🏽 完成！"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23054_a_chinese_answer_after_a_database_tool_arrives_intact(run, strategy):
    """langgenius/dify#23054 (1.6, MySQL MCP server and DeepSeek): the agent's Chinese answers
    sometimes came out garbled, sometimes as "". Streamed one character a chunk, with an emoji
    and its skin-tone modifier in separate chunks, the answer reaches the user whole."""
    db = tool_named("mysql_query", [text_message("users\norders\nitems")])
    answer = answer_turn(strategy, CHINESE) | {"split": 1}
    result = run([call_turn(strategy, "mysql_query", {"value": "SHOW TABLES"}), answer],
                 query="数据库里有哪些表？", strategy=strategy, tools=[db])
    assert_clean(result, run)
    assert result.text == CHINESE
    assert "\ufffd" not in "".join(texts(result))


def test_mcp_sse109_a_chinese_react_final_answer_is_not_cut_at_its_end(run):
    """junjiem/dify-plugin-agent-mcp_sse#109 (Dify 1.4.2, ReAct, Qwen3-30B-A3B): the Chinese text
    of the last round turned into garbled characters at its end. Chinese labels, the answer
    streamed a character a chunk: the answer ends as the model wrote it."""
    reply = "思考：我已经拿到结果了。\n最终答案：" + CHINESE
    result = run([call_turn("ReAct", "get_weather", {"city": "北京"}), {"text": reply, "split": 1}],
                 query="北京天气？", strategy="ReAct", tools=[weather_tool("晴，21 度")])
    assert_clean(result, run)
    assert result.text == CHINESE


# --- reasoning kept apart -------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify27796_thinking_of_several_rounds_is_not_nested_into_the_answer(run, strategy):
    """langgenius/dify#27796 (1.9.1): with multi-round calls, the "thinking" part of each round was
    nested inside the next, layer by layer, until the final answer could not be output. Each
    round's reasoning stays in its own Thought node; the answer is shown alone."""
    turns = [call_turn(strategy, "get_weather", {"city": "Paris"}, call_id="c1", before="<think>R1: Paris first.</think>"),
             call_turn(strategy, "get_weather", {"city": "Rome"}, call_id="c2", before="<think>R2: now Rome.</think>"),
             answer_turn(strategy, "Both sunny.")]
    turns[2]["text"] = "<think>R3: summarise.</think>" + turns[2]["text"]
    result = run(turns, query="Paris and Rome?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Both sunny."
    reasoning = [str(n.data.get("reasoning", "")) for n in thoughts(result)]
    assert len(reasoning) == 3
    for n, text in enumerate(reasoning, start=1):
        assert f"R{n}:" in text and all(f"R{m}:" not in text for m in range(1, 4) if m != n), reasoning


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2586_a_closing_think_tag_split_across_chunks_still_ends_the_reasoning(run, strategy):
    """langgenius/dify-official-plugins#2586 (1.12.1, DeepSeek-V3.2 INT4): the final part of the
    answer was put inside the thought box. The reply's ``</think>`` arrives split over two chunks
    (``</thi`` + ``nk>``): the reasoning ends there, the answer is outside it."""
    answer = answer_turn(strategy, "The answer is 42.")["text"]
    turns = [{"chunks": [{"content": "<think>Work it out.</thi"}, {"content": f"nk>\n{answer}"}]}]
    result = run(turns, query="What is 6 x 7?", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "The answer is 42."
    assert "Work it out." in str(thoughts(result)[-1].data.get("reasoning", ""))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop3000_reasoning_of_every_round_stays_out_of_the_memory_answer(run, strategy):
    """langgenius/dify-official-plugins#3000 (1.13.0, OpenAI-API-compatible): in an agent
    conversation each call (planning, then the answer after the tool) wrote a ``<think>`` block,
    and only the first was stripped from the history: the reasoning leaked into later turns. The
    answer (what memory keeps) holds no reasoning, and an assistant turn in memory that holds two
    blocks reaches the model without them."""
    history = [{"role": "user", "content": "Weather in Oslo?"},
               {"role": "assistant", "content": "<think>plan: call it</think>Let me check.<think>it said rain</think>"
                                                "Rain in Oslo."}]
    turns = [call_turn(strategy, "get_weather", {"city": "Paris"}, before="<think>plan again</think>"),
             answer_turn(strategy, "Sunny in Paris.")]
    turns[1]["text"] = "<think>it said sunny</think>" + turns[1]["text"]
    result = run(turns, query="And Paris?", strategy=strategy, history=history, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    remembered = [text_of(m["content"]) for m in result.llm_requests[0]["prompt_messages"] if m["role"] == "assistant"]
    assert any("Rain in Oslo." in text for text in remembered), remembered
    assert not any("it said rain" in text or "plan: call it" in text for text in remembered), remembered


# --- memory ----------------------------------------------------------------------------------------------


def test_dify19479_both_strategies_declare_memory(run):
    """langgenius/dify#19479 (1.3.1): the agent strategy lacked the memory option in the node's
    form, because the strategy did not declare the ``history-messages`` feature. Both strategies
    declare it, and the memory Dify passes reaches the model."""
    for name in ("function_calling", "react"):
        declared = yaml.safe_load((ROOT / "strategies" / f"{name}.yaml").read_text(encoding="utf-8"))
        assert "history-messages" in declared.get("features", []), name
    history = [{"role": "user", "content": "My name is Ana."}, {"role": "assistant", "content": "Hello Ana."}]
    for strategy in STRATEGIES:
        result = run([answer_turn(strategy, "Ana.")], query="What is my name?", strategy=strategy, history=history)
        assert_clean(result, run)
        assert "My name is Ana." in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify36717_a_long_previous_answer_in_memory_does_not_empty_the_next(run, strategy):
    """langgenius/dify#36717 (2026-05): a chatflow Agent node returned empty output while a
    previous long reply stayed in the memory window (raising the daemon's buffer to 2 MB did not
    help). A 6 MB answer in memory: the request fits a daemon line and the node answers."""
    history = [{"role": "user", "content": "Write the full report."},
               {"role": "assistant", "content": "Section text. " * 450_000},
               ]
    result = run([answer_turn(strategy, "It covered every region.")], query="Summarise it in one line.",
                 strategy=strategy, history=history, timeout=240)
    assert_clean(result, run)
    assert result.text == "It covered every region."
    assert len(json.dumps(result.llm_requests[0], ensure_ascii=False).encode()) < MAX_LINE_BYTES


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify30195_the_third_turn_of_a_conversation_does_not_stay_running(run, strategy):
    """langgenius/dify#30195 (1.10.1-fix; also langgenius/dify#19664, 1.2.1): after about two rounds
    of input, the third left the node in the Running state with an empty result. A third turn,
    memory holding two turns with tool calls: every log node finishes and the node answers."""
    history = []
    for n, city in enumerate(["Paris", "Rome"]):
        history += [{"role": "user", "content": f"Weather in {city}?"},
                    {"role": "assistant", "content": "",
                     "tool_calls": [{"id": f"h{n}", "name": "get_weather", "arguments": {"city": city}}]},
                    {"role": "tool", "content": "Sunny, 21 C", "tool_call_id": f"h{n}", "name": "get_weather"},
                    {"role": "assistant", "content": f"Sunny in {city}."}]
    result = run([call_turn(strategy, "get_weather", {"city": "Oslo"}), answer_turn(strategy, "Sunny in Oslo.")],
                 query="And Oslo?", strategy=strategy, history=history, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Oslo."
    assert all(n.status in ("success", "error") for n in result.logs.values())


# --- files and images ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify28089_a_tool_with_a_file_parameter_does_not_stop_the_agent(run, strategy):
    """langgenius/dify#28089 (1.9.2, Function Calling, GPT-5): an Agent node did not run at all
    once one of its tools took a file input. The node runs: the tool is still offered (its file
    parameter is not one the model can fill), the other tools work, and the node answers."""
    ocr = ScriptedTool(name="ocr", description="Read the text of a document", parameters=[
        ToolParam("document", type="file", description="the document"), ToolParam("lang", description="language")],
        responses=[text_message("INVOICE 2291")])
    result = run([call_turn(strategy, "get_weather", {"city": "Paris"}), answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", strategy=strategy, tools=[ocr, weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    if strategy == "function_calling":
        declared = {t["name"]: t for t in result.llm_requests[0]["tools"]}
        assert set(declared) == {"ocr", "get_weather"}
        assert "document" not in declared["ocr"]["parameters"]["properties"]
    else:
        assert "ocr" in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify33081_a_file_set_in_the_nodes_form_reaches_the_workflow_tool(run, strategy):
    """langgenius/dify#33081 (1.9.2): an agent with a workflow tool that needs a file kept asking
    the user for the file, though the file was configured for the tool in the node. A file
    parameter set in the node's form reaches the tool with the call, as Dify gave it; the model
    fills only the other parameters."""
    document = {"dify_model_identity": "__dify__file__", "type": "document", "transfer_method": "local_file",
                "related_id": "f-77", "filename": "contract.pdf", "extension": ".pdf",
                "mime_type": "application/pdf", "size": 52_000, "url": "https://files.example.com/f-77"}
    workflow = ScriptedTool(name="review_contract", description="Review a contract", parameters=[
        ToolParam("contract", type="file", form="form", description="the contract"),
        ToolParam("focus", description="what to check")],
        responses=[text_message("No issues in clause 4.")], runtime_parameters={"contract": document})
    result = run([call_turn(strategy, "review_contract", {"focus": "clause 4"}), answer_turn(strategy, "Clause 4 is fine.")],
                 query="Check clause 4 of the contract.", strategy=strategy, tools=[workflow])
    assert_clean(result, run)
    (request,) = result.tool_requests
    assert request["tool_parameters"]["focus"] == "clause 4"
    assert request["tool_parameters"]["contract"]["related_id"] == "f-77"
    assert result.text == "Clause 4 is fine."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19188_an_image_message_from_dalle_reaches_the_nodes_files(run, strategy):
    """langgenius/dify#19188 (1.3.1, gpt-4o-mini with the DALL-E tool): the node ran with a success
    message and no image. A tool answering with an ``image`` message (an address): the picture
    is forwarded to the node's files, and the model is told it was shown."""
    url = "https://files.example.com/files/tools/9a1f.png?timestamp=1&sign=s"
    dalle = tool_named("dalle3", [{"type": "image", "message": {"text": url},
                                   "meta": {"tool_file_id": "9a1f", "mime_type": "image/png"}}])
    result = run([call_turn(strategy, "dalle3", {"value": "a cat"}), answer_turn(strategy, "Here is your cat.")],
                 query="Draw a cat.", strategy=strategy, tools=[dalle])
    assert_clean(result, run)
    assert len(result.files) == 1 and url in json.dumps(result.files[0])
    assert observations(result.llm_requests[1])[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify29310_every_generated_image_is_shown_not_only_some(run, strategy):
    """langgenius/dify#29310 (1.10.1-fix): an image tool (Banana) called by the agent succeeded in
    the logs, but "sometimes the tool result is not displayed". Two images from two calls: both
    reach the node's files, in call order."""
    def painter(params):
        name = params.get("value", "x")
        yield {"type": "image_link", "message": {"text": f"https://files.example.com/files/tools/{name}.png"},
               "meta": {"tool_file_id": name, "filename": f"{name}.png"}}
        yield text_message(f"image {name} created")

    tool = LocalTool(name="banana", description="Make an image", parameters=[ToolParam("value")], handler=painter)
    if strategy == "ReAct":
        turns = [call_turn(strategy, "banana", {"value": "first"}), call_turn(strategy, "banana", {"value": "second"})]
    else:
        turns = [{"tool_calls": [{"id": "c1", "name": "banana", "arguments": {"value": "first"}},
                                 {"id": "c2", "name": "banana", "arguments": {"value": "second"}}]}]
    result = run([*turns, answer_turn(strategy, "Two images.")], query="Two images please.", strategy=strategy,
                 tools=[tool])
    assert_clean(result, run)
    assert [f["meta"]["tool_file_id"] for f in result.files] == ["first", "second"]


# --- limits, usage -------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22196_a_tool_past_its_time_limit_is_an_observation_not_a_dead_run(run, strategy):
    """langgenius/dify#22196 (1.4-1.5): an Agent node whose workflow tool ran longer than 250 s
    failed with "tool invoke error: invocation exited without response". Here the tool time
    limit is 2 s and the tool takes 6 s: the model is told it timed out and answers in time."""
    slow = tool_named("long_workflow", [text_message("done")], latency=6)
    result = run([call_turn(strategy, "long_workflow", {"value": "x"}), answer_turn(strategy, "The workflow is still running.")],
                 query="Run the long workflow.", strategy=strategy, tools=[slow], params={"tool_timeout": 2})
    assert_clean(result, run)
    assert result.text == "The workflow is still running."
    (seen,) = observations(result.llm_requests[1])
    assert "time" in seen.lower(), seen
    assert result.duration < 6


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify12778_a_model_that_repeats_its_call_is_stopped_before_the_limit(run, strategy):
    """langgenius/dify#12778 (0.15, DeepSeek V3): with DeepSeek V3 the agent repeated its tool call
    until the maximum iterations were used up. The fourth identical call with the same result is
    refused and the model is asked to answer: three calls, not ten."""
    same = tool_named("search", [text_message("no results")])
    turns = [call_turn(strategy, "search", {"value": "dify"}, call_id=f"c{n}") for n in range(4)]
    result = run([*turns, answer_turn(strategy, "Nothing was found.")], query="Search dify.", strategy=strategy,
                 tools=[same], maximum_iterations=10)
    assert_clean(result, run)
    assert len(result.tool_requests) == 3
    assert result.text == "Nothing was found."


PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "USD"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify6687_the_price_counts_every_round_up_to_the_forced_answer(run, strategy):
    """langgenius/dify#6687 (0.6.15): in a multi-iteration agent run the usage's ``total_price``
    reflected only the first iteration. Two tool rounds hit Maximum Iterations 2, then the model
    is asked for the answer: the node's price is the sum of all three calls, in USD."""
    reports = [(400, 50), (700, 60), (900, 20)]
    turns = [call_turn(strategy, "get_weather", {"city": "Paris"}, call_id="c1"),
             call_turn(strategy, "get_weather", {"city": "Rome"}, call_id="c2"),
             answer_turn(strategy, "Both sunny.")]
    for turn, (prompt, completion) in zip(turns, reports, strict=True):
        turn["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
    result = run(turns, query="Paris and Rome?", strategy=strategy, tools=[weather_tool()], maximum_iterations=2,
                 model={"pricing": PRICING})
    assert_clean(result, run)
    metadata = result.execution_metadata
    assert metadata["total_tokens"] == sum(p + c for p, c in reports)
    assert metadata["total_price"] == pytest.approx(sum(p * 2e-6 + c * 8e-6 for p, c in reports))
    assert metadata["currency"] == "USD"


# --- the strategies' own declarations ------------------------------------------------------------------


def test_dop1987_every_select_parameter_of_the_strategies_has_options():
    """langgenius/dify-official-plugins#1987 (1.7.1): a ``select`` parameter in an agent strategy's
    YAML broke the Agent node's form (its options' shape), and without options it showed nothing
    to pick. Every ``select`` the strategies declare has options, each with a value and a label."""
    for name in ("function_calling", "react"):
        declared = yaml.safe_load((ROOT / "strategies" / f"{name}.yaml").read_text(encoding="utf-8"))
        for parameter in declared["parameters"]:
            if parameter.get("type") != "select":
                continue
            options = parameter.get("options") or []
            assert options, (name, parameter["name"])
            for option in options:
                assert isinstance(option.get("value"), str) and option.get("label", {}).get("en_US"), option
