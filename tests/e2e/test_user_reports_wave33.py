"""Wave 33: Dify users' own bug reports about the Agent node and its strategies (2025-2026),
each reproduced through the real plugin process with scripted model turns and tools, in both
strategies where the report applies. Each test names its report in its docstring and asserts
what the user expected to see. The table is in docs/real-world-cases.md, "Users' reports
against agent strategies (wave 33)"; reports about Dify itself are listed there with why.
"""

from __future__ import annotations

import base64
import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK
from local_runner.protocol import MAX_LINE_BYTES
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    observations,
    prompt_text,
    text_of,
    weather_tool,
)

VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision"]
NO_VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought"]
IMAGE = {"url": "https://example.com/uploads/cat.png", "mime_type": "image/png", "filename": "cat.png", "size": 2048}


def call_turn(strategy: str, city: str = "Paris", *, before: str = "", call_id: str = "call_1") -> dict:
    """A round that calls ``get_weather(city)`` in the strategy's own format, after ``before``."""
    if strategy == "ReAct":
        action = json.dumps({"action": "get_weather", "action_input": {"city": city}})
        return {"text": f"{before}Thought: I need the weather.\nAction:\n```json\n{action}\n```"}
    return {"text": before, "tool_calls": [{"id": call_id, "name": "get_weather", "arguments": {"city": city}}]}


def tool_named(name: str, responses: list[dict], **fields) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"The {name} tool", parameters=[ToolParam("value", required=False)],
                        responses=responses, **fields)


def call_named(strategy: str, name: str) -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": name, "action_input": {"value": "x"}})
        return {"text": f"Thought: I will use {name}.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "call_1", "name": name, "arguments": {"value": "x"}}]}


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith(" Thought")]


def calls(result, name: str = "get_weather") -> list:
    return [n for n in result.logs.values() if n.label == f"CALL {name}"]


def run_contract(plugin, contract: str, strategy: str, **model_fields):
    """The calculator question against one official model plugin's contract backend."""
    backend = CONTRACTS[contract](shape="stream")
    model = ModelSettings(**{**CONTRACTS[contract].model_settings(stream=True), **model_fields})
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy=strategy, model=model)
    return backend, run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)


