"""The Tongyi (DashScope), Ollama and OpenAI-API-compatible (vLLM) contract backends: each
converts a request as its model plugin does, refuses what its provider refuses, accepts round 2
of a tool run replayed intact, and answers in its plugin's chunk shapes, streamed and blocking.

Requests are built from the SDK's own ``PromptMessage`` classes, dumped as they reach the
runner (``model_dump(mode="json")``: the backwards invocation travels as JSON).
"""

import json

import pytest
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessageTool,
    SystemPromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)

from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply
from local_runner.contracts.ollama import OllamaContract, micro_chunks
from local_runner.contracts.openai_compatible import OpenAICompatibleContract
from local_runner.contracts.tongyi import TongyiContract
from tests.unit.helpers import CALCULATOR

TOOLS = [CALCULATOR.model_dump(mode="json")]
SYSTEM = SystemPromptMessage(content="You are a helpful agent.")
QUERY = UserPromptMessage(content="What is 37 * 91?")


def dump(*messages) -> list[dict]:
    return [message.model_dump(mode="json") for message in messages]


def call(call_id: str, name: str = "calculator", arguments: str = '{"expression": "37 * 91"}') -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name=name, arguments=arguments))


def request(backend_cls, messages: list[dict], *, stream: bool = True, tools=TOOLS, model: str | None = None, params=None) -> dict:
    return {"provider": backend_cls.provider, "model": model or backend_cls.model, "mode": "chat",
            "completion_params": dict(backend_cls.completion_params if params is None else params),
            "prompt_messages": messages, "tools": tools, "stop": None, "stream": stream}


def collect(chunks: list[dict]) -> tuple[str, list[dict], list[dict]]:
    """Content joined, tool calls merged by id (a later chunk's copy wins), and the deltas."""
    content, calls = "", {}
    for chunk in chunks:
        message = chunk["delta"]["message"]
        content += message["content"] or ""
        for tool_call in message["tool_calls"]:
            calls[tool_call["id"]] = tool_call
    return content, list(calls.values()), [chunk["delta"] for chunk in chunks]


def first_round(backend, stream: bool) -> tuple[dict, list[dict]]:
    req = request(type(backend), dump(SYSTEM, QUERY), stream=stream)
    return req, list(backend.invoke_llm(req))


def replay(req: dict, chunks: list[dict], *, content=None, drop_assistant=False, drop_calls=False) -> dict:
    """Round 2: round 1's assistant message as the model plugin sent it, then the tool results."""
    text, calls, _ = collect(chunks)
    assistant = AssistantPromptMessage(content=text if content is None else content,
                                       tool_calls=[] if drop_calls else [call(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls])
    results = [ToolPromptMessage(content="37 * 91 = 3367", tool_call_id=c["id"], name=c["function"]["name"]) for c in calls]
    messages = [*req["prompt_messages"], *([] if drop_assistant else dump(assistant)), *dump(*results)]
    return {**req, "prompt_messages": messages}


ALL = [TongyiContract, OllamaContract, OpenAICompatibleContract]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "blocking"])
@pytest.mark.parametrize("backend_cls", ALL, ids=lambda c: c.name)
def test_intact_replay_is_accepted_and_answered(backend_cls, stream):
    backend = backend_cls(shape="auto")
    req, chunks = first_round(backend, stream)
    assert collect(chunks)[1], "round 1 calls the tool"
    answer = list(backend.invoke_llm(replay(req, chunks)))
    assert backend.rejections == []
    assert "3367" in collect(answer)[0]


def test_registered_under_their_names():
    assert CONTRACTS["tongyi"] is TongyiContract
    assert CONTRACTS["ollama"] is OllamaContract
    assert CONTRACTS["openai_api_compatible"] is OpenAICompatibleContract


# ---------------------------------------------------------------------------------------------
# Tongyi / DashScope


