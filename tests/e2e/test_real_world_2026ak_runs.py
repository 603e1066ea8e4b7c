"""The thirty-sixth real-world pass (stream shapes) through the real plugin process. Each stream
starts as the provider's SSE text and reaches the strategy as the official
``openai_api_compatible`` plugin hands it on (``test_real_world_2026ae.plugin_chunks``), or as
raw deltas passed on one by one (``test_real_world_2026ak.from_sse``); the runner replays those
chunks. The tool runs once with the right arguments, the call and its result go back under one
id, and the answer is shown clean. The fix of this pass: a reply of only reasoning that ends with
``tool_calls`` and no call (labring/FastGPT#7339) is asked again, and a model that keeps doing so
ends the run with what its reasoning said, not an error with nothing shown."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end
from tests.e2e.real_world import chunks_turn
from tests.unit.test_real_world_2026ae import ev, plugin_chunks, sse
from tests.unit.test_real_world_2026ak import ANSWER_STREAMS, CALL_STREAMS, from_sse


def _tool(name: str, *params: str) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"the {name} tool.", parameters=[ToolParam(p) for p in params],
                        responses=[text_message("done: 3 files")])


def _assistant_call_ids(request: dict) -> list[str]:
    messages = request["prompt_messages"]
    return [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]


def _tool_result_ids(request: dict) -> list[str]:
    return [m["tool_call_id"] for m in request["prompt_messages"] if m["role"] == "tool"]


@pytest.mark.parametrize("path", ["plugin", "raw"])
def test_lmstudio_gemma4_pieces_under_fresh_ids_run_one_call(run, path):
    """NousResearch/hermes-agent#5254: every argument piece under a fresh id with ``name: ""``."""
    body = CALL_STREAMS["hermes5254-lmstudio-gemma4-fresh-id-and-empty-name-per-piece"][0]
    chunks = plugin_chunks(body) if path == "plugin" else from_sse(body)
    result = run([chunks_turn(chunks), {"text": "The folder holds 3 files."}], query="List the files.",
                 tools=[_tool("shell", "command")])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("shell", {"command": "ls"})]
    assert result.text.strip() == "The folder holds 3 files."
    follow_up = result.llm_requests[1]
    assert _assistant_call_ids(follow_up) == ["701601222"] == _tool_result_ids(follow_up)


@pytest.mark.parametrize("name", [
    "goose11686-vmlx-deepseek-v4-name-after-the-id",
    "hermes6841-whole-name-and-arguments-resent-on-every-chunk",
    "computer224-gemini-indexless-pieces-signature-delta-finish-stop",
    "batpred4904-gemini-four-parallel-calls-without-index",
])
@pytest.mark.parametrize("path", ["plugin", "raw"])
def test_call_stream_runs_each_call_once_with_its_arguments(run, name, path):
    body, _, tools, _, expected = CALL_STREAMS[name]
    chunks = plugin_chunks(body) if path == "plugin" else from_sse(body)
    params = {tool: sorted({k for n, a in expected if n == tool for k in a}) for tool in tools}
    result = run([chunks_turn(chunks), {"text": "All done."}], query="Go.",
                 tools=[_tool(tool, *params[tool]) for tool in tools])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == expected
    assert result.text.strip() == "All done."
    follow_up = result.llm_requests[1]
    ids = _assistant_call_ids(follow_up)
    assert len(ids) == len(expected) == len(set(ids)) and sorted(ids) == sorted(_tool_result_ids(follow_up))


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", [
    "vscode330038-vllm-empty-tool-calls-beside-every-text-delta",
    "sglang9657-gpt-oss-reasoning-content-tool-calls-null",
])
def test_answer_stream_is_shown_clean(run, name, strategy):
    body, options, answer, hidden = ANSWER_STREAMS[name]
    chunks = plugin_chunks(body, **options)  # ReAct takes a reply of plain text as its answer
    result = run([chunks_turn(chunks)], query="Hi", tools=[_tool("search", "query")], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == answer
    assert not hidden or hidden not in result.text


def test_reasoning_only_ended_as_a_call_is_asked_again_then_is_the_answer(run):
    """labring/FastGPT#7339: a reply of only reasoning, ``finish_reason: "tool_calls"`` and no call,
    again and again. Each is asked again (the model is told the call never came); when the retries
    run out the run ends with what the reasoning said. Before, it ended with an error."""
    body = sse(ev(role="assistant", content=None, reasoning_content="Oslo is 18 degrees with light rain."),
               ev("tool_calls", tool_calls=[]))
    turns = [chunks_turn(plugin_chunks(body)) for _ in range(4)]
    result = run(turns, query="Weather in Oslo?", tools=[_tool("get_weather", "city")])
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == "Oslo is 18 degrees with light rain."
    assert "no tool call came through" in str(result.llm_requests[1]["prompt_messages"])


def test_a_call_after_a_reasoning_only_tool_calls_reply_runs(run):
    """The same reply once, then the call the model was asked for: the call runs and its answer is shown."""
    body = sse(ev(role="assistant", content=None, reasoning_content="I should look it up."),
               ev("tool_calls", tool_calls=[]))
    call = {"tool_calls": [{"id": "call_w1", "name": "get_weather", "arguments": '{"city": "Oslo"}'}]}
    result = run([chunks_turn(plugin_chunks(body)), call, answer_turn("function_calling", "18 degrees in Oslo.")],
                 query="Weather in Oslo?", tools=[_tool("get_weather", "city")])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text.strip() == "18 degrees in Oslo."
