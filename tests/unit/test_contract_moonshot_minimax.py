"""The Moonshot (Kimi) and MiniMax contract backends: each refuses a tool round whose assistant
message lost what its provider needs (Kimi: ``reasoning_content``, from ``opaque_body`` or the
``<think>`` block; MiniMax: the signed thinking block, from ``opaque_body``) and accepts the
intact one; their chunks have the shapes of the official model plugins, streamed and blocking.

Requests are built from the SDK's own ``PromptMessage`` classes (``model_dump(mode="json")``),
as Dify sends them to a model plugin."""

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
from local_runner.contracts.minimax import OPAQUE_KEY, MiniMaxContract, signature
from local_runner.contracts.moonshot import MoonshotContract
from tests.unit.helpers import CALCULATOR

TOOLS = [CALCULATOR.model_dump(mode="json")]
REASONING = f"({REASONING_MARK} 1) The user needs calculator."
CALL = AssistantPromptMessage.ToolCall(
    id="call_01_calculator", type="function",
    function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="calculator", arguments='{"expression": "37 * 91"}'),
)
SIGNATURE = signature(REASONING)
MINIMAX_BLOCKS = [
    {"type": "thinking", "thinking": REASONING, "signature": SIGNATURE},
    {"type": "tool_use", "id": "call_01_calculator", "name": "calculator", "input": {"expression": "37 * 91"}},
]


def dump(*messages):
    return [m.model_dump(mode="json") for m in messages]


def request(model, assistant, *, tools=TOOLS, stream=True, params=None, result=True):
    """Round 2 of a tool run: system, user, the round-1 ``assistant`` message, its tool result."""
    messages = [SystemPromptMessage(content="You are a helpful assistant."), UserPromptMessage(content="What is 37 * 91?")]
    if assistant is not None:
        messages.append(assistant)
    if result:
        messages.append(ToolPromptMessage(content="3367", tool_call_id="call_01_calculator", name="calculator"))
    return {"model": model, "prompt_messages": dump(*messages), "tools": tools, "stream": stream,
            "completion_params": dict(params or {})}


def check(backend, req):
    body = backend.to_provider(req)
    backend.check(body)
    return body


def refused(backend, req, match):
    with pytest.raises(ProviderRejection, match=match) as caught:
        check(backend, req)
    assert caught.value.status == 400
    return caught.value


def chunks_of(backend, reply, *, stream, params=None, model=None):
    req = {"model": model or backend.model, "prompt_messages": dump(UserPromptMessage(content="What is 37 * 91?")),
           "tools": TOOLS, "stream": stream, "completion_params": dict(params or {})}
    return list(backend.emit(reply, req, stream))


def messages(chunks):
    return [c["delta"]["message"] for c in chunks]


CALL_REPLY = Reply(reasoning=REASONING, calls=(BrainCall("call_01_calculator", "calculator", {"expression": "37 * 91"}),))
ANSWER_REPLY = Reply(reasoning=REASONING, text="The result is 3367")


# ---------------------------------------------------------------------------------------------
# Moonshot (Kimi K2 Thinking)