# --- reasoning shown, answer missing --------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify38360_thinking_mode_on_still_gives_the_respond_node_an_answer(run, strategy):
    """langgenius/dify#38360 (v1.15.0): Function Calling with the model's thinking mode on, the
    Respond node got no output from the Agent node; with thinking off it did. With thinking on,
    the chat template opens ``<think>`` in the prompt, so the reply starts inside the reasoning
    and only a bare ``</think>`` marks where the answer starts."""
    answer = answer_turn(strategy, "Sunny in Paris.")["text"]
    turns = [call_turn(strategy, before="The user wants Paris.\n</think>\n\n"),
             {"text": f"The tool said sunny.\n</think>\n\n{answer}", "split": 4}]
    result = run(turns, query="Weather in Paris?", strategy=strategy, tools=[weather_tool()],
                 model={"completion_params": {"enable_thinking": True, "max_tokens": 1024}})
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    assert "The tool said sunny." in thoughts(result)[-1].data["reasoning"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify38033_a_deep_thinking_model_answers_without_its_thought_chain(run, strategy):
    """langgenius/dify#38033 (1.14.2): Function Calling with a deep-thinking model, the output
    held the ``<think>`` chain and the response together; the user asked for the reasoning to
    be kept apart as the LLM node does."""
    turns = [call_turn(strategy, before="<think>Look up Paris first.</think>"),
             answer_turn(strategy, "Sunny, 21 C.")]
    turns[1]["text"] = "<think>The tool answered; summarise.</think>\n" + turns[1]["text"]
    turns[1]["split"] = 3
    result = run(turns, query="Weather in Paris?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny, 21 C."
    reasoning = " ".join(str(n.data.get("reasoning", "")) for n in thoughts(result))
    assert "Look up Paris first." in reasoning and "summarise" in reasoning


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify28144_gemini_thinking_tokens_never_reach_the_output(plugin, strategy):
    """langgenius/dify#28144 (1.9.2, Gemini plugin 0.5.11): Function Calling with Gemini, the
    output sometimes held the thinking tokens, and the Agent node has no reasoning-separation
    switch. Played against the Gemini plugin's contract (thoughts streamed as a ``<think>``
    block around the function call)."""
    backend, result = run_contract(plugin, "gemini", strategy)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and REASONING_MARK not in result.text and "<think>" not in result.text


# --- what a model plugin needs back --------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2168_gemini_3_gets_its_thought_signature_back(plugin, strategy):
    """langgenius/dify-official-plugins#2168 (Dify 1.10.0): Function Calling with Gemini 3 Pro
    Preview failed in round 2 with "Function call is missing a thought_signature in
    functionCall parts". The contract refuses any round whose calls lost their signature."""
    backend, result = run_contract(plugin, "gemini", strategy)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert len(backend.requests) == 2 and "3367" in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2297_deepseek_v3_2_thinking_on_volcengine_gets_its_reasoning_back(plugin, strategy):
    """langgenius/dify-official-plugins#2297 (Dify 1.11.1, plugin 0.0.37): an Agent node with a
    tool and DeepSeek V3.2 in thinking mode on Volcengine Ark failed with ArkBadRequestError 400:
    Ark requires the ``reasoning_content`` of an assistant tool-call turn back, unchanged."""
    backend, result = run_contract(plugin, "volcengine_maas", strategy, model="deepseek-v3-2-251201")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and "<think>" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2304_deepseek_v3_2_thinking_on_siliconflow_runs_its_tool_round(plugin, strategy):
    """langgenius/dify-official-plugins#2304 (Dify 1.11.1, plugin 0.0.38): an Agent node with
    Pro/deepseek-ai/DeepSeek-V3.2 on SiliconFlow in thinking mode failed with a 400 on the
    request after the tool call. Played against the SiliconFlow plugin's contract: the round
    goes back with its reasoning block whole and its call ids."""
    backend, result = run_contract(plugin, "siliconflow", strategy, model="Pro/deepseek-ai/DeepSeek-V3.2")
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text and "<think>" not in result.text


# --- tool calls lost, broken or shown ------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19329_a_call_written_as_text_runs_instead_of_being_the_answer(run, strategy):
    """langgenius/dify#19329 (1.2.0): the Agent node returned only the call format instead of
    calling the tool. A model served without its tool parser writes the call as text."""
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    result = run([{"text": call, "split": 6}, answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop3342_truncated_call_arguments_do_not_crash_the_run(run, strategy):
    """langgenius/dify-official-plugins#3342 (2026-06): Function Calling crashed with a raw
    JSONDecodeError on truncated tool-call arguments, and the downstream Variable Assigner then
    failed with "Variable not found". The user asked for the run to survive and say why."""
    if strategy == "ReAct":
        bad = {"text": 'Thought: look it up.\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "Par'}
    else:
        bad = {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city": "Par'}]}
    result = run([bad, call_turn(strategy, call_id="call_2"), answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert "JSONDecodeError" not in json.dumps([n.data for n in result.logs.values()])


def test_dify31034_react_runs_the_action_instead_of_the_answer_it_invented(run):
    """langgenius/dify#31034 (1.11.3): with the official ReAct strategy the agent "cannot complete
    the reflection and iteration and directly outputs the result after one step", while
    Function Calling iterated. A model that writes its own Observation and a Final Answer after
    its Action: the action runs, and the invented observation is not the answer."""
    reply = ('Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
             "Observation: It is snowing heavily.\nThought: I know it.\nFinal Answer: It is snowing in Paris.")
    result = run([{"text": reply, "split": 9}, answer_turn("ReAct", "Sunny, 21 C in Paris.")],
                 query="Weather in Paris?", strategy="ReAct", tools=[weather_tool()])
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny, 21 C in Paris."
    assert "snowing" not in result.text
    assert observations(result.llm_requests[1])[-1].startswith("Sunny, 21 C")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify31247_the_same_tool_called_twice_shows_both_calls_in_the_log(run, strategy):
    """langgenius/dify#31247 (1.11.4): the same tool invoked twice in one agent run; the answer
    used both results, but the UI and the events showed only the second invocation."""
    turns = [call_turn(strategy, "Paris", call_id="c1"), call_turn(strategy, "Rome", call_id="c2"),
             answer_turn(strategy, "Paris and Rome are sunny.")]
    result = run(turns, query="Weather in Paris and Rome?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    nodes = calls(result)
    assert len(nodes) == 2 and len({n.id for n in nodes}) == 2
    logged = [json.dumps(n.data, ensure_ascii=False) for n in nodes]
    assert "Paris" in logged[0] and "Rome" in logged[1]
    assert all(n.status == "success" for n in nodes)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify22896_a_failing_tool_does_not_leave_the_node_running(run, strategy):
    """langgenius/dify#22896 (1.7.0, agent plugin 0.0.22): in a workflow, an Agent node whose tool
    failed at run time stayed in the Running state with no output."""
    broken = ScriptedTool(name="get_weather", description="Weather", parameters=[ToolParam("city")],
                          error="upstream service returned 502")
    result = run([call_turn(strategy), answer_turn(strategy, "The weather service is down.")],
                 query="Weather in Paris?", strategy=strategy, tools=[broken])
    assert_clean(result, run)
    assert result.text == "The weather service is down."
    assert "502" in prompt_text(result.llm_requests[1])
    (node,) = calls(result)
    assert node.status == "error"


# --- the answer twice, the answer empty ---------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify17265_the_answer_is_shown_once_after_a_workflow_tool(run, strategy):
    """langgenius/dify#17265 (0.15.3 and 1.1.3): an agent calling a workflow published as a tool
    replied twice: the first response, then the tool's response once more. The tool's text is
    for the model; the user reads the model's answer, once."""
    workflow = tool_named("summarise", [text_message("SUMMARY-7: revenue grew 12%."),
                                        json_message({"text": "SUMMARY-7: revenue grew 12%."})])
    result = run([call_named(strategy, "summarise"), answer_turn(strategy, "Revenue grew 12%.")],
                 query="Summarise the report.", strategy=strategy, tools=[workflow])
    assert_clean(result, run)
    assert result.text == "Revenue grew 12%."
    assert "SUMMARY-7" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19937_a_workflow_tools_result_reaches_the_model_once(run, strategy):
    """langgenius/dify#19937 (1.4.0): a workflow used as a tool returned its JSON object twice
    (``{table_output, target_output}`` repeated), as a text message and a JSON message."""
    value = {"table_output": [{"a": 1}], "target_output": [{"b": 2}]}
    workflow = tool_named("report", [text_message(json.dumps(value)), json_message(value)])
    result = run([call_named(strategy, "report"), answer_turn(strategy, "Done.")],
                 query="Build the report.", strategy=strategy, tools=[workflow])
    assert_clean(result, run)
    (seen,) = observations(result.llm_requests[1])
    assert seen.count("table_output") == 1 and seen.count("target_output") == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify34446_an_empty_reply_is_asked_again_not_passed_on_as_the_output(run, strategy):
    """langgenius/dify#34446 (1.9.1): calling an Agent node gave no output result: the node
    succeeded with an empty ``text`` (the stream's final chunk was empty)."""
    result = run([call_turn(strategy), {"text": ""}, answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop1703_the_answer_streams_in_pieces_as_it_arrives(run, strategy):
    """langgenius/dify-official-plugins#1703 (2025-09): in a chatflow the Agent node "outputs all
    the content at once" instead of streaming. The strategy yields the answer as the model
    writes it, before the run ends."""
    answer = "The X1 battery lasts fourteen hours on one charge, and it charges fully in two."
    result = run([answer_turn(strategy, answer) | {"split": 5}], query="Battery life?", strategy=strategy)
    assert_clean(result, run)
    pieces = [m for m in result.messages if m["type"] == "text"]
    assert result.text == answer and len(pieces) >= 5
    ended = max(i for i, m in enumerate(result.messages) if m["type"] == "json")
    assert max(i for i, m in enumerate(result.messages) if m["type"] == "text") < ended


# --- memory, instruction, knowledge ---------------------------------------------------------------------


MEMORY = [
    {"role": "user", "content": "Time"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "h1", "name": "current_time", "arguments": {}}]},
    {"role": "tool", "content": "2025-04-15 01:46:42", "tool_call_id": "h1", "name": "current_time"},
    {"role": "assistant", "content": "The current time is 2025-04-15 01:46:42."},
]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify18048_memory_holds_the_last_answer(run, strategy):
    """langgenius/dify#18048 (1.2.0, agent plugin 0.0.14): with memory on, "repeat last answer
    without using tool" got "The current time is not available": the Agent node's memory did
    not hold the previous answer."""
    clock = tool_named("current_time", [text_message("2025-04-15 02:01:00")])
    result = run([answer_turn(strategy, "The current time is 2025-04-15 01:46:42.")],
                 query="Repeat your last answer without using a tool.", strategy=strategy, history=MEMORY,
                 tools=[clock])
    assert_clean(result, run)
    prompt = result.llm_requests[0]["prompt_messages"]
    answered = [text_of(m["content"]) for m in prompt if m["role"] == "assistant"]
    assert any("The current time is 2025-04-15 01:46:42." in text for text in answered), answered
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify14630_the_instruction_leads_the_system_prompt(run, strategy):
    """langgenius/dify#14630 (1.0.0): with the ReAct strategy and deepseek-v3, the Instruction
    "Regardless of the user's question, return the user's input as the response." was not
    followed. The instruction must reach the model first, above the strategy's own text."""
    instruction = "Regardless of the user's question, return the user's input as the response."
    query = "Output a bar chart with data A:3 B:4 C:2.5"
    result = run([answer_turn(strategy, query)], query=query, strategy=strategy, instruction=instruction,
                 tools=[weather_tool()])
    assert_clean(result, run)
    (system,) = [m for m in result.llm_requests[0]["prompt_messages"] if m["role"] == "system"]
    assert text_of(system["content"]).startswith(instruction)
    assert result.text == query


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify23510_bound_knowledge_context_reaches_the_model(run, strategy):
    """langgenius/dify#23510 (1.9.1, agent strategies 0.0.23+): the Context input of a Function
    Calling Agent node, when bound, was ignored in the answer."""
    context = [{"content": "Store hours are 9:00 to 17:30 on weekdays.", "title": "hours.md",
                "metadata": {"_source": "knowledge", "position": 1, "dataset_id": "d1", "dataset_name": "FAQ",
                             "document_id": "doc1", "document_name": "hours.md", "segment_id": "s1", "score": 0.9}}]
    result = run([call_turn(strategy), answer_turn(strategy, "We open at 9:00.")], query="When do you open?",
                 strategy=strategy, context=context, tools=[weather_tool()])
    assert_clean(result, run)
    for request in result.llm_requests:
        assert "9:00 to 17:30" in prompt_text(request)
    assert [r["document_name"] for r in result.retriever_resources] == ["hours.md"]


# --- files and images ----------------------------------------------------------------------------------


def image_parts(request: dict) -> list[dict]:
    return [part for m in request["prompt_messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for part in m["content"] if part.get("type") == "image"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop2888_an_uploaded_image_is_seen_in_the_first_turn(run, strategy):
    """langgenius/dify-official-plugins#2888 (Dify 1.13.3, agent strategy 0.0.34, Sonnet 4.6):
    the Function Calling Agent node answered an image with "I cannot recognize it" in the first
    turn and only recognised it when asked again."""
    result = run([answer_turn(strategy, "A cat.")], query="What is this?", strategy=strategy, files=[IMAGE],
                 model={"features": VISION})
    assert_clean(result, run)
    assert [p["url"] for p in image_parts(result.llm_requests[0])] == [IMAGE["url"]]


HISTORY_IMAGE = {"type": "image", "url": "https://example.com/uploads/old.png", "format": "png",
                 "mime_type": "image/png", "filename": "old.png", "base64_data": "", "detail": "low"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify21798_an_image_in_memory_never_reaches_a_model_without_vision(run, strategy):
    """langgenius/dify#21798 (also langgenius/dify-official-plugins#1190, 1.5.0): a chatflow with
    image upload, an Agent node on DeepSeek V3 (no vision) and memory on: after an image was
    uploaded, every follow-up message failed with "One or more parameters specified in the
    request are not valid"."""
    history = [{"role": "user", "content": [{"type": "text", "data": "Look at this."}, HISTORY_IMAGE]},
               {"role": "assistant", "content": "I cannot see images."}]
    result = run([answer_turn(strategy, "Hello again.")], query="Hi again.", strategy=strategy, history=history,
                 model={"features": NO_VISION})
    assert_clean(result, run)
    assert image_parts(result.llm_requests[0]) == []
    assert "[Attached image: old.png (image/png)]" in prompt_text(result.llm_requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify17531_a_chart_a_tool_made_reaches_the_answer(run, strategy):
    """langgenius/dify#17531 (1.1.3): the line chart a chart tool made in the Agent node (model
    Deepseek-v3) could not be passed to the Answer node."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
    chart = tool_named("line_chart", [{"type": "blob", "message": {"blob": base64.b64encode(png).decode()},
                                       "meta": {"mime_type": "image/png", "filename": "chart.png"}}])
    result = run([call_named(strategy, "line_chart"), answer_turn(strategy, "Here is your chart.")],
                 query="Chart A:3 B:4.", strategy=strategy, tools=[chart])
    assert_clean(result, run)
    (sent,) = result.files
    assert base64.b64decode(sent["blob"]) == png and sent["meta"]["mime_type"] == "image/png"
    assert "chart.png" in observations(result.llm_requests[1])[0]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify15359_a_generated_image_reaches_the_nodes_files(run, strategy):
    """langgenius/dify#15359 (1.0.0): a DALL-E 3 tool alone showed its picture; inside an Agent
    node the output was empty, "no message in files", though the picture was generated."""
    url = "https://upload.example.com/files/tools/5d1e.png?timestamp=1&sign=s"
    dalle = tool_named("dalle3", [{"type": "image_link", "message": {"text": url},
                                   "meta": {"tool_file_id": "5d1e", "filename": "dalle.png"}}])
    result = run([call_named(strategy, "dalle3"), answer_turn(strategy, "Here is the picture.")],
                 query="Draw a cat.", strategy=strategy, tools=[dalle])
    assert_clean(result, run)
    assert [(f["type"], f["text"], f["meta"]["tool_file_id"]) for f in result.files] == [("image_link", url, "5d1e")]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify37060_a_file_a_tool_made_lands_in_the_nodes_files(run, strategy):
    """langgenius/dify#37060 (2026-06): an MCP tool generates an Excel file; the user wanted it in
    the Agent node's ``files`` output so the Answer node and the web app show it."""
    data = b"PK\x03\x04 fake xlsx"
    mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    excel = tool_named("make_excel", [{"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
                                       "meta": {"mime_type": mime, "filename": "report.xlsx"}}])
    result = run([call_named(strategy, "make_excel"), answer_turn(strategy, "Your file is ready.")],
                 query="Export the table.", strategy=strategy, tools=[excel])
    assert_clean(result, run)
    (sent,) = result.files
    assert base64.b64decode(sent["blob"]) == data
    assert sent["meta"]["mime_type"] == mime and sent["meta"]["filename"] == "report.xlsx"
    assert base64.b64encode(data).decode() not in prompt_text(result.llm_requests[1])


# --- usage ---------------------------------------------------------------------------------------------


PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "USD"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20485_the_nodes_usage_is_not_zero(run, strategy):
    """langgenius/dify#20485 (1.3.1): an Agent node with Function Calling showed total_tokens,
    answer_tokens and message_tokens all 0 in Tracing, though it answered."""
    turns = [call_turn(strategy) | {"usage": {"prompt_tokens": 120, "completion_tokens": 15}},
             answer_turn(strategy, "Sunny.") | {"usage": {"prompt_tokens": 160, "completion_tokens": 5}}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    metadata = result.execution_metadata
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (280, 20, 300)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify21782_the_nodes_price_counts_every_round(run, strategy):
    """langgenius/dify#21782 (1.5.0): the app's monitoring could not track the Agent node's token
    consumption, "the main cost comes from the agent's internal reasoning". Every model call of
    the run is in the node's usage and price, each round's in its own Thought node."""
    reports = [(500, 300), (900, 400), (1300, 60)]
    turns = [call_turn(strategy, "Paris", call_id="c1"), call_turn(strategy, "Rome", call_id="c2"),
             answer_turn(strategy, "Both sunny.")]
    for turn, (prompt, completion) in zip(turns, reports, strict=True):
        turn["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
    result = run(turns, query="Paris and Rome?", strategy=strategy, tools=[weather_tool()], model={"pricing": PRICING})
    assert_clean(result, run)
    metadata = result.execution_metadata
    assert metadata["total_tokens"] == sum(p + c for p, c in reports)
    assert metadata["total_price"] == pytest.approx(sum(p * 2e-6 + c * 8e-6 for p, c in reports))
    assert [n.metadata["total_tokens"] for n in thoughts(result)] == [p + c for p, c in reports]


# --- time and line limits ------------------------------------------------------------------------------


def slow_lookup(seconds: float) -> LocalTool:
    def handler(params):
        import time

        time.sleep(seconds)
        yield text_message(f"found {params.get('value')}")

    return LocalTool(name="lookup", description="A slow lookup", parameters=[ToolParam("value")], handler=handler)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop3287_the_run_answers_before_the_daemon_kills_it(run, strategy):
    """langgenius/dify-official-plugins#3287 (also langgenius/dify-plugin-daemon#760 and
    langgenius/dify#37338; Dify 1.14.2, agent strategies 0.0.39): "killed by timeout on
    agent_strategy/invoke despite successful LLM/tool execution" after 120 s
    (PLUGIN_MAX_EXECUTION_TIMEOUT=120). Here the run's limit is 10 s and each lookup takes 2.5 s:
    the model is asked to answer while it still can."""
    def lookup(value: str) -> dict:
        if strategy == "ReAct":
            return {"text": f'Thought: look.\nAction: lookup\nAction Input: {{"value": "{value}"}}'}
        return {"tool_calls": [{"id": f"c-{value}", "name": "lookup", "arguments": {"value": value}}]}

    result = run([lookup("a"), answer_turn(strategy, "What I found so far: a.")], strategy=strategy,
                 tools=[slow_lookup(2.5)], params={"run_timeout": 10}, maximum_iterations=10)
    assert_clean(result, run)
    assert result.text == "What I found so far: a."
    assert result.duration < 10


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify27714_a_huge_tool_result_never_makes_a_line_too_long(run, strategy):
    """langgenius/dify#27714 (1.9.1, agent plugin 0.0.25): the daemon logged "plugin
    langgenius/agent has an error on stdout: bufio.Scanner: token too long" and the run was
    killed by timeout after 10 minutes. A tool result of 6 MB: every line fits, the run ends."""
    big = LocalTool(name="lookup", description="Returns a lot", parameters=[ToolParam("value")],
                    handler=lambda params: iter([text_message("row of data " * 500_000)]))
    result = run([{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"value": "v"}}]}
                  if strategy != "ReAct" else
                  {"text": 'Thought: look.\nAction: lookup\nAction Input: {"value": "v"}'},
                  answer_turn(strategy, "It is a long table.")],
                 query="Look it up.", strategy=strategy, tools=[big], timeout=240)
    assert_clean(result, run)
    assert result.text == "It is a long table."
    assert len(json.dumps(result.llm_requests[1], ensure_ascii=False).encode()) < MAX_LINE_BYTES
    assert run.plugin.alive


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19489_the_second_question_after_a_huge_result_still_runs(run, strategy):
    """langgenius/dify#19489 (2025-05): the Agent node hung for over 10 minutes and timed out on
    the second question of a conversation, with "bufio.Scanner: token too long" in the logs:
    the first answer's huge tool result came back in memory."""
    history = [
        {"role": "user", "content": "Dump the table."},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "h1", "name": "get_weather", "arguments": {}}]},
        {"role": "tool", "content": "row of data " * 500_000, "tool_call_id": "h1", "name": "get_weather"},
        {"role": "assistant", "content": "Here is the table."},
    ]
    result = run([answer_turn(strategy, "It had many rows.")], query="How many rows?", strategy=strategy,
                 history=history, tools=[weather_tool()], timeout=240)
    assert_clean(result, run)
    assert result.text == "It had many rows."
    assert len(json.dumps(result.llm_requests[0], ensure_ascii=False).encode()) < MAX_LINE_BYTES
    assert run.plugin.alive


# --- iteration limit -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dop587_one_iteration_still_offers_the_tools(run, strategy):
    """langgenius/dify-official-plugins#587 (Dify 1.1.1, agent 0.0.12, Xinference): Function
    Calling with Maximum Iterations 1 sent no tool list to the LLM. One round may use tools:
    the first request offers them and the call runs; the answer round keeps them declared."""
    result = run([call_turn(strategy), answer_turn(strategy, "Sunny in Paris.")], query="Weather in Paris?",
                 strategy=strategy, tools=[weather_tool()], maximum_iterations=1)
    assert_clean(result, run)
    first = result.llm_requests[0]
    if strategy == "ReAct":
        assert "get_weather" in prompt_text(first)
    else:
        assert [t["name"] for t in first["tools"]] == ["get_weather"]
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris."


def ticking_clock() -> LocalTool:
    """``current_time``: a later second at every call, as a real clock gives."""
    ticks = iter(range(10_000))
    return LocalTool(name="current_time", description="The current time", parameters=[],
                     handler=lambda params: iter([text_message(f"2025-05-13 10:00:{next(ticks):02d}")]))


def repeated_calls(strategy: str, name: str, count: int) -> list[dict]:
    if strategy == "ReAct":
        action = json.dumps({"action": name, "action_input": {}})
        return [{"text": f"Thought: again.\nAction:\n```json\n{action}\n```"}] * count
    return [{"tool_calls": [{"id": f"call_{n}", "name": name, "arguments": {}}]} for n in range(count)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19589_maximum_iterations_above_five_take_effect(run, strategy):
    """langgenius/dify#19589 (1.3.1, DeepSeek API): "Call the current_time plugin 10 times,
    outputting each result immediately": whatever the Maximum Iterations, the agent stopped at 5.
    Found here: this plugin stopped too, at the fourth identical call (its loop guard refused a
    call made three times with the same arguments). A call whose result changes (a clock, a job
    status polled) is no loop: with 11 iterations allowed, the ten calls all run."""
    result = run([*repeated_calls(strategy, "current_time", 10), answer_turn(strategy, "Ten times, 10:00:00 to :09.")],
                 query="Call current_time 10 times.", strategy=strategy, tools=[ticking_clock()], maximum_iterations=11)
    assert_clean(result, run)
    assert len(result.tool_requests) == 10
    assert result.text == "Ten times, 10:00:00 to :09."
    assert [n for n in result.logs.values() if n.label == "REPEATED CALLS"] == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify19589_a_call_that_always_returns_the_same_is_still_stopped(run, strategy):
    """The loop guard stays for a tool whose result never changes: the fourth identical call is
    refused, and the model is asked to answer."""
    same = tool_named("search", [text_message("no results")])
    turns = [*repeated_calls(strategy, "search", 4), answer_turn(strategy, "Nothing was found.")]
    for turn in turns[:4]:
        for call in turn.get("tool_calls", []):
            call["arguments"] = {"value": "x"}
    if strategy == "ReAct":
        action = json.dumps({"action": "search", "action_input": {"value": "x"}})
        turns[:4] = [{"text": f"Thought: again.\nAction:\n```json\n{action}\n```"}] * 4
    result = run(turns, query="Search for x.", strategy=strategy, tools=[same], maximum_iterations=10)
    assert_clean(result, run)
    assert len(result.tool_requests) == 3
    assert result.text == "Nothing was found."
    assert [n.label for n in result.logs.values() if n.label == "REPEATED CALLS"] == ["REPEATED CALLS"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify20059_the_agent_does_not_stop_calling_tools_before_its_limit(run, strategy):
    """langgenius/dify#20059 (1.4): Maximum Iterations 15, and the agent "abnormally stopped the
    tool invocation without returning results". A round whose reply is only a short remark
    between calls ("Let me check the next one.") is not the end of the run when calls follow."""
    rounds = [call_turn(strategy, city, call_id=f"c{n}") for n, city in enumerate(["Paris", "Rome", "Oslo"])]
    result = run([*rounds, answer_turn(strategy, "Paris, Rome and Oslo are sunny.")],
                 query="Weather in Paris, Rome and Oslo?", strategy=strategy, tools=[weather_tool()],
                 maximum_iterations=15)
    assert_clean(result, run)
    assert [r["tool_parameters"]["city"] for r in result.tool_requests] == ["Paris", "Rome", "Oslo"]
    assert result.text == "Paris, Rome and Oslo are sunny."
