"""The OpenAI contract backends (``local_runner/contracts/openai.py``): Chat Completions and the
Responses API as the official OpenAI model plugin drives them. Each refuses what OpenAI
refuses (a replay that lost its reasoning items, an orphan tool result, ...), accepts the intact
replay, and answers in the plugin's chunk shapes, streamed and blocking."""

import copy
import json

import pytest
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    SystemPromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)

from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply
from local_runner.contracts.openai import (
    OUTPUT_KEY,
    OpenAIChatContract,
    OpenAIResponsesContract,
    is_reasoning_model,
    refuses_stop,
    uses_responses,
)
from tests.unit.helpers import CALCULATOR

TOOL = CALCULATOR.model_dump(mode="json")
SYSTEM = SystemPromptMessage(content="You are a helpful agent.").model_dump(mode="json")
USER = UserPromptMessage(content="What is 37 * 91?").model_dump(mode="json")


def request(backend, messages, *, stream=True, tools=(TOOL,), stop=None, params=None):
    """A backwards ``llm`` request body as the daemon hands it to the backend."""
    return {
        "provider": backend.provider,
        "model": backend.model,
        "mode": "chat",
        "completion_params": dict(params or {}),
        "prompt_messages": messages,
        "tools": list(tools) or None,
        "stop": stop,
        "stream": stream,
    }


def call_dict(call_id="call_01_calculator", arguments='{"expression": "37 * 91"}'):
    return {"id": call_id, "type": "function", "function": {"name": "calculator", "arguments": arguments}}


def assistant(content="", calls=(), opaque_body=None):
    return AssistantPromptMessage(
        content=content,
        tool_calls=[AssistantPromptMessage.ToolCall.model_validate(c) for c in calls],
        opaque_body=opaque_body,
    ).model_dump(mode="json")


def tool_result(call_id="call_01_calculator", content="3367"):
    return ToolPromptMessage(content=content, tool_call_id=call_id, name="calculator").model_dump(mode="json")


def gather(chunks):
    """What a strategy keeps of one reply: text, complete tool calls, the last opaque_body."""
    text, calls, opaque = "", [], None
    for chunk in chunks:
        message = chunk["delta"]["message"]
        text += message["content"] if isinstance(message["content"], str) else ""
        calls += message["tool_calls"]
        opaque = message.get("opaque_body", opaque)
    return text, calls, opaque


def first_round(backend, stream):
    chunks = list(backend.invoke_llm(request(backend, [SYSTEM, USER], stream=stream)))
    return chunks, *gather(chunks)


# ---------------------------------------------------------------------------------------------
# routing and model facts


def test_routing_follows_the_plugin():
    assert uses_responses("gpt-5-mini", {}) and uses_responses("gpt-4o-mini", {})
    assert not uses_responses("gpt-4o-mini", {"api_protocol": "chat"})
    assert not uses_responses("gpt-audio-mini", {})
    assert uses_responses("o3-pro", {"api_protocol": "chat"})
    assert is_reasoning_model("gpt-5-mini") and is_reasoning_model("o4-mini") and is_reasoning_model("ft:gpt-5:org::x")
    assert not is_reasoning_model("gpt-4o-mini") and not is_reasoning_model("gpt-5-chat-latest")
    assert refuses_stop("gpt-5-mini") and refuses_stop("o3") and not refuses_stop("gpt-4o-mini")
    assert not refuses_stop("gpt-5.5")


def test_both_are_registered_under_their_names():
    assert CONTRACTS["openai"] is OpenAIChatContract
    assert CONTRACTS["openai_responses"] is OpenAIResponsesContract


# ---------------------------------------------------------------------------------------------
# Chat Completions