class TestMoonshotCheck:
    backend = MoonshotContract()

    def test_streamed_round_replayed_with_its_think_block_is_accepted(self):
        # a streamed round has no opaque_body: its reasoning is the <think> block of the content
        body = check(self.backend, request("kimi-k2-thinking", AssistantPromptMessage(content=f"<think>{REASONING}</think>", tool_calls=[CALL])))
        assistant = body["messages"][2]
        assert assistant == {"role": "assistant", "content": "", "reasoning_content": REASONING,
                             "tool_calls": [{"id": "call_01_calculator", "type": "function",
                                             "function": {"name": "calculator", "arguments": '{"expression": "37 * 91"}'}}]}

    def test_blocking_round_replayed_intact_is_accepted_and_opaque_body_wins(self):
        assistant = AssistantPromptMessage(content=f"<think>{REASONING}</think>", tool_calls=[CALL],
                                           opaque_body={"reasoning_content": "  exact reasoning\n"})
        body = check(self.backend, request("kimi-k2-thinking", assistant, stream=False))
        assert body["messages"][2]["reasoning_content"] == "  exact reasoning\n"
        assert body["messages"][2]["content"] == ""

    def test_opaque_body_alone_carries_the_reasoning(self):
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL], opaque_body={"reasoning_content": REASONING})
        assert check(self.backend, request("kimi-k2-thinking", assistant))["messages"][2]["reasoning_content"] == REASONING

    def test_stripped_think_block_without_opaque_body_is_refused(self):
        # the plugin still sends reasoning_content (""): the reasoning itself is lost
        req = request("kimi-k2-thinking", AssistantPromptMessage(content="", tool_calls=[CALL]))
        assert self.backend.to_provider(req)["messages"][2]["reasoning_content"] == ""
        refused(self.backend, req, "thinking is enabled but reasoning_content is missing in assistant tool call message at index 2")

    def test_dropped_opaque_body_of_a_blocking_round_with_its_think_block_stripped_is_refused(self):
        refused(self.backend, request("kimi-k2.6", AssistantPromptMessage(content="", tool_calls=[CALL]), stream=False),
                "reasoning_content is missing")

    def test_thinking_turned_off_needs_no_reasoning(self):
        check(self.backend, request("kimi-k2.6", AssistantPromptMessage(content="", tool_calls=[CALL]), params={"thinking": False}))

    def test_tool_result_without_its_call_is_refused(self):
        refused(self.backend, request("kimi-k2-thinking", None), "tool_call_id call_01_calculator is not found")

    def test_unanswered_call_is_refused(self):
        assistant = AssistantPromptMessage(content=f"<think>{REASONING}</think>", tool_calls=[CALL])
        req = request("kimi-k2-thinking", assistant, result=False)
        req["prompt_messages"].append(UserPromptMessage(content="go on").model_dump(mode="json"))
        refused(self.backend, req, "call_01_calculator")

    def test_empty_tool_result_is_dropped_by_the_plugin_and_the_call_goes_unanswered(self):
        req = request("kimi-k2-thinking", AssistantPromptMessage(content=f"<think>{REASONING}</think>", tool_calls=[CALL]), result=False)
        req["prompt_messages"].append(ToolPromptMessage(content="", tool_call_id="call_01_calculator").model_dump(mode="json"))
        refused(self.backend, req, "tool_call_ids without tool messages")

    def test_assistant_message_left_empty_by_a_stripped_think_block_is_refused(self):
        req = request("kimi-k2-thinking", AssistantPromptMessage(content=f"<think>{REASONING}</think>"), result=False)
        req["prompt_messages"].append(UserPromptMessage(content="and then?").model_dump(mode="json"))
        refused(self.backend, req, "the message at position 2 with role 'assistant' must not be empty")

    def test_adjacent_assistant_messages_merge_and_keep_both_reasonings(self):
        first = AssistantPromptMessage(content="<think>r1</think>a", opaque_body={"reasoning_content": "r1"})
        second = AssistantPromptMessage(content="<think>r2</think>b", tool_calls=[CALL], opaque_body={"reasoning_content": "r2"})
        req = request("kimi-k2-thinking", first)
        req["prompt_messages"].insert(3, second.model_dump(mode="json"))
        body = check(self.backend, req)
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool"]
        assert body["messages"][2]["content"] == "a\n\nb"
        assert body["messages"][2]["reasoning_content"] == "r1\n\nr2"

    def test_assistant_content_parts_make_the_plugin_fail(self):
        assistant = AssistantPromptMessage(content=[TextPromptMessageContent(data="calling")], tool_calls=[CALL])
        with pytest.raises(ProviderRejection, match="not JSON serializable") as caught:
            self.backend.to_provider(request("kimi-k2-thinking", assistant))
        assert caught.value.status == 500

    def test_body_declares_the_tools_as_the_sdk_does(self):
        body = check(self.backend, request("kimi-k2-thinking", AssistantPromptMessage(content=f"<think>{REASONING}</think>", tool_calls=[CALL])))
        assert body["tool_choice"] == "auto"
        assert body["tools"][0] == {"type": "function", "function": {"name": "calculator", "description": TOOLS[0]["description"],
                                                                     "parameters": TOOLS[0]["parameters"]}}
        assert body["messages"][0] == {"role": "system", "content": "You are a helpful assistant."}
        assert body["messages"][3] == {"role": "tool", "content": "3367", "tool_call_id": "call_01_calculator"}