def test_tongyi_request_keeps_think_block_pads_empty_content_and_names_tool_results():
    backend = TongyiContract()
    assistant = AssistantPromptMessage(content="<think>\nplan\n</think>", tool_calls=[call("calculator")])
    empty = AssistantPromptMessage(content="")
    result = ToolPromptMessage(content="3367", tool_call_id="calculator", name="calculator")
    body = backend.to_provider(request(TongyiContract, dump(SYSTEM, QUERY, assistant, result, UserPromptMessage(content="more?"), empty),
                                       stream=False))
    messages = body["messages"]
    assert messages[2]["content"] == [{"text": "<think>\nplan\n</think>"}]  # qwen3.5-plus is a vision model: text items
    assert messages[2]["tool_calls"][0] == {"id": "calculator", "type": "function",
                                            "function": {"name": "calculator", "arguments": '{"expression": "37 * 91"}'}}
    assert messages[3] == {"role": "tool", "content": "3367", "name": "calculator"}  # no tool_call_id field
    assert messages[5]["content"] == [{"text": " "}]
    assert body["stream"] is True and body["incremental_output"] is True  # thinking forces both
    assert body["tools"][0]["function"]["parameters"] == {"expression": {"description": "The expression", "type": "string"}}
    assert body["tools"][0]["function"]["required"] == ["expression"]
    backend.check(body)


def test_tongyi_text_model_gets_plain_strings():
    body = TongyiContract().to_provider(request(TongyiContract, dump(SYSTEM, QUERY), model="qwen3-32b", params={}))
    assert body["messages"][1] == {"role": "user", "content": "What is 37 * 91?"}


@pytest.mark.parametrize("change", ["drop_assistant", "drop_calls"])
def test_tongyi_refuses_a_tool_message_without_tool_calls_before_it(change):
    backend = TongyiContract(shape="stream")
    req, chunks = first_round(backend, True)
    with pytest.raises(ProviderRejection, match='messages with role "tool" must be a response to a preceeding message with "tool_calls"'):
        list(backend.invoke_llm(replay(req, chunks, **{change: True})))


def test_tongyi_refuses_replayed_arguments_that_are_not_json():
    backend = TongyiContract()
    assistant = AssistantPromptMessage(content="", tool_calls=[call("calculator", arguments='{"expression": "37 * 9')])
    result = ToolPromptMessage(content="3367", tool_call_id="calculator")
    with pytest.raises(ProviderRejection, match="JSON"):
        backend.check(backend.to_provider(request(TongyiContract, dump(QUERY, assistant, result))))


def test_tongyi_refuses_blank_system_content():
    backend = TongyiContract()
    with pytest.raises(ProviderRejection, match="no content"):
        backend.check(backend.to_provider(request(TongyiContract, dump(SystemPromptMessage(content=""), QUERY))))


def test_tongyi_refuses_thinking_without_streaming_for_a_model_it_does_not_force():
    backend = TongyiContract()
    body = backend.to_provider(request(TongyiContract, dump(QUERY), stream=False, model="qwen-plus", params={"enable_thinking": True}))
    assert body["stream"] is False
    with pytest.raises(ProviderRejection, match="enable_thinking must be set to false for non-streaming"):
        backend.check(body)


def test_tongyi_newest_plugin_converts_a_tool_schema_without_required_or_types():
    loose = PromptMessageTool(name="calculator", description="", parameters={"type": "object", "properties": {"x": {"anyOf": []}}})
    body = TongyiContract().to_provider(request(TongyiContract, dump(QUERY), tools=[loose.model_dump(mode="json")]))
    assert body["tools"][0]["function"]["parameters"] == {"x": {"description": ""}}
    assert body["tools"][0]["function"]["required"] == []


