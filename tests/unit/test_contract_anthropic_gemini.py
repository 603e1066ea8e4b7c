"""The Anthropic and Gemini contract backends: their conversion re-states the official model
plugins', their checks refuse what the providers refuse, and their chunks have the plugins'
shapes, streamed and blocking."""

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
from local_runner.contracts.anthropic import Anthropic0333Contract, AnthropicContract, signature_for
from local_runner.contracts.gemini import DUMMY_SIGNATURES, GeminiContract, GeminiFirstCallContract
from local_runner.contracts.gemini import signature_for as gemini_signature
from tests.unit.helpers import CALCULATOR

TOOLS = [CALCULATOR.model_dump()]
QUERY = [SystemPromptMessage(content="You are a careful agent."), UserPromptMessage(content="What is 37 * 91?")]


def dump(*messages):
    """Prompt message dicts as the plugin sends them to the daemon."""
    return [message.model_dump(mode="json") for message in messages]


def request(backend, messages, *, stream=True, tools=TOOLS, params=None):
    return {
        "model": backend.model, "completion_params": dict(backend.completion_params if params is None else params),
        "prompt_messages": messages, "tools": tools, "stream": stream,
    }


def gathered(chunks):
    """What a strategy gathers from the chunks: content (text or parts), opaque_body, tool calls."""
    text, parts, opaque, calls = "", [], None, []
    for chunk in chunks:
        message = chunk["delta"]["message"]
        if isinstance(message["content"], list):
            parts += message["content"]
        else:
            text += message["content"]
        if message.get("opaque_body") is not None:
            opaque = message["opaque_body"]
        calls += message["tool_calls"]
    return (parts if parts else text), opaque, calls


def first_round(backend, *, stream=True, params=None):
    req = request(backend, dump(*QUERY), stream=stream, params=params)
    chunks = list(backend.invoke_llm(req))
    return req, chunks, *gathered(chunks)


def with_results(req, assistant, calls, *, name="calculator"):
    results = [ToolPromptMessage(content="3367", tool_call_id=call["id"], name=name) for call in calls]
    return {**req, "prompt_messages": [*req["prompt_messages"], *([assistant] if assistant else []), *dump(*results)]}


def assistant(content, calls, opaque=None):
    tool_calls = [AssistantPromptMessage.ToolCall.model_validate(call) for call in calls]
    return AssistantPromptMessage(content=content, tool_calls=tool_calls, opaque_body=opaque).model_dump(mode="json")


def refused(backend, req, match):
    with pytest.raises(ProviderRejection, match=match):
        list(backend.invoke_llm(req))


def test_both_are_registered_with_their_plugins_provider_ids():
    assert CONTRACTS["anthropic"] is AnthropicContract
    assert CONTRACTS["gemini"] is GeminiContract
    assert AnthropicContract.provider == "langgenius/anthropic/anthropic"
    assert GeminiContract.provider == "langgenius/gemini/google"
    assert "stream-tool-call" not in AnthropicContract.model_settings(stream=False)["features"]


# -- Anthropic ------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_intact_replay_is_accepted_and_sent_as_the_signed_blocks(stream):
    backend = AnthropicContract()
    req, _, content, opaque, calls = first_round(backend, stream=stream)
    chunks = list(backend.invoke_llm(with_results(req, assistant(content, calls, opaque), calls)))
    assert backend.rejections == []
    assert gathered(chunks)[0].endswith("The result is 3367")
    body = backend.provider_requests[-1]
    assert body["system"] == "You are a careful agent."
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == opaque["anthropic_content"]
    assert body["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": calls[0]["id"], "content": "3367"}]


@pytest.mark.parametrize("stream", [True, False])
def test_anthropic_refuses_a_tool_round_that_lost_its_signed_thinking(stream):
    backend = AnthropicContract()
    req, _, content, _, calls = first_round(backend, stream=stream)
    first = "text" if stream else "tool_use"  # streamed content holds the <think> block as text
    refused(backend, with_results(req, assistant(content, calls), calls), f"Expected `thinking` or `redacted_thinking`, but found `{first}`")