class TestMoonshotEmit:
    backend = MoonshotContract()

    def test_streamed_tool_call(self):
        chunks = chunks_of(self.backend, CALL_REPLY, stream=True)
        got = messages(chunks)
        assert got[0]["content"].startswith("<think>") and REASONING.startswith(got[0]["content"][len("<think>"):])
        assert "".join(m["content"] for m in got) == f"<think>{REASONING}</think>"
        assert all("opaque_body" not in m for m in got)
        with_calls = [i for i, m in enumerate(got) if m["tool_calls"]]
        assert with_calls == [len(got) - 2]
        assert got[-3]["content"] == "</think>"
        assert got[-2]["tool_calls"] == [{"id": "call_01_calculator", "type": "function",
                                          "function": {"name": "calculator", "arguments": '{"expression": "37 * 91"}'}}]
        assert [i for i, c in enumerate(chunks) if c["delta"]["usage"] is not None] == [len(chunks) - 1]
        assert chunks[-1]["delta"]["finish_reason"] == "tool_calls" and got[-1]["content"] == ""
        assert all(c["delta"]["index"] % 2 == 1 for c in chunks[:-3])

    def test_streamed_answer_closes_the_think_block_on_the_first_text(self):
        got = messages(chunks_of(self.backend, ANSWER_REPLY, stream=True))
        closing = next(m["content"] for m in got if "</think>" in m["content"])
        assert closing.startswith("</think>") and len(closing) > len("</think>")
        assert "".join(m["content"] for m in got) == f"<think>{REASONING}</think>The result is 3367"

    def test_blocking_is_one_chunk_with_think_block_and_opaque_body(self):
        [chunk] = chunks_of(self.backend, CALL_REPLY, stream=False)
        delta = chunk["delta"]
        assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]["total_tokens"] > 0
        assert delta["message"]["content"] == f"<think>{REASONING}</think>"
        assert delta["message"]["opaque_body"] == {"reasoning_content": REASONING}
        assert [c["id"] for c in delta["message"]["tool_calls"]] == ["call_01_calculator"]

    def test_kimi_with_thinking_off_returns_no_reasoning(self):
        [chunk] = chunks_of(self.backend, ANSWER_REPLY, stream=False, params={"thinking": False}, model="kimi-k2.6")
        assert chunk["delta"]["message"]["content"] == "The result is 3367"
        assert "opaque_body" not in chunk["delta"]["message"]

    @pytest.mark.parametrize("stream", [True, False])
    def test_a_round_replayed_as_the_plugin_emitted_it_is_accepted(self, stream):
        backend = MoonshotContract(shape="stream" if stream else "blocking")
        first = request("kimi-k2-thinking", None, stream=stream, result=False)
        got = messages(list(backend.invoke_llm(first)))
        opaque = next((m["opaque_body"] for m in got if "opaque_body" in m), None)
        calls = [c for m in got for c in m["tool_calls"]]
        assistant = {"role": "assistant", "content": "".join(m["content"] for m in got), "tool_calls": calls, "opaque_body": opaque}
        tool = ToolPromptMessage(content="3367", tool_call_id=calls[0]["id"], name="calculator").model_dump(mode="json")
        answer = messages(list(backend.invoke_llm({**first, "prompt_messages": [*first["prompt_messages"], assistant, tool]})))
        assert backend.rejections == []
        replayed = backend.provider_requests[-1]["messages"][2]
        assert replayed["content"] == "" and replayed["reasoning_content"].startswith(f"({REASONING_MARK} 1)")
        assert "3367" in "".join(m["content"] for m in answer)


# ---------------------------------------------------------------------------------------------
# MiniMax (M2.5 through the Anthropic-compatible API)