def test_tongyi_plugin_fails_on_an_enum_that_is_not_strings():
    odd = PromptMessageTool(name="pick", description="", parameters={"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}})
    with pytest.raises(ProviderRejection, match="_convert_tools"):
        TongyiContract().to_provider(request(TongyiContract, dump(QUERY), tools=[odd.model_dump(mode="json")]))


def test_tongyi_stream_closes_think_then_sends_complete_calls_named_by_function_on_the_last_chunk():
    backend = TongyiContract()
    req = request(TongyiContract, dump(QUERY))
    reply = Reply(reasoning=f"({REASONING_MARK}) plan", calls=(BrainCall("x1", "calculator", {"expression": "1+1"}),
                                                             BrainCall("x2", "weather", {"city": "Paris"})))
    chunks = list(backend.emit(reply, req, True))
    deltas = [c["delta"] for c in chunks]
    assert deltas[0]["message"]["content"].startswith("<think>\n")
    assert [d["message"]["content"] for d in deltas].count("\n</think>") == 1
    assert all(not d["message"]["tool_calls"] and d["usage"] is None and d["finish_reason"] is None for d in deltas[:-1])
    last = deltas[-1]
    assert last["finish_reason"] == "tool_calls" and last["usage"]["total_tokens"] > 0
    assert [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in last["message"]["tool_calls"]] == [
        ("calculator", "calculator", {"expression": "1+1"}), ("weather", "weather", {"city": "Paris"})]
    indexes = [d["index"] for d in deltas]
    assert indexes == sorted(indexes) and len(set(indexes)) == len(indexes)  # DashScope packet numbers, with gaps


def test_tongyi_stream_text_reply_opens_with_the_closing_tag_and_ends_on_stop():
    backend = TongyiContract()
    chunks = list(backend.emit(Reply(reasoning="hmm", text="The result is 3367"), request(TongyiContract, dump(QUERY)), True))
    content, calls, deltas = collect(chunks)
    assert content == "<think>\nhmm\n</think>The result is 3367" and calls == []
    assert deltas[1]["message"]["content"].startswith("\n</think>")
    assert deltas[-1]["finish_reason"] == "stop" and deltas[-1]["message"]["content"] and deltas[-1]["usage"]


def test_tongyi_blocking_is_the_joined_stream_in_one_chunk():
    backend = TongyiContract()
    reply = Reply(reasoning="plan", calls=(BrainCall("x1", "calculator", {"expression": "1+1"}),))
    (only,) = list(backend.emit(reply, request(TongyiContract, dump(QUERY), stream=False), False))
    delta = only["delta"]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]
    assert delta["message"]["content"] == "<think>\nplan\n</think>"
    assert delta["message"]["tool_calls"][0]["id"] == "calculator"
    assert "opaque_body" not in delta["message"]


def test_tongyi_cumulative_packets_of_a_model_not_forced_to_stream_come_out_as_deltas():
    backend = TongyiContract()
    req = request(TongyiContract, dump(QUERY), model="qwen-max", params={})
    chunks = list(backend.emit(Reply(reasoning="", text="A fairly long answer text"), {**req, "tools": None}, True))
    assert collect(chunks)[0] == "A fairly long answer text"
    reply = Reply(reasoning="", calls=(BrainCall("x1", "calculator", {"expression": "12345 * 678"}),))
    chunks = list(backend.emit(reply, req, True))  # with tools: incremental_output off, DashScope resends everything
    assert json.loads(collect(chunks)[1][0]["function"]["arguments"]) == {"expression": "12345 * 678"}
    (blocking,) = list(backend.emit(reply, req, False))  # _handle_generate_response: DashScope's own call ids
    assert blocking["delta"]["message"]["tool_calls"][0]["id"] == "call_x1"


# ---------------------------------------------------------------------------------------------
# Ollama


def test_ollama_request_sends_the_block_as_thinking_and_the_calls_back():
    backend = OllamaContract()
    assistant = AssistantPromptMessage(content="<think>\nplan\n</think>Let me compute.", tool_calls=[call("0")])
    result = ToolPromptMessage(content="3367", tool_call_id="0", name="calculator")
    body = backend.to_provider(request(OllamaContract, dump(SYSTEM, QUERY, assistant, result), params={"think": True, "temperature": 0.2}))
    assert body["messages"][2] == {"role": "assistant", "content": "Let me compute.", "thinking": "plan",
                                   "tool_calls": [{"function": {"name": "calculator", "arguments": {"expression": "37 * 91"}}}]}
    assert body["messages"][3] == {"role": "tool", "content": "3367", "tool_name": "0", "tool_call_id": "0"}
    assert body["think"] is True and body["options"] == {"temperature": 0.2}
    backend.check(body)


def test_ollama_does_not_pair_tool_messages():
    backend = OllamaContract(shape="stream")
    req, chunks = first_round(backend, True)
    list(backend.invoke_llm(replay(req, chunks, drop_assistant=True)))
    assert backend.rejections == []


def test_ollama_user_parts_become_text_but_other_part_lists_are_refused():
    backend = OllamaContract()
    parts = UserPromptMessage(content=[TextPromptMessageContent(data="What is 37 * 91?")])
    body = backend.to_provider(request(OllamaContract, dump(parts)))
    assert body["messages"][0] == {"role": "user", "content": "What is 37 * 91?", "images": []}
    backend.check(body)
    listed = ToolPromptMessage(content=[TextPromptMessageContent(data="3367")], tool_call_id="0")
    with pytest.raises(ProviderRejection, match=r"cannot unmarshal array into Go struct field ChatRequest\.messages\.content of type string"):
        backend.check(backend.to_provider(request(OllamaContract, dump(QUERY, AssistantPromptMessage(content="x"), listed))))


@pytest.mark.parametrize("model", ["llama3.2:3b", "qwen3-coder:30b"])
def test_ollama_refuses_think_for_a_model_without_thinking(model):
    backend = OllamaContract()
    with pytest.raises(ProviderRejection, match=f'"{model}" does not support thinking'):
        backend.check(backend.to_provider(request(OllamaContract, dump(QUERY), model=model)))


def test_ollama_stream_leaves_think_open_before_calls_and_repeats_every_call_so_far():
    backend = OllamaContract()
    reply = Reply(reasoning=f"({REASONING_MARK}) I should call two tools now",
                  calls=(BrainCall("a", "calculator", {"expression": "1+1"}), BrainCall("b", "weather", {"city": "Paris"})))
    deltas = [c["delta"] for c in backend.emit(reply, request(OllamaContract, dump(QUERY)), True)]
    text = "".join(d["message"]["content"] for d in deltas)
    assert text.startswith("<think>\n") and "</think>" not in text  # no content came: the block stays open
    assert all(len(d["message"]["content"]) <= 16 or " " not in d["message"]["content"] for d in deltas)  # micro-chunks
    tool_deltas = [d for d in deltas if d["message"]["tool_calls"]]
    assert [[c["id"] for c in d["message"]["tool_calls"]] for d in tool_deltas] == [["0"], ["0", "1"]]
    assert all(d["finish_reason"] == "tool_calls" and d["usage"] is None for d in tool_deltas)
    assert json.loads(tool_deltas[-1]["message"]["tool_calls"][1]["function"]["arguments"]) == {"city": "Paris"}
    assert deltas[-1]["finish_reason"] == "stop" and deltas[-1]["usage"] and deltas[-1]["message"]["content"] == ""


def test_ollama_stream_text_reply_closes_think():
    deltas = [c["delta"] for c in OllamaContract().emit(Reply(reasoning="plan", text="The result is 3367"),
                                                         request(OllamaContract, dump(QUERY)), True)]
    assert "".join(d["message"]["content"] for d in deltas) == "<think>\nplan\n</think>The result is 3367"


def test_ollama_blocking_drops_thinking_and_names_calls_by_function():
    reply = Reply(reasoning="plan", calls=(BrainCall("a", "calculator", {"expression": "1+1"}),))
    (only,) = list(OllamaContract().emit(reply, request(OllamaContract, dump(QUERY), stream=False), False))
    delta = only["delta"]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]
    assert delta["message"]["content"] == ""
    assert delta["message"]["tool_calls"] == [{"id": "calculator", "type": "function",
                                               "function": {"name": "calculator", "arguments": '{"expression": "1+1"}'}}]