def test_anthropic_refuses_a_thinking_block_changed_on_the_way():
    backend = AnthropicContract()
    req, _, content, opaque, calls = first_round(backend)
    changed = copy.deepcopy(opaque)
    changed["anthropic_content"][0]["thinking"] += " (edited)"
    refused(backend, with_results(req, assistant(content, calls, changed), calls), "Invalid `signature` in `thinking` block")


def test_anthropic_thinking_rule_applies_only_with_thinking_on():
    backend = AnthropicContract()
    params = {"max_tokens": 4096}
    req, chunks, _content, opaque, calls = first_round(backend, params=params)
    assert not any("<think>" in c["delta"]["message"]["content"] for c in chunks)
    assert [b["type"] for b in opaque["anthropic_content"]] == ["tool_use"]
    list(backend.invoke_llm(with_results(req, assistant("", calls), calls)))
    assert backend.rejections == []


def test_anthropic_refuses_tool_results_without_their_tool_use():
    backend = AnthropicContract()
    req, _, _, _, calls = first_round(backend)
    refused(backend, with_results(req, None, calls), r"unexpected `tool_use_id` found in `tool_result` blocks")


def test_anthropic_refuses_a_tool_use_not_answered_in_the_next_message():
    backend = AnthropicContract()
    req, _, content, opaque, calls = first_round(backend)
    messages = [*req["prompt_messages"], assistant(content, calls, opaque), *dump(UserPromptMessage(content="go on"))]
    refused(backend, {**req, "prompt_messages": messages}, "`tool_use` ids were found without `tool_result` blocks immediately after")


def test_anthropic_refuses_tool_history_without_tools():
    backend = AnthropicContract()
    req, _, content, opaque, calls = first_round(backend)
    final = {**with_results(req, assistant(content, calls, opaque), calls), "tools": None}
    refused(backend, final, r"Requests which include `tool_use` or `tool_result` blocks must define tools\.")


@pytest.mark.parametrize(
    ("parts", "match"),
    [([""], "text content blocks must be non-empty"), (["  \n"], "text content blocks must contain non-whitespace text")],
)
def test_anthropic_refuses_empty_text_blocks(parts, match):
    backend = AnthropicContract()
    req, _, _, _, calls = first_round(backend, params={"max_tokens": 4096})
    content = [TextPromptMessageContent(data=part) for part in parts]
    refused(backend, with_results(req, assistant(content, calls), calls), match)


def test_anthropic_refuses_an_empty_user_message():
    backend = AnthropicContract()
    refused(backend, request(backend, dump(UserPromptMessage(content=""))), "all messages must have non-empty content")


def test_anthropic_refuses_a_budget_not_below_max_tokens():
    backend = AnthropicContract()
    req = request(backend, dump(*QUERY), params={"thinking": True, "thinking_budget": 4096, "max_tokens": 4096})
    refused(backend, req, "`max_tokens` must be greater than `thinking.budget_tokens`")


def test_anthropic_replays_stored_blocks_and_ignores_the_content_beside_them():
    """Text added to an assistant message that carries ``opaque_body`` never reaches Claude."""
    backend = AnthropicContract()
    req, _, _, opaque, calls = first_round(backend)
    body = backend.to_provider(with_results(req, assistant("Observation: hidden", calls, opaque), calls))
    assert body["messages"][1]["content"] == opaque["anthropic_content"]
    assert "hidden" not in json.dumps(body)


def test_anthropic_merges_consecutive_assistant_messages_only():
    backend = AnthropicContract()
    messages = dump(
        UserPromptMessage(content="a"), UserPromptMessage(content="b"),
        AssistantPromptMessage(content="c"), AssistantPromptMessage(content="d"),
    )
    body = backend.to_provider(request(backend, messages, params={}))
    assert [m["role"] for m in body["messages"]] == ["user", "user", "assistant"]
    assert body["messages"][2]["content"] == [{"type": "text", "text": "c"}, {"type": "text", "text": "d"}]
    assert "system" not in body and "thinking" not in body