def test_chat_request_is_converted_as_the_plugin_does():
    backend = OpenAIChatContract()
    messages = [SYSTEM, USER, assistant("", [call_dict()]), tool_result()]
    body = backend.to_provider(request(backend, messages, stop=["Observation"]))
    assert body["messages"] == [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": "What is 37 * 91?"},
        {"role": "assistant", "content": "", "tool_calls": [call_dict()]},
        {"role": "tool", "content": "3367", "tool_call_id": "call_01_calculator"},
    ]
    assert body["tools"] == [{"type": "function", "function": {"name": "calculator", "description": TOOL["description"],
                                                               "parameters": TOOL["parameters"]}}]
    assert body["tool_choice"] == "auto" and body["stop"] == ["Observation"]
    assert body["stream_options"] == {"include_usage": True}


def test_chat_user_text_parts_become_text_parts():
    backend = OpenAIChatContract()
    user = UserPromptMessage(content=[TextPromptMessageContent(data="hi")]).model_dump(mode="json")
    assert backend.message(user) == {"role": "user", "content": [{"type": "text", "text": "hi"}]}


@pytest.mark.parametrize("stream", [True, False])
def test_chat_accepts_the_intact_round_and_answers(stream):
    backend = OpenAIChatContract(shape="stream" if stream else "blocking")
    _, text, calls, opaque = first_round(backend, stream)
    assert calls == [call_dict()] and opaque is None and text == ""
    second = [SYSTEM, USER, assistant(text, calls), tool_result()]
    answer, _, _ = gather(backend.invoke_llm(request(backend, second, stream=stream)))
    assert answer == "The result is 3367"
    assert backend.rejections == []


def test_chat_refuses_an_orphan_tool_result():
    backend = OpenAIChatContract()
    with pytest.raises(ProviderRejection, match="must be a response to a preceeding message with 'tool_calls'"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, tool_result()])))


def test_chat_refuses_an_unanswered_tool_call():
    backend = OpenAIChatContract()
    messages = [SYSTEM, USER, assistant("", [call_dict(), call_dict("call_02_calculator")]), tool_result()]
    with pytest.raises(ProviderRejection, match="call_02_calculator"):
        list(backend.invoke_llm(request(backend, messages)))


def test_chat_reasoning_models_refuse_stop_words():
    backend = OpenAIChatContract()
    body = backend.to_provider({**request(backend, [USER], stop=["Observation"]), "model": "o3"})
    with pytest.raises(ProviderRejection, match="'stop' is not supported"):
        backend.check(body)
    backend.check(backend.to_provider(request(backend, [USER], stop=["Observation"])))


def test_chat_stream_shape():
    backend = OpenAIChatContract()
    reply = Reply(reasoning="(hidden)", text="Checking now.", calls=(BrainCall("call_9", "calculator", {"expression": "1"}),))
    chunks = list(backend.emit(reply, request(backend, [USER]), True))
    *texts, last = chunks
    assert "".join(c["delta"]["message"]["content"] for c in texts) == "Checking now."
    assert all(c["delta"]["index"] == 0 and not c["delta"]["message"]["tool_calls"] for c in chunks[:-1])
    assert all(c["delta"]["usage"] is None and c["delta"]["finish_reason"] is None for c in texts)
    assert last["delta"]["message"]["content"] == "" and last["delta"]["finish_reason"] == "tool_calls"
    assert [c["id"] for c in last["delta"]["message"]["tool_calls"]] == ["call_9"]
    assert last["delta"]["usage"]["total_tokens"] > 0
    assert all("opaque_body" not in c["delta"]["message"] for c in chunks)
    assert "(hidden)" not in json.dumps(chunks)


def test_chat_blocking_shape_is_one_chunk_without_finish_reason():
    backend = OpenAIChatContract()
    reply = Reply(reasoning="(hidden)", text="The result is 3367")
    (chunk,) = backend.emit(reply, request(backend, [USER], stream=False), False)
    assert chunk["delta"]["index"] == 0 and chunk["delta"]["finish_reason"] is None
    assert chunk["delta"]["message"]["content"] == "The result is 3367" and chunk["delta"]["usage"]


