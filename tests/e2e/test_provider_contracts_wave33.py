"""Wave 33, through the real plugin process: the Hunyuan and Xinference contract backends (two
rounds of tool calls, then memory on the next run, both strategies; what each plugin sends back
of a round), and a MiniMax-M2 stream whose call arrives as a start of its arguments followed by
the whole object (sgl-project/sglang#23071), which now runs."""

import json

import pytest

from local_runner.contracts.base import REASONING_MARK
from tests.e2e.helpers import STRATEGIES, assert_clean_end, weather_tool
from tests.e2e.test_provider_round_trip import EXPRESSIONS, QUERY, _as_emitted, _check_answered, _run

WAVE33 = ["hunyuan", "xinference"]


def test_a_start_then_the_whole_object_runs_the_call_once(run):
    """sglang#23071: the call's arguments come as ``{"city": "Paris"`` glued to the whole object.
    Before, the user read an error after the model was asked again; now the tool runs once with
    the object and the model's answer is shown."""
    chunks = [
        {"tool_calls": [{"index": 0, "id": "call_mm1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
        {"tool_calls": [{"index": 1, "id": None, "function": {"name": None, "arguments": '{"city": "Paris"{"city": "Paris"}'}}]},
    ]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert result.text == "Sunny in Paris."
    (call,) = [c for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert call["id"] == "call_mm1"




def _check_hunyuan_rounds(backend):
    """Each round goes back with Hunyuan's own call id, answered by its tool message; the plugin
    puts a space for the content and ``{}`` for the arguments (its inverted condition)."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        _, ids = _as_emitted(chunks)
        for body in backend.provider_requests[round_index + 1 :]:
            messages = body["Messages"]
            position = [i for i, m in enumerate(messages) if m.get("ToolCalls")][round_index]
            turn, answer = messages[position], messages[position + 1]
            assert [call["Id"] for call in turn["ToolCalls"]] == ids
            assert answer["Role"] == "tool" and answer["ToolCallId"] == ids[0]
            assert json.loads(answer["Content"])["result"].endswith(EXPECTED_RESULTS[round_index])
            assert turn["Content"] == " " and turn["ToolCalls"][0]["Function"]["Arguments"] == "{}"


def _check_xinference_rounds(backend):
    """Each round goes back with its content as the plugin streamed it (Qwen3's ``<think>`` block
    included), its call as ``function_call`` (name and arguments), and the tool message with the
    provider's call id."""
    assert backend.calls_lost == []
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        arguments = [c["function"]["arguments"] for chunk in chunks for c in chunk["delta"]["message"]["tool_calls"]]
        for body in backend.provider_requests[round_index + 1 :]:
            messages = body["messages"]
            position = [i for i, m in enumerate(messages) if m.get("function_call")][round_index]
            turn, answer = messages[position], messages[position + 1]
            assert turn["content"] == content and REASONING_MARK in content
            assert turn["function_call"] == {"name": "calculator", "arguments": arguments[0]}
            assert json.loads(arguments[0]) == {"expression": EXPRESSIONS[round_index]}
            assert answer["role"] == "tool" and answer["tool_call_id"] == ids[0]


EXPECTED_RESULTS = ["3367", "3368"]


def _round_params():
    """``(contract, strategy, shape)`` for each WAVE33 contract, strategy and shape but Hunyuan's
    blocking Function Calling: its plugin drops a blocking reply's calls
    (test_hunyuan_blocking_function_calling_gets_no_call)."""
    for contract in WAVE33:
        for strategy in STRATEGIES:
            for shape in ("stream", "blocking"):
                if (contract, strategy, shape) != ("hunyuan", "function_calling", "blocking"):
                    yield pytest.param(contract, strategy, shape, id=f"{contract}-{strategy}-{shape}")


@pytest.mark.parametrize(("contract", "strategy", "shape"), list(_round_params()))
def test_two_tool_rounds_go_back_as_the_plugin_sends_them_and_memory_is_clean(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_answered(backend, toolbox, first)
    if strategy == "function_calling":
        {"hunyuan": _check_hunyuan_rounds, "xinference": _check_xinference_rounds}[contract](backend)
    else:
        for body in backend.provider_requests[1:]:
            assert REASONING_MARK not in json.dumps(body.get("messages") or body.get("Messages"))

    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, contract, strategy, shape, history=memory)
    _check_answered(backend, toolbox, second)
    opening = json.dumps(backend.provider_requests[0])
    assert json.dumps(first.text)[1:-1] in opening and REASONING_MARK not in opening


@pytest.mark.xfail(strict=True, reason=(
    "The Hunyuan plugin builds a blocking reply's LLMResult from the content alone and drops its "
    "tool calls: no call reaches the strategy (Function Calling asks for a blocking reply only when "
    "the model lacks stream-tool-call)."))
def test_hunyuan_blocking_function_calling_gets_no_call(plugin):
    backend, toolbox, result = _run(plugin, "hunyuan", "function_calling", "blocking")
    _check_answered(backend, toolbox, result)