def test_anthropic_stream_shapes_for_a_tool_round_and_an_answer():
    backend = AnthropicContract(shape="stream")
    req, chunks, content, opaque, calls = first_round(backend)
    deltas = [c["delta"] for c in chunks]
    texts = [d["message"]["content"] for d in deltas]
    reasoning = opaque["anthropic_content"][0]["thinking"]
    assert "brain-reasoning" in reasoning
    assert texts[0] == "<think>\n" and "".join(texts[1:3]) == reasoning
    assert texts[3:] == ["\n</think>\n\n", ""]  # a0fee42 closes once before tool_use
    assert [d["index"] for d in deltas] == [0, 0, 0, 0, 1]
    assert [d["finish_reason"] for d in deltas] == [None] * 4 + ["tool_use"]
    assert all(d["message"]["tool_calls"] == [] and d["usage"] is None for d in deltas[:-1])
    last = deltas[-1]
    assert last["usage"]["total_tokens"] > 0
    assert last["message"]["tool_calls"] == calls and json.loads(calls[0]["function"]["arguments"]) == {"expression": "37 * 91"}
    assert [b["type"] for b in opaque["anthropic_content"]] == ["thinking", "tool_use"]
    assert opaque["anthropic_content"][0]["signature"] == signature_for(reasoning)

    answer = list(backend.invoke_llm(with_results(req, assistant(content, calls, opaque), calls)))
    text, answer_opaque, _ = gathered(answer)
    assert text.startswith("<think>\n") and text.count("</think>") == 1 and text.endswith("The result is 3367")
    assert answer[-1]["delta"]["finish_reason"] == "end_turn" and answer[-1]["delta"]["index"] == 2
    assert [b["type"] for b in answer_opaque["anthropic_content"]] == ["thinking", "text"]


def test_anthropic_0_3_33_closes_the_thinking_block_twice_before_tool_use():
    """1c274cb leaves the block type "thinking" when a ``tool_use`` follows, and closes it again
    at the end; a0fee42 (``AnthropicContract``) closes it once. Both keep the same blocks."""
    _, chunks, _, opaque, _ = first_round(Anthropic0333Contract(shape="stream"))
    texts = [c["delta"]["message"]["content"] for c in chunks]
    assert texts[3:] == ["\n</think>\n\n", "\n</think>\n\n", ""]
    assert [b["type"] for b in opaque["anthropic_content"]] == ["thinking", "tool_use"]


def test_anthropic_blocking_reply_is_one_chunk_with_reasoning_only_in_opaque_body():
    backend = AnthropicContract(shape="blocking")
    _, chunks, content, opaque, calls = first_round(backend, stream=False)
    (delta,) = [c["delta"] for c in chunks]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]["total_tokens"] > 0
    assert content == "" and len(calls) == 1
    assert "brain-reasoning" in opaque["anthropic_content"][0]["thinking"]


# -- Gemini ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_gemini_intact_replay_is_accepted_with_dummy_signatures(stream):
    backend = GeminiContract()
    req, _, content, opaque, calls = first_round(backend, stream=stream)
    assert opaque is None
    chunks = list(backend.invoke_llm(with_results(req, assistant(content, calls), calls)))
    assert backend.rejections == []
    assert "The result is 3367" in "".join(p["data"] for p in gathered(chunks)[0])
    body = backend.provider_requests[-1]
    assert body["systemInstruction"] == "You are a careful agent."
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    call_part = body["contents"][1]["parts"][-1]
    assert call_part == {
        "functionCall": {"id": calls[0]["id"], "name": "calculator", "args": {"expression": "37 * 91"}},
        "thoughtSignature": DUMMY_SIGNATURES[0],
    }
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"id": calls[0]["id"], "name": "calculator", "response": {"response": "3367"}}}
    ]


def test_gemini_strips_one_leading_think_block_from_string_content():
    backend = GeminiContract()
    req, _, _, _, calls = first_round(backend)
    content = "<think>\n\nplanning\n\n</think>I will compute it."
    body = backend.to_provider(with_results(req, assistant(content, calls), calls))
    assert body["contents"][1]["parts"][0] == {"text": "I will compute it.", "thoughtSignature": DUMMY_SIGNATURES[0]}


def test_gemini_drops_an_assistant_message_left_without_parts():
    backend = GeminiContract()
    messages = dump(
        UserPromptMessage(content="a"), AssistantPromptMessage(content="<think>only thoughts</think>"), UserPromptMessage(content="b")
    )
    body = backend.to_provider(request(backend, messages))
    assert body["contents"] == [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]