def test_chat_provider_stops_at_a_stop_word():
    backend = OpenAIChatContract()
    reply = Reply(reasoning="", text="Thought: x\nAction: y\nObservation: invented")
    text, _, _ = gather(backend.emit(reply, request(backend, [USER], stop=["Observation"]), True))
    assert text == "Thought: x\nAction: y\n"


# ---------------------------------------------------------------------------------------------
# Responses API


@pytest.mark.parametrize("stream", [True, False])
def test_responses_first_round_stores_every_output_item(stream):
    backend = OpenAIResponsesContract(shape="stream" if stream else "blocking")
    chunks, text, calls, opaque = first_round(backend, stream)
    assert text == "" and [c["id"] for c in calls] == ["call_01_calculator"]
    kinds = [item["type"] for item in opaque[OUTPUT_KEY]]
    assert kinds == ["reasoning", "function_call"]
    reasoning, function_call = opaque[OUTPUT_KEY]
    assert reasoning["id"].startswith("rs_") and reasoning["encrypted_content"] and reasoning["summary"] == []
    assert function_call["id"].startswith("fc_") and function_call["call_id"] == "call_01_calculator"
    assert REASONING_MARK not in json.dumps(chunks)  # the reasoning is encrypted, never shown
    body = backend.provider_requests[0]
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["tools"] == [{"type": "function", "name": "calculator", "description": TOOL["description"],
                              "parameters": TOOL["parameters"], "strict": False}]


@pytest.mark.parametrize("stream", [True, False])
def test_responses_accepts_the_intact_replay_and_sends_the_stored_items_back(stream):
    backend = OpenAIResponsesContract(shape="stream" if stream else "blocking")
    _, text, calls, opaque = first_round(backend, stream)
    second = [SYSTEM, USER, assistant(text, calls, opaque), tool_result()]
    answer, _, final_opaque = gather(backend.invoke_llm(request(backend, second, stream=stream)))
    assert answer == "The result is 3367"
    assert [item["type"] for item in final_opaque[OUTPUT_KEY]] == ["reasoning", "message"]
    sent = backend.provider_requests[1]["input"]
    assert sent[2:4] == opaque[OUTPUT_KEY]
    assert sent[4] == {"type": "function_call_output", "call_id": "call_01_calculator", "output": "3367"}
    assert backend.rejections == []


@pytest.mark.parametrize("stream", [True, False])
def test_responses_refuses_a_replay_that_lost_its_opaque_body(stream):
    backend = OpenAIResponsesContract(shape="stream" if stream else "blocking")
    _, text, calls, _ = first_round(backend, stream)
    second = [SYSTEM, USER, assistant(text, calls, None), tool_result()]
    with pytest.raises(ProviderRejection, match="of type 'function_call' was provided without its required 'reasoning' item"):
        list(backend.invoke_llm(request(backend, second, stream=stream)))
    fallback = backend.provider_requests[-1]["input"]
    assert fallback[2] == {"type": "function_call", "call_id": "call_01_calculator", "name": "calculator",
                           "arguments": '{"expression": "37 * 91"}'}


def test_responses_refuses_a_function_call_item_without_its_reasoning_item():
    backend = OpenAIResponsesContract()
    _, text, calls, opaque = first_round(backend, True)
    rs_id = opaque[OUTPUT_KEY][0]["id"]
    stripped = {OUTPUT_KEY: [item for item in opaque[OUTPUT_KEY] if item["type"] != "reasoning"]}
    second = [SYSTEM, USER, assistant(text, calls, stripped), tool_result()]
    with pytest.raises(ProviderRejection, match=f"without its required 'reasoning' item: '{rs_id}'"):
        list(backend.invoke_llm(request(backend, second)))


