"""Local runner model backends: scripted turns and the OpenAI-compatible bridge."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import openai
import pytest
from dify_plugin.entities.model.llm import LLMResultChunk, LLMUsage
from hypothesis import given
from hypothesis import strategies as st

from local_runner.backends import (
    OpenAICompatibleBackend,
    Pricing,
    ScriptedBackend,
    ScriptedModelError,
    ScriptError,
    chat_kwargs,
    completion_kwargs,
    load_turns,
    make_usage,
    to_openai_messages,
    to_openai_tools,
)
from local_runner.fake_openai import FakeOpenAIServer, chat_event, completion_event

pytestmark = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")

REQUEST = {
    "provider": "langgenius/openai/openai",
    "model": "gpt-4o-mini",
    "mode": "chat",
    "completion_params": {"temperature": 0.2, "max_tokens": 64},
    "prompt_messages": [{"role": "user", "content": "What is 2+2?", "name": None}],
    "tools": [{"name": "calculator", "description": "math", "parameters": {"type": "object", "properties": {}}}],
    "stop": ["Observation:"],
    "stream": True,
}


def play(backend: ScriptedBackend, request: dict[str, Any] = REQUEST) -> list[dict[str, Any]]:
    return list(backend.invoke_llm(request))


def test_usage_has_all_twelve_fields_and_exact_prices() -> None:
    usage = make_usage(1000, 200, Pricing(Decimal("0.15"), Decimal("0.6"), Decimal("0.000001"), "USD"), 0.25)
    parsed = LLMUsage(**usage)
    assert len(usage) == 12
    assert parsed.prompt_price == Decimal("0.00015")
    assert parsed.completion_price == Decimal("0.00012")
    assert parsed.total_price == Decimal("0.00027")
    assert usage["total_tokens"] == 1200
    assert all(isinstance(usage[key], str) for key in ("prompt_price", "total_price", "prompt_price_unit"))


@given(st.integers(0, 10**7), st.integers(0, 10**7))
def test_usage_total_is_the_sum_of_parts(prompt: int, completion: int) -> None:
    usage = make_usage(prompt, completion)
    assert Decimal(usage["total_price"]) == Decimal(usage["prompt_price"]) + Decimal(usage["completion_price"])
    assert "E" not in usage["prompt_price"] + usage["total_price"]


def test_shorthand_text_is_split_and_last_chunk_carries_usage() -> None:
    backend = ScriptedBackend(
        [{"text": "Hello world!", "split": 5, "usage": {"prompt_tokens": 10, "completion_tokens": 3}}]
    )
    chunks = play(backend)
    assert [c["delta"]["message"]["content"] for c in chunks] == ["Hello", " worl", "d!", ""]
    assert [c["delta"]["index"] for c in chunks] == [0, 1, 2, 3]
    assert all(c["delta"]["usage"] is None and c["delta"]["finish_reason"] is None for c in chunks[:-1])
    assert chunks[-1]["delta"]["finish_reason"] == "stop"
    assert chunks[-1]["delta"]["usage"]["total_tokens"] == 13
    for chunk in chunks:
        LLMResultChunk(**chunk)


def test_shorthand_tool_calls_come_complete_in_one_chunk() -> None:
    backend = ScriptedBackend(
        [
            {
                "tool_calls": [
                    {"name": "calculator", "arguments": {"expression": "2+2"}},
                    {"id": "c2", "name": "t", "arguments": "{bad"},
                ]
            }
        ]
    )
    chunks = play(backend)
    calls = chunks[0]["delta"]["message"]["tool_calls"]
    assert calls == [
        {
            "id": "call_0001",
            "type": "function",
            "function": {"name": "calculator", "arguments": '{"expression": "2+2"}'},
        },
        {"id": "c2", "type": "function", "function": {"name": "t", "arguments": "{bad"}},
    ]
    assert chunks[-1]["delta"]["finish_reason"] == "tool_calls"


def test_usage_is_estimated_when_absent_and_omitted_when_null() -> None:
    backend = ScriptedBackend([{"text": "four"}, {"text": "x", "usage": None, "finish_reason": None}])
    first, second = play(backend), play(backend)
    assert first[-1]["delta"]["usage"]["prompt_tokens"] > 0
    assert first[-1]["delta"]["usage"]["completion_tokens"] == 1
    assert all(c["delta"]["usage"] is None and c["delta"]["finish_reason"] is None for c in second)


def test_raw_chunks_pass_through_with_turn_usage_on_the_last() -> None:
    fragments = [
        {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "calc", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1}'}}]},
        {"content": "done", "finish_reason": "length"},
    ]
    backend = ScriptedBackend([{"chunks": fragments, "usage": {"prompt_tokens": 5, "completion_tokens": 2}}])
    chunks = play(backend)
    assert chunks[1]["delta"]["message"]["tool_calls"] == [{"index": 0, "function": {"arguments": '{"a": 1}'}}]
    assert chunks[2]["delta"]["finish_reason"] == "length"
    assert chunks[2]["delta"]["usage"]["total_tokens"] == 7
    assert chunks[0]["delta"]["usage"] is None


def test_error_turn_raises_after_its_chunks() -> None:
    backend = ScriptedBackend([{"text": "partial", "error": "rate limited"}])
    stream = backend.invoke_llm(REQUEST)
    assert next(stream)["delta"]["message"]["content"] == "partial"
    with pytest.raises(ScriptedModelError, match="rate limited"):
        next(stream)


def test_hang_turn_blocks_until_released() -> None:
    backend = ScriptedBackend([{"hang": True}])
    finished = threading.Event()
    threading.Thread(target=lambda: (play(backend), finished.set()), daemon=True).start()
    assert not finished.wait(0.3)
    backend.release()
    assert finished.wait(2)


def test_delay_waits_before_the_first_chunk() -> None:
    backend = ScriptedBackend([{"delay": 0.2, "text": "late"}])
    started = time.monotonic()
    play(backend)
    assert time.monotonic() - started >= 0.2


def test_requests_are_recorded_and_exhaustion_is_a_clear_error() -> None:
    backend = ScriptedBackend([{"text": "one"}, {"text": "two"}])
    play(backend)
    assert backend.remaining == 1
    with pytest.raises(AssertionError, match="1 of 2 turns were never requested"):
        backend.assert_complete()
    play(backend)
    backend.assert_complete()
    with pytest.raises(ScriptError, match="LLM call #3 but the script has only 2 turns"):
        backend.invoke_llm(REQUEST)
    assert backend.requests == [REQUEST] * 3


@pytest.mark.parametrize(
    ("turn", "message"),
    [
        ("text", "expected a mapping"),
        ({"txt": "typo"}, "unknown keys"),
        ({"chunks": [], "text": "x"}, "cannot be combined"),
        ({"text": "x", "split": 0}, "'split' must be >= 1"),
    ],
)
def test_malformed_turns_are_refused(turn: Any, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        ScriptedBackend([turn])


def test_turns_load_from_yaml_and_json_files(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "pricing: {input: '1', output: '2', unit: '0.001', currency: EUR}\nturns:\n  - text: hi\n"
    )
    (tmp_path / "t.json").write_text(json.dumps([{"text": "hi"}]))
    backend = ScriptedBackend.from_file(tmp_path / "t.yaml")
    assert backend.pricing == Pricing(Decimal(1), Decimal(2), Decimal("0.001"), "EUR")
    assert play(backend)[-1]["delta"]["usage"]["currency"] == "EUR"
    assert load_turns(tmp_path / "t.json") == ([{"text": "hi"}], None)


# -- OpenAI-compatible -----------------------------------------------------------------------


def test_prompt_messages_convert_to_openai_chat_messages() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "data": "what is this?"},
                {"type": "image", "base64_data": "QUJD", "mime_type": "image/png", "format": "png", "detail": "high"},
                {
                    "type": "document",
                    "url": "http://x/a.pdf",
                    "mime_type": "application/pdf",
                    "filename": "a.pdf",
                    "format": "pdf",
                },
            ],
        },
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}],
        },
        {"role": "tool", "content": "4", "tool_call_id": "c1", "name": "calc"},
        {"role": "developer", "content": "x"},
    ]
    converted = to_openai_messages(messages)
    assert converted[0] == {"role": "system", "content": "be brief"}
    assert converted[1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,QUJD", "detail": "high"},
    }
    assert converted[1]["content"][2]["type"] == "text" and "a.pdf" in converted[1]["content"][2]["text"]
    assert converted[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}],
    }
    assert converted[3] == {"role": "tool", "tool_call_id": "c1", "content": "4"}
    assert converted[4]["role"] == "system"


def test_request_maps_to_chat_and_completion_kwargs() -> None:
    request = {**REQUEST, "completion_params": {"temperature": 0, "response_format": "json_object", "top_k": 5}}
    kwargs = chat_kwargs(request, "m")
    assert kwargs["stop"] == ["Observation:"] and kwargs["stream_options"] == {"include_usage": True}
    assert kwargs["response_format"] == {"type": "json_object"} and kwargs["extra_body"] == {"top_k": 5}
    assert kwargs["tools"] == to_openai_tools(REQUEST["tools"])
    assert kwargs["tools"][0]["function"]["name"] == "calculator"
    assert completion_kwargs(REQUEST, "m")["prompt"] == "What is 2+2?"


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def test_openai_backend_streams_text_tool_deltas_and_usage(fake_server: FakeOpenAIServer) -> None:
    fake_server.replies = [
        [
            chat_event({"role": "assistant", "content": "Let me "}),
            chat_event({"content": "check."}),
            chat_event(
                {
                    "tool_calls": [
                        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "calc", "arguments": ""}}
                    ]
                }
            ),
            chat_event({"tool_calls": [{"index": 0, "function": {"arguments": '{"x": 1}'}}]}),
            chat_event({}, finish="tool_calls"),
            chat_event(None, usage={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}),
        ]
    ]
    backend = OpenAICompatibleBackend(fake_server.base_url, model="served-model")
    chunks = list(backend.invoke_llm(REQUEST))
    assert [c["delta"]["message"]["content"] for c in chunks[:2]] == ["Let me ", "check."]
    assert chunks[2]["delta"]["message"]["tool_calls"] == [
        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "calc", "arguments": ""}}
    ]
    assert chunks[3]["delta"]["message"]["tool_calls"] == [
        {"index": 0, "id": None, "type": None, "function": {"name": None, "arguments": '{"x": 1}'}}
    ]
    final = chunks[-1]["delta"]
    assert final["finish_reason"] == "tool_calls"
    assert (final["usage"]["prompt_tokens"], final["usage"]["completion_tokens"]) == (11, 7)
    path, body = fake_server.requests[0]
    assert path == "/v1/chat/completions"
    assert body["model"] == "served-model" and body["stop"] == ["Observation:"] and body["max_tokens"] == 64
    assert body["tools"][0]["function"]["name"] == "calculator"
    for chunk in chunks:
        LLMResultChunk(**chunk)


def test_openai_backend_wraps_streamed_reasoning_in_a_think_block_as_the_dify_plugin_does(
    fake_server: FakeOpenAIServer,
) -> None:
    """vLLM, DeepSeek and Ollama stream a thinking model's reasoning as ``reasoning_content`` or
    ``reasoning``; the runner dropped it, so a local run never showed what the Agent node shows in
    Dify. It comes as Dify's OpenAI-API-compatible plugin gives it: one ``<think>`` block before the
    answer or call, and the block is left out when the reply is sent back."""
    call = {"index": 0, "id": "call_a", "type": "function", "function": {"name": "calc", "arguments": "{}"}}
    fake_server.replies = [
        [
            chat_event({"role": "assistant", "reasoning_content": "Two plus"}),
            chat_event({"reasoning_content": " two."}),
            chat_event({"content": "Four."}, finish="stop"),
        ],
        [chat_event({"reasoning": "Need the tool."}), chat_event({"tool_calls": [call]}, finish="tool_calls")],
        [chat_event({"reasoning_content": "cut off"}, finish="length")],
        [chat_event({"content": "ok"}, finish="stop")],
    ]
    backend = OpenAICompatibleBackend(fake_server.base_url)
    first = [c["delta"]["message"]["content"] for c in backend.invoke_llm(REQUEST)]
    assert "".join(first) == "<think>\nTwo plus two.\n</think>Four."
    second = list(backend.invoke_llm(REQUEST))
    assert "".join(c["delta"]["message"]["content"] for c in second) == "<think>\nNeed the tool.\n</think>"
    assert [c["delta"]["message"]["tool_calls"] for c in second if c["delta"]["message"]["tool_calls"]] == [[call]]
    third = list(backend.invoke_llm(REQUEST))
    assert "".join(c["delta"]["message"]["content"] for c in third) == "<think>\ncut off\n</think>"
    assert third[-1]["delta"]["finish_reason"] == "length"

    replay = {"role": "assistant", "content": "<think>\nTwo plus two.\n</think>Four.", "tool_calls": []}
    list(backend.invoke_llm({**REQUEST, "prompt_messages": [*REQUEST["prompt_messages"], replay]}))
    assert fake_server.requests[-1][1]["messages"][-1] == {"role": "assistant", "content": "Four."}


def test_openai_backend_estimates_usage_when_the_server_gives_none(fake_server: FakeOpenAIServer) -> None:
    fake_server.replies = [[chat_event({"content": "twelve chars"}, finish="stop")]]
    backend = OpenAICompatibleBackend(fake_server.base_url)
    final = list(backend.invoke_llm(REQUEST))[-1]["delta"]
    assert final["usage"]["completion_tokens"] == 3 and final["usage"]["prompt_tokens"] > 0
    assert fake_server.requests[0][1]["model"] == "gpt-4o-mini"


def test_openai_backend_uses_the_completions_api_in_completion_mode(fake_server: FakeOpenAIServer) -> None:
    fake_server.replies = [[completion_event("Thought:", finish="stop")]]
    backend = OpenAICompatibleBackend(fake_server.base_url)
    chunks = list(backend.invoke_llm({**REQUEST, "mode": "completion"}))
    assert chunks[0]["delta"]["message"]["content"] == "Thought:"
    path, body = fake_server.requests[0]
    assert path == "/v1/completions" and body["prompt"] == "What is 2+2?"


def test_openai_backend_raises_on_server_errors(fake_server: FakeOpenAIServer) -> None:
    backend = OpenAICompatibleBackend(fake_server.base_url)
    with pytest.raises(openai.InternalServerError, match="500"):
        list(backend.invoke_llm(REQUEST))