class TestMiniMaxCheck:
    backend = MiniMaxContract()

    def test_replayed_opaque_blocks_are_sent_exactly_and_accepted(self):
        assistant = AssistantPromptMessage(content=f"<think>{REASONING}</think>\n", tool_calls=[CALL], opaque_body={OPAQUE_KEY: MINIMAX_BLOCKS})
        body = check(self.backend, request("minimax-m2.5", assistant))
        assert body["model"] == "MiniMax-M2.5" and body["system"] == "You are a helpful assistant."
        assert body["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "What is 37 * 91?"}]},
            {"role": "assistant", "content": MINIMAX_BLOCKS},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_01_calculator", "content": "3367"}]},
        ]

    def test_dropped_opaque_body_sends_the_think_block_as_text_and_is_refused(self):
        req = request("minimax-m2.5", AssistantPromptMessage(content=f"<think>{REASONING}</think>\n", tool_calls=[CALL]))
        assistant = self.backend.to_provider(req)["messages"][1]
        assert assistant["content"][0] == {"type": "text", "text": f"<think>{REASONING}</think>\n"}
        refused(self.backend, req, r"messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`")

    def test_stripped_content_and_no_opaque_body_is_refused(self):
        refused(self.backend, request("minimax-m2.5", AssistantPromptMessage(content="", tool_calls=[CALL])),
                "but found `tool_use`")

    def test_a_thinking_block_rebuilt_without_its_signature_is_refused(self):
        rebuilt = [{"type": "thinking", "thinking": REASONING, "signature": ""}, MINIMAX_BLOCKS[1]]
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL], opaque_body={OPAQUE_KEY: rebuilt})
        refused(self.backend, request("minimax-m2.5", assistant), "Expected `thinking`")

    def test_opaque_body_on_a_message_without_tool_calls_is_ignored(self):
        answer = AssistantPromptMessage(content=f"<think>{REASONING}</think>\nThe result is 3367",
                                        opaque_body={OPAQUE_KEY: [MINIMAX_BLOCKS[0], {"type": "text", "text": "The result is 3367"}]})
        req = request("minimax-m2.5", answer, result=False)
        req["prompt_messages"].append(UserPromptMessage(content="thanks").model_dump(mode="json"))
        body = check(self.backend, req)
        assert body["messages"][1]["content"] == [{"type": "text", "text": f"<think>{REASONING}</think>\nThe result is 3367"}]

    def test_tool_result_without_its_tool_use_is_refused(self):
        refused(self.backend, request("minimax-m2.5", None), r"tool result's tool id\(call_01_calculator\) not found \(2013\)")

    def test_unanswered_tool_use_is_refused(self):
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL], opaque_body={OPAQUE_KEY: MINIMAX_BLOCKS})
        req = request("minimax-m2.5", assistant, result=False)
        req["prompt_messages"].append(UserPromptMessage(content="go on").model_dump(mode="json"))
        refused(self.backend, req, r"tool call and result not match \(2013\)")

    def test_empty_message_is_refused(self):
        req = request("minimax-m2.5", AssistantPromptMessage(content=""), result=False)
        req["prompt_messages"].append(UserPromptMessage(content="hello?").model_dump(mode="json"))
        refused(self.backend, req, "messages.1: all messages must have non-empty content")

    def test_consecutive_tool_results_and_user_text_merge_into_one_user_message(self):
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL], opaque_body={OPAQUE_KEY: MINIMAX_BLOCKS})
        req = request("minimax-m2.5", assistant)
        req["prompt_messages"].append(UserPromptMessage(content="Answer briefly.").model_dump(mode="json"))
        body = check(self.backend, req)
        assert [b["type"] for b in body["messages"][-1]["content"]] == ["tool_result", "text"]

    def test_m3_thinking_is_sent_adaptive_and_enabled_is_refused(self):
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL], opaque_body={OPAQUE_KEY: MINIMAX_BLOCKS})
        assert check(self.backend, request("minimax-m3", assistant, params={"thinking": True}))["thinking"] == {"type": "adaptive"}
        refused(self.backend, request("minimax-m3", assistant, params={"thinking": {"type": "enabled", "budget_tokens": 2048}}),
                'invalid thinking.type: "enabled"')

    def test_m3_with_thinking_disabled_needs_no_thinking_block(self):
        assistant = AssistantPromptMessage(content="", tool_calls=[CALL])
        check(self.backend, request("minimax-m3", assistant, params={"thinking": {"type": "disabled"}}))