def test_responses_refuses_a_reasoning_item_without_its_following_item():
    backend = OpenAIResponsesContract()
    _, text, calls, opaque = first_round(backend, True)
    only_reasoning = {OUTPUT_KEY: opaque[OUTPUT_KEY][:1]}
    follow_up = UserPromptMessage(content="Go on.").model_dump(mode="json")
    second = [SYSTEM, USER, assistant(text, calls, only_reasoning), follow_up]
    with pytest.raises(ProviderRejection, match="of type 'reasoning' was provided without its required following item"):
        list(backend.invoke_llm(request(backend, second)))


def test_responses_refuses_a_reasoning_item_without_or_with_changed_encrypted_content():
    backend = OpenAIResponsesContract()
    _, text, calls, opaque = first_round(backend, True)
    bare = copy.deepcopy(opaque)
    del bare[OUTPUT_KEY][0]["encrypted_content"]
    with pytest.raises(ProviderRejection, match="Items are not persisted when `store` is set to false"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, assistant(text, calls, bare), tool_result()])))
    changed = copy.deepcopy(opaque)
    changed[OUTPUT_KEY][0]["encrypted_content"] += "x"
    with pytest.raises(ProviderRejection, match="could not be verified"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, assistant(text, calls, changed), tool_result()])))


def test_responses_refuses_an_orphan_function_call_output():
    backend = OpenAIResponsesContract()
    first_round(backend, True)
    with pytest.raises(ProviderRejection, match="No tool call found for function call output with call_id call_01_calculator"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, tool_result()])))


def test_responses_refuses_an_unanswered_function_call():
    backend = OpenAIResponsesContract()
    _, text, calls, opaque = first_round(backend, True)
    with pytest.raises(ProviderRejection, match="No tool output found for function call call_01_calculator"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, assistant(text, calls, opaque)])))


def test_responses_refuses_the_same_output_sent_twice():
    backend = OpenAIResponsesContract()
    _, text, calls, opaque = first_round(backend, True)
    twice = [SYSTEM, USER, assistant(text, calls, opaque), tool_result(), assistant(text, calls, opaque), tool_result()]
    with pytest.raises(ProviderRejection, match="Duplicate item found with id rs_"):
        list(backend.invoke_llm(request(backend, twice)))


def test_responses_refuses_outputs_interleaved_between_one_responses_calls():
    backend = OpenAIResponsesContract()
    calls = (BrainCall("call_a", "calculator", {"expression": "1"}), BrainCall("call_b", "calculator", {"expression": "2"}))
    (chunk,) = backend.emit(Reply(reasoning="plan", calls=calls), request(backend, [USER], stream=False), False)
    reasoning, call_a, call_b = chunk["delta"]["message"]["opaque_body"][OUTPUT_KEY]
    output = lambda call_id: {"type": "function_call_output", "call_id": call_id, "output": "1"}  # noqa: E731
    grouped = {"model": backend.model, "store": False, "input": [reasoning, call_a, call_b, output("call_a"), output("call_b")]}
    backend.check(grouped)
    interleaved = {**grouped, "input": [reasoning, call_a, output("call_a"), call_b, output("call_b")]}
    with pytest.raises(ProviderRejection, match=f"Item '{call_b['id']}' of type 'function_call'"):
        backend.check(interleaved)


def test_responses_refuses_assistant_text_parts_without_the_opaque_body():
    backend = OpenAIResponsesContract()
    parts = assistant([TextPromptMessageContent(data="Earlier answer.")])
    messages = [SYSTEM, USER, parts, UserPromptMessage(content="And now?").model_dump(mode="json")]
    with pytest.raises(ProviderRejection, match="Invalid value: 'input_text'"):
        list(backend.invoke_llm(request(backend, messages, tools=())))