def test_gemini_refuses_function_responses_without_their_call_turn():
    backend = GeminiContract()
    req, _, _, _, calls = first_round(backend)
    refused(backend, with_results(req, None, calls), "function response turn comes immediately after a function call turn")


def test_gemini_refuses_a_function_response_without_a_name():
    backend = GeminiContract()
    req, _, content, _, calls = first_round(backend)
    refused(backend, with_results(req, assistant(content, calls), calls, name=None), r"function_response\.name: Name cannot be empty")


def test_gemini_refuses_more_responses_than_calls():
    backend = GeminiContract()
    req, _, content, _, calls = first_round(backend)
    doubled = with_results(req, assistant(content, calls), calls + calls)
    refused(backend, doubled, "number of function response parts is equal to the number of function call parts")


def test_gemini_refuses_empty_parts():
    backend = GeminiContract()
    refused(backend, request(backend, dump(UserPromptMessage(content=""))), r"contents\[0\]\.parts: contents\.parts must not be empty")


def test_gemini_refuses_a_function_call_turn_first():
    backend = GeminiContract()
    req, _, content, _, calls = first_round(backend)
    messages = [assistant(content, calls), *dump(ToolPromptMessage(content="3367", tool_call_id=calls[0]["id"], name="calculator"))]
    refused(backend, {**req, "prompt_messages": messages}, "function call turn comes immediately after a user turn")


def test_gemini3_refuses_an_unsigned_or_forged_function_call_the_plugin_never_sends():
    """The plugin always signs with the documented dummy; a body without it is refused on Gemini 3."""
    backend = GeminiContract()
    req, _, content, _, calls = first_round(backend)
    body = backend.to_provider(with_results(req, assistant(content, calls), calls))
    backend.check(body)
    call_part = body["contents"][1]["parts"][-1]
    unsigned = copy.deepcopy(body)
    del unsigned["contents"][1]["parts"][-1]["thoughtSignature"]
    with pytest.raises(ProviderRejection, match="Function call is missing a thought_signature in functionCall parts"):
        backend.check(unsigned)
    backend.check({**unsigned, "model": "gemini-2.5-flash"})
    forged = copy.deepcopy(body)
    forged["contents"][1]["parts"][-1]["thoughtSignature"] = "made-up"
    with pytest.raises(ProviderRejection, match="Corrupted thought signature"):
        backend.check(forged)
    real = copy.deepcopy(body)
    real["contents"][1]["parts"][-1]["thoughtSignature"] = gemini_signature("calculator", call_part["functionCall"]["args"])
    backend.check(real)


def test_gemini_stream_shapes_for_a_tool_round_and_an_answer():
    backend = GeminiContract(shape="stream")
    req, chunks, content, _, calls = first_round(backend)
    deltas = [c["delta"] for c in chunks]
    datas = [[p["data"] for p in d["message"]["content"]] for d in deltas]
    assert datas[0][0] == "<think>\n\n" and "brain-reasoning" in "".join(datas[0] + datas[1])
    assert datas[2] == ["\n\n</think>"]
    assert all(p["type"] == "text" for d in deltas for p in d["message"]["content"])
    assert [d["index"] for d in deltas] == [0, 1, 2]
    assert [d["finish_reason"] for d in deltas] == [None, None, "STOP"]
    assert all("opaque_body" not in d["message"] for d in deltas)
    assert deltas[-1]["message"]["tool_calls"] == calls and deltas[-1]["usage"]["total_tokens"] > 0
    assert calls[0]["id"].startswith("gemini_call_calculator_")

    answer = list(backend.invoke_llm(with_results(req, assistant(content, calls), calls)))
    datas = [[p["data"] for p in c["delta"]["message"]["content"]] for c in answer]
    assert datas[2][0] == "\n\n</think>" and "".join(datas[2][1:] + datas[3]) == "The result is 3367"
    assert [c["delta"]["index"] for c in answer] == [0, 1, 2, 3]
    assert answer[-1]["delta"]["finish_reason"] == "STOP"