def test_ollama_micro_chunks_keep_the_text():
    text = "The quick brown fox jumps over the lazy dog.\nAnd then some."
    parts = micro_chunks(text)
    assert "".join(parts) == text and all(len(p) <= 16 for p in parts)


# ---------------------------------------------------------------------------------------------
# OpenAI-API-compatible / vLLM


def test_openai_compatible_request_strips_think_blocks_and_sets_thinking_switches():
    backend = OpenAICompatibleContract()
    assistant = AssistantPromptMessage(content="<think>\nplan\n</think>\n\nLet me compute.", tool_calls=[call("chatcmpl-tool-1")])
    result = ToolPromptMessage(content="3367", tool_call_id="chatcmpl-tool-1", name="calculator")
    body = backend.to_provider(request(OpenAICompatibleContract, dump(SYSTEM, QUERY, assistant, result)))
    assert body["messages"][2]["content"] == "Let me compute."
    assert body["messages"][2]["tool_calls"][0]["id"] == "chatcmpl-tool-1"
    assert body["messages"][3] == {"role": "tool", "content": "3367", "tool_call_id": "chatcmpl-tool-1"}
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "thinking": True}
    assert body["stream_options"] == {"include_usage": True} and body["tool_choice"] == "auto"
    backend.check(body)
    blocking = backend.to_provider(request(OpenAICompatibleContract, dump(QUERY), stream=False))
    assert "stream_options" not in blocking