def test_responses_accepts_earlier_turns_and_react_text_without_opaque_body():
    backend = OpenAIResponsesContract()
    memory = [SYSTEM, USER, assistant("", [call_dict()]), tool_result(), assistant("The result is 3367")]
    follow_up = UserPromptMessage(content="Thanks. And 2 + 2?").model_dump(mode="json")
    list(backend.invoke_llm(request(backend, [*memory, follow_up])))
    scratchpad = assistant('Thought: I will use calculator.\nAction:\n```json\n{"action": "calculator"}\n```\nObservation: 3367')
    list(backend.invoke_llm(request(backend, [SYSTEM, USER, scratchpad, follow_up], tools=())))
    assert backend.rejections == []


def test_responses_never_sends_stop_and_cuts_the_text_itself():
    backend = OpenAIResponsesContract()
    reply = Reply(reasoning="plan", text="Thought: x\nAction: y\nObservation: invented")
    req = request(backend, [USER], stop=["Observation"], tools=())
    assert "stop" not in backend.to_provider(req)
    chunks = list(backend.emit(reply, req, True))
    text, _, opaque = gather(chunks)
    assert text == "Thought: x\nAction: y\n" and opaque is None
    assert chunks[-1]["delta"]["finish_reason"] == "stop"
    (blocking,) = backend.emit(reply, {**req, "stream": False}, False)
    assert blocking["delta"]["message"]["content"] == "Thought: x\nAction: y\n"
    assert "opaque_body" not in blocking["delta"]["message"]


def test_responses_stream_shape():
    backend = OpenAIResponsesContract()
    reply = Reply(reasoning="plan", text="Checking now.", calls=(BrainCall("call_9", "calculator", {"expression": "1"}),))
    chunks = list(backend.emit(reply, request(backend, [USER]), True))
    *texts, last = chunks
    assert "".join(c["delta"]["message"]["content"] for c in texts) == "Checking now."
    for chunk in texts:
        delta = chunk["delta"]
        assert delta["index"] == 0 and delta["usage"] is None and delta["finish_reason"] is None
        assert not delta["message"]["tool_calls"] and "opaque_body" not in delta["message"]
    delta = last["delta"]
    assert delta["message"]["content"] == "" and delta["finish_reason"] == "tool_calls" and delta["usage"]
    assert [c["id"] for c in delta["message"]["tool_calls"]] == ["call_9"]
    assert [item["type"] for item in delta["message"]["opaque_body"][OUTPUT_KEY]] == ["reasoning", "message", "function_call"]


def test_responses_blocking_shape_is_one_chunk_with_everything():
    backend = OpenAIResponsesContract()
    reply = Reply(reasoning="plan", text="Checking now.", calls=(BrainCall("call_9", "calculator", {"expression": "1"}),))
    (chunk,) = backend.emit(reply, request(backend, [USER], stream=False), False)
    delta = chunk["delta"]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]
    assert delta["message"]["content"] == "Checking now."
    assert [c["id"] for c in delta["message"]["tool_calls"]] == ["call_9"]
    assert [item["type"] for item in delta["message"]["opaque_body"][OUTPUT_KEY]] == ["reasoning", "message", "function_call"]


@pytest.mark.parametrize("stream", [True, False])
def test_responses_reasoning_summaries_show_as_a_think_block_when_asked_for(stream):
    backend = OpenAIResponsesContract()
    req = request(backend, [USER], stream=stream, params={"reasoning_summary": "auto"})
    assert backend.to_provider(req)["reasoning"] == {"summary": "auto"}
    text, _, opaque = gather(backend.emit(Reply(reasoning="plan it", text="Answer."), req, stream))
    assert text == "<think>\nplan it\n</think>\nAnswer."
    assert opaque[OUTPUT_KEY][0]["summary"] == [{"type": "summary_text", "text": "plan it"}]


def test_responses_enable_stream_off_answers_in_one_chunk():
    backend = OpenAIResponsesContract()
    req = request(backend, [USER], params={"enable_stream": False})
    assert len(list(backend.emit(Reply(reasoning="r", text="A long enough answer."), req, True))) == 1