@pytest.mark.parametrize("calls_first", [True, False])
def test_gemini_blocking_reply_is_one_chunk_and_a_tool_round_leaves_think_open(calls_first):
    backend = GeminiContract(shape="blocking")
    req, chunks, content, _, calls = first_round(backend, stream=False)
    if not calls_first:
        chunks = list(backend.invoke_llm(with_results(req, assistant(content, calls), calls)))
    (delta,) = [c["delta"] for c in chunks]
    assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]["total_tokens"] > 0
    datas = [p["data"] for p in delta["message"]["content"]]
    assert datas[0] == "<think>\n\n"
    if calls_first:
        assert "\n\n</think>" not in datas and len(delta["message"]["tool_calls"]) == 1
    else:
        assert "\n\n</think>" in datas and "".join(datas).endswith("The result is 3367")


def test_gemini_without_include_thoughts_sends_no_reasoning():
    backend = GeminiContract(shape="stream")
    _, _chunks, content, _, calls = first_round(backend, params={"thinking_level": "Low"})
    assert calls and not any("think" in p["data"] for p in content)


def _round_prompt(provider, calls, turn_fields, observations):
    """Function Calling's prompt after one round of ``calls`` (``ToolCall``) with ``observations``."""
    from dify_plugin.interfaces.agent import AgentModelConfig

    from agent_core.function_calling.prompt import chat_prompt
    from agent_core.params import StrategyParams
    from agent_core.run_state import Round, RunState
    from agent_core.tool_runner import ToolResult
    from agent_core.tool_schema import ToolRegistry
    from agent_core.turn import ModelTurn
    from agent_core.usage import empty_usage
    from tests.unit.test_tool_schema import tool as tool_entity

    model = AgentModelConfig(provider=provider, model="m", mode="chat", completion_params={})
    run = RunState(
        params=StrategyParams(model=model, query="What is 37 * 91?"),
        registry=ToolRegistry([tool_entity("calculator")]),
    )
    turn = ModelTurn(thought="", usage=empty_usage(), **turn_fields)
    results = tuple(ToolResult(c.id, c.name, c.arguments, text) for c, text in zip(calls, observations, strict=True))
    run.rounds.append(Round(index=1, turn=turn, results=results))
    return [message.model_dump(mode="json") for message in chat_prompt(run)]


def _parallel_round_prompt(provider: str):
    """Function Calling's prompt after a round of two parallel calculator calls."""
    from agent_core.tool_calls import ToolCall
    from agent_core.turn import ToolCalls

    calls = (
        ToolCall("c1", "calculator", {"expression": "37 * 91"}),
        ToolCall("c2", "calculator", {"expression": "2 + 2"}),
    )
    return _round_prompt(provider, calls, {"decision": ToolCalls(calls), "content": "Computing both."}, ["3367", "4"])


@pytest.mark.parametrize("provider", ["anthropic", "minimax", "openai_responses"])
def test_a_call_written_in_text_goes_back_with_the_providers_own_record_intact(provider):
    """The model wrote its call in its text; the plugin rebuilds the message from its
    opaque_body, which holds no such call: the message goes back as it was, the result as the
    user's message, and the provider accepts it (thinking blocks and reasoning items kept)."""
    from agent_core.tool_calls import ToolCall
    from agent_core.turn import ToolCalls

    backend = CONTRACTS[provider]()
    req = request(backend, dump(*QUERY))
    content, opaque, native = gathered(list(backend.invoke_llm({**req, "tools": []})))  # a reply in text only
    assert opaque is not None and native == []
    calls = (ToolCall("r1_call_1", "calculator", {"expression": "37 * 91"}),)
    fields = {"decision": ToolCalls(calls, in_text=True), "content": content, "opaque_body": opaque}
    messages = _round_prompt(backend.provider, calls, fields, ["3367"])
    assert [m["role"] for m in messages[-2:]] == ["assistant", "user"]
    assert messages[-2]["tool_calls"] == [] and messages[-2]["opaque_body"] == opaque
    assert "3367" in messages[-1]["content"]
    list(backend.invoke_llm({**req, "prompt_messages": messages}))
    assert backend.rejections == []