class TestMiniMaxEmit:
    backend = MiniMaxContract()

    def test_streamed_tool_call(self):
        chunks = chunks_of(self.backend, CALL_REPLY, stream=True)
        got = messages(chunks)
        assert got[0]["content"] == "<think>\n"
        assert "".join(m["content"] for m in got) == f"<think>\n{REASONING}\n</think>\n"
        carrying = [i for i, c in enumerate(chunks)
                    if c["delta"]["message"]["tool_calls"] or "opaque_body" in c["delta"]["message"] or c["delta"]["usage"]]
        assert carrying == [len(chunks) - 1]
        last = chunks[-1]["delta"]
        assert last["index"] == 0 and last["finish_reason"] == "tool_calls" and last["message"]["content"] == ""
        assert last["message"]["tool_calls"] == [{"id": "call_01_calculator", "type": "function",
                                                  "function": {"name": "calculator", "arguments": '{"expression": "37 * 91"}'}}]
        assert last["message"]["opaque_body"] == {OPAQUE_KEY: MINIMAX_BLOCKS}

    def test_streamed_answer_closes_the_think_block_before_the_text(self):
        got = messages(chunks_of(self.backend, ANSWER_REPLY, stream=True))
        text = "".join(m["content"] for m in got)
        assert text == f"<think>\n{REASONING}\n</think>\nThe result is 3367"
        assert got[-1]["opaque_body"][OPAQUE_KEY][1] == {"type": "text", "text": "The result is 3367"}

    def test_blocking_is_one_chunk_with_think_block_and_opaque_blocks(self):
        [chunk] = chunks_of(self.backend, CALL_REPLY, stream=False)
        delta = chunk["delta"]
        assert delta["index"] == 0 and delta["finish_reason"] is None and delta["usage"]["total_tokens"] > 0
        assert delta["message"]["content"] == f"<think>{REASONING}</think>\n"
        assert delta["message"]["opaque_body"] == {OPAQUE_KEY: MINIMAX_BLOCKS}
        assert json.loads(delta["message"]["tool_calls"][0]["function"]["arguments"]) == {"expression": "37 * 91"}

    @pytest.mark.parametrize("stream", [True, False])
    def test_m3_hides_its_thinking_by_default_but_keeps_it_in_opaque_body(self, stream):
        got = messages(chunks_of(self.backend, ANSWER_REPLY, stream=stream, params={"thinking": "adaptive"}, model="minimax-m3"))
        assert "".join(m["content"] for m in got) == "The result is 3367"
        assert got[-1]["opaque_body"][OPAQUE_KEY][0]["thinking"] == REASONING

    @pytest.mark.parametrize("stream", [True, False])
    def test_a_round_replayed_as_the_plugin_emitted_it_is_accepted(self, stream):
        backend = MiniMaxContract(shape="stream" if stream else "blocking")
        first = request("minimax-m2.5", None, stream=stream, result=False)
        got = messages(list(backend.invoke_llm(first)))
        opaque = next(m["opaque_body"] for m in got if "opaque_body" in m)
        calls = [c for m in got for c in m["tool_calls"]]
        assistant = {"role": "assistant", "content": "".join(m["content"] for m in got), "tool_calls": calls, "opaque_body": opaque}
        tool = ToolPromptMessage(content="3367", tool_call_id=calls[0]["id"], name="calculator").model_dump(mode="json")
        answer = messages(list(backend.invoke_llm({**first, "prompt_messages": [*first["prompt_messages"], assistant, tool]})))
        assert backend.rejections == []
        assert backend.provider_requests[-1]["messages"][1]["content"][0]["type"] == "thinking"
        assert "3367" in "".join(m["content"] for m in answer)


def test_both_are_registered():
    assert CONTRACTS["moonshot"] is MoonshotContract
    assert CONTRACTS["minimax"] is MiniMaxContract
    assert MoonshotContract.model_settings(stream=False)["features"] == ["agent-thought", "tool-call", "multi-tool-call"]
    assert MiniMaxContract.model_settings()["provider"] == "langgenius/minimax/minimax"