@pytest.mark.parametrize("change", ["drop_assistant", "drop_calls"])
def test_openai_compatible_refuses_tool_results_without_their_call(change):
    backend = OpenAICompatibleContract(shape="stream")
    req, chunks = first_round(backend, True)
    with pytest.raises(ProviderRejection, match="must be a response to a preceeding message with 'tool_calls'"):
        list(backend.invoke_llm(replay(req, chunks, **{change: True})))


def test_openai_compatible_refuses_an_unanswered_call_and_a_foreign_id():
    backend = OpenAICompatibleContract()
    assistant = AssistantPromptMessage(content="", tool_calls=[call("chatcmpl-tool-1")])
    unanswered = request(OpenAICompatibleContract, dump(QUERY, assistant, UserPromptMessage(content="and?")))
    with pytest.raises(ProviderRejection, match="did not have response messages"):
        backend.check(backend.to_provider(unanswered))
    foreign = request(OpenAICompatibleContract, dump(QUERY, assistant, ToolPromptMessage(content="3367", tool_call_id="calculator")))
    with pytest.raises(ProviderRejection, match="preceeding message"):
        backend.check(backend.to_provider(foreign))


def test_openai_compatible_refuses_a_reasoning_only_assistant_message_once_stripped():
    backend = OpenAICompatibleContract()
    thought_only = AssistantPromptMessage(content="<think>\nplan\n</think>\n")
    with pytest.raises(ProviderRejection, match="Invalid assistant message"):
        backend.check(backend.to_provider(request(OpenAICompatibleContract, dump(QUERY, thought_only, UserPromptMessage(content="go")))))
    with_text = AssistantPromptMessage(content="<think>\nplan\n</think>\nThought: go on")
    backend.check(backend.to_provider(request(OpenAICompatibleContract, dump(QUERY, with_text, UserPromptMessage(content="go")))))


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_openai_compatible_stream_shapes(field):
    backend = OpenAICompatibleContract()
    backend.reasoning_field = field
    reply = Reply(reasoning=f"({REASONING_MARK}) plan", calls=(BrainCall("a", "calculator", {"expression": "1+1"}),))
    deltas = [c["delta"] for c in backend.emit(reply, request(OpenAICompatibleContract, dump(QUERY)), True)]
    assert deltas[0]["message"]["content"].startswith("<think>\n")
    assert deltas[-3]["message"]["content"] == "\n</think>"  # the first tool-call delta closes the block
    tool_chunk, last = deltas[-2], deltas[-1]
    assert tool_chunk["message"]["tool_calls"] == [{"id": "chatcmpl-tool-a", "type": "function",
                                                    "function": {"name": "calculator", "arguments": '{"expression": "1+1"}'}}]
    assert tool_chunk["finish_reason"] is None and tool_chunk["usage"] is None
    assert last["finish_reason"] == "tool_calls" and last["usage"] and last["index"] == tool_chunk["index"]
    text = [c["delta"] for c in backend.emit(Reply(reasoning="plan", text="The result is 3367"),
                                             request(OpenAICompatibleContract, dump(QUERY)), True)]
    assert "".join(d["message"]["content"] for d in text) == "<think>\nplan\n</think>The result is 3367"
    assert text[-1]["finish_reason"] == "stop"


def test_openai_compatible_blocking_wraps_reasoning_into_the_content():
    reply = Reply(reasoning="plan", calls=(BrainCall("a", "calculator", {"expression": "1+1"}),))
    (only,) = list(OpenAICompatibleContract().emit(reply, request(OpenAICompatibleContract, dump(QUERY), stream=False), False))
    delta = only["delta"]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]
    assert delta["message"]["content"] == "<think>\nplan\n</think>"
    assert delta["message"]["tool_calls"][0]["id"] == "chatcmpl-tool-a"
    assert "opaque_body" not in delta["message"]


def test_raw_model_dump_roles_are_understood():
    """``PromptMessage.model_dump()`` without ``mode="json"`` keeps enum roles; the conversion
    still reads them."""
    raw = [m.model_dump() for m in (QUERY, AssistantPromptMessage(content="", tool_calls=[call("c1")]),
                                    ToolPromptMessage(content="3367", tool_call_id="c1"))]
    for backend_cls in ALL:
        backend = backend_cls()
        backend.check(backend.to_provider(request(backend_cls, raw)))