@pytest.mark.parametrize("contract", [GeminiFirstCallContract, GeminiContract])
def test_gemini_takes_parallel_calls_sent_one_call_a_message(contract):
    """dify#16760: the Gemini plugin's earlier versions send back only the first call of a
    message but every tool message, so a round of parallel calls goes one call (and its result)
    a message; the newest version, which sends every call, takes that form too."""
    backend = contract()
    messages = _parallel_round_prompt(GeminiContract.provider)
    assert [(m["role"], [c["id"] for c in m.get("tool_calls") or []]) for m in messages[-4:]] == [
        ("assistant", ["c1"]),
        ("tool", []),
        ("assistant", ["c2"]),
        ("tool", []),
    ]
    assert messages[-4]["content"] == "Computing both." and messages[-2]["content"] == ""
    list(backend.invoke_llm(request(backend, messages)))
    assert backend.rejections == []
    body = backend.provider_requests[-1]
    assert [
        len([p for p in turn["parts"] if "functionCall" in p or "functionResponse" in p])
        for turn in body["contents"][1:]
    ] == [1, 1, 1, 1]


def test_gemini_first_call_versions_refuse_parallel_calls_in_one_message():
    backend = GeminiFirstCallContract()
    messages = _parallel_round_prompt("langgenius/openai/openai")  # a plugin that sends back every call
    assert [m["role"] for m in messages[-3:]] == ["assistant", "tool", "tool"]
    refused(
        backend,
        request(backend, messages),
        "number of function response parts is equal to the number of function call parts",
    )


def test_newest_gemini_plugin_sends_every_call_of_a_message_each_with_the_dummy_signature():
    """The newest plugin (commit 521924b) replays every tool call of an assistant message, each
    with its id and the documented dummy signature, and every tool message by its id."""
    backend = GeminiContract()
    messages = _parallel_round_prompt("langgenius/openai/openai")  # all calls in one message
    list(backend.invoke_llm(request(backend, messages)))
    assert backend.rejections == []
    model_turn, responses = backend.provider_requests[-1]["contents"][1:]
    assert [p["functionCall"]["id"] for p in model_turn["parts"] if "functionCall" in p] == ["c1", "c2"]
    assert {p["thoughtSignature"] for p in model_turn["parts"]} == {DUMMY_SIGNATURES[0]}
    assert [p["functionResponse"]["id"] for p in responses["parts"]] == ["c1", "c2"]


@pytest.mark.parametrize("model", ["gemini-3.8-flash", "gemini-3.5-flash-lite"])
def test_gemini_models_without_prefill_get_a_prompt_ending_on_a_user_turn(model):
    """The plugin refuses, before any request, a conversation whose last turn is the model's for
    the models that take no prefill; Function Calling's prompt after a round ends on the tool
    results (a user turn), so it is sent."""
    from local_runner.contracts.base import PluginFailure

    backend = GeminiContract()
    messages = _parallel_round_prompt(GeminiContract.provider)
    list(backend.invoke_llm({**request(backend, messages), "model": model}))
    assert backend.rejections == []
    with pytest.raises(PluginFailure, match="requires a non-empty final user turn"):
        list(backend.invoke_llm({**request(backend, [*messages[:-1], assistant("Let me see.", [])]), "model": model}))


def test_gemini_blocking_thoughts_before_a_call_do_not_go_back_as_text_the_model_said():
    """The Gemini plugin's blocking reply of thoughts and a function call leaves its <think>
    open, and the plugin strips only a closed block: the round goes back with the block closed,
    so the model turn holds the call alone, not the thoughts as model text."""
    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.model_call import normalize_chunk
    from local_runner.contracts.base import REASONING_MARK
    from tests.unit.helpers import drain

    backend = GeminiContract(shape="blocking")
    req, chunks, *_ = first_round(backend, stream=False)
    _, turn = drain(read_function_calling_turn(iter(normalize_chunk(c) for c in chunks), ["calculator"]))
    calls = turn.decision.calls
    fields = {"decision": turn.decision, "content": turn.content, "opaque_body": turn.opaque_body}
    messages = _round_prompt(GeminiContract.provider, calls, fields, ["3367"])
    list(backend.invoke_llm({**req, "prompt_messages": messages}))
    assert backend.rejections == []
    (model_turn,) = [turn for turn in backend.provider_requests[-1]["contents"] if turn["role"] == "model"]
    assert [list(part) for part in model_turn["parts"]] == [["functionCall", "thoughtSignature"]]
    assert REASONING_MARK not in json.dumps(backend.provider_requests[-1])
