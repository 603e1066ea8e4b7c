"""The Bedrock contract backend: Nova's ``<thinking>`` text and Claude's streamed reasoning reach
the strategy as content; the plugin sends a tool-call turn back as its ``toolUse`` blocks only, so
Claude with ``reasoning_type`` on is refused however intact the strategy's replay (what the
strategy cannot fix), while Nova's run is accepted."""

import pytest

from agent_core.model_call import AssistantReply, normalize_chunk
from agent_core.think import visible_text
from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK, PluginFailure
from tests.unit.test_contracts import TOOLS, second_round


def first_round(*, claude: bool, stream: bool = True):
    backend = CONTRACTS["bedrock"](shape="stream" if stream else "blocking")
    backend.claude_reasoning = claude
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": TOOLS, "stream": stream, "completion_params": {}}
    reply, calls, finish = AssistantReply(), [], []
    for raw in backend.invoke_llm(request):
        reply.add(normalize_chunk(raw))
        calls += raw["delta"]["message"]["tool_calls"]
        finish.append(raw["delta"]["finish_reason"])
    return backend, request, reply, calls, finish


def test_claude_reasoning_streams_as_a_closed_think_block_and_calls_come_last():
    _, _, reply, calls, finish = first_round(claude=True)
    assert reply.content.startswith("<think>\n") and reply.content.endswith("\n</think>")
    assert REASONING_MARK not in visible_text(reply.content)
    assert [c["function"]["name"] for c in calls] == ["calculator"] and finish[-1] == "tool_use"


def test_claude_with_reasoning_is_refused_even_when_replayed_intact():
    backend, request, reply, calls, _ = first_round(claude=True)
    with pytest.raises(ProviderRejection, match="must start with a thinking block"):
        list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls)))
    assert "reasoningContent" not in str(backend.provider_requests[-1]["messages"][1])


def test_claude_blocking_reply_folds_its_reasoning_into_a_think_block_kept_out_of_the_answer():
    backend, request, reply, calls, _ = first_round(claude=True, stream=False)
    assert reply.content.startswith("<think>\n") and "\n</think>\n" in reply.content
    assert REASONING_MARK in reply.content and REASONING_MARK not in visible_text(reply.content)
    assert [c["function"]["name"] for c in calls] == ["calculator"]
    with pytest.raises(ProviderRejection, match="must start with a thinking block"):  # the signature is still lost
        list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls)))


@pytest.mark.parametrize("stream", [True, False])
def test_nova_thinking_text_is_reasoning_and_the_replay_is_accepted(stream):
    backend, request, reply, calls, _ = first_round(claude=False, stream=stream)
    assert REASONING_MARK in reply.content and REASONING_MARK not in visible_text(reply.content)
    list(backend.invoke_llm(second_round(request, reply.content, reply.opaque_body, calls)))
    assert backend.rejections == []
    assistant = backend.provider_requests[-1]["messages"][1]
    assert assistant == {"role": "assistant", "content": [{"toolUse": {"toolUseId": calls[0]["id"], "name": "calculator",
                                                                     "input": {"expression": "37 * 91"}}}]}


@pytest.mark.parametrize(("content", "problem"), [("  ", "is blank"), ([{"type": "text", "data": "x"}], "Invalid type")])
def test_an_assistant_text_turn_must_be_a_non_blank_string(content, problem):
    backend = CONTRACTS["bedrock"]()
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": content}, {"role": "user", "content": "go on"}]
    with pytest.raises((ProviderRejection, PluginFailure), match=problem):
        list(backend.invoke_llm({"model": backend.model, "prompt_messages": messages, "tools": TOOLS}))


def test_a_made_call_id_fits_bedrock_and_a_colon_id_does_not():
    backend = CONTRACTS["bedrock"]()
    call = {"id": "c00010001", "type": "function", "function": {"name": "calculator", "arguments": "{}"}}
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    list(backend.invoke_llm(second_round(request, "", None, [call])))
    with pytest.raises(ProviderRejection, match="regular expression"):
        list(backend.invoke_llm(second_round(request, "", None, [{**call, "id": "calculator::sig::QUJD"}])))


@pytest.mark.parametrize("description", ["", None])
def test_a_tool_declared_without_a_description_is_refused(description):
    """Bedrock's ``ToolSpecification.description`` has a minimum length of 1, and the plugin sends
    the tool's description as it is (aws-samples/bedrock-access-gateway#213 met the same rule)."""
    backend = CONTRACTS["bedrock"](shape="stream")
    tools = [{**TOOLS[0], "description": description}]
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": tools, "stream": True, "completion_params": {}}
    with pytest.raises(ProviderRejection, match=r"toolSpec\.description"):
        list(backend.invoke_llm(request))
