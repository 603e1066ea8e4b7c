"""The OpenRouter and SiliconFlow contract backends re-state their plugins' shapes: where the
reasoning block closes, what a blocking reply keeps, how a replay is converted."""

import pytest

from agent_core.model_call import AssistantReply, normalize_chunk
from local_runner.contracts import CONTRACTS
from local_runner.contracts.openrouter import OpenRouterContract
from local_runner.contracts.sdk_base import SDKBaseContract

TOOLS = [{"name": "calculator", "description": "Evaluate",
          "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}]


def _first_round(backend, stream=True):
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": TOOLS, "stream": stream, "completion_params": dict(backend.completion_params)}
    reply, calls = AssistantReply(), []
    for raw in backend.invoke_llm(request):
        reply.add(normalize_chunk(raw))
        calls += raw["delta"]["message"]["tool_calls"]
    return request, reply, calls


def _replay(request, content, calls):
    assistant = {"role": "assistant", "content": content, "tool_calls": calls}
    results = [{"role": "tool", "content": "3367", "tool_call_id": c["id"]} for c in calls]
    return {**request, "prompt_messages": [*request["prompt_messages"], assistant, *results]}


def test_both_are_registered():
    assert CONTRACTS["openrouter"] is OpenRouterContract
    assert CONTRACTS["siliconflow"] is SDKBaseContract


def test_openrouter_leaves_the_block_open_before_calls_and_an_open_replay_is_recorded():
    backend = OpenRouterContract(shape="stream")
    request, reply, calls = _first_round(backend)
    assert reply.content.startswith("<think>\n") and "</think>" not in reply.content
    assert [c["id"] for c in calls] == ["call_call_01_calculator"]
    list(backend.invoke_llm(_replay(request, reply.content, calls)))
    assert backend.open_blocks == [reply.content]
    list(backend.invoke_llm(_replay(request, reply.content + "\n</think>", calls)))
    assert backend.open_blocks == [reply.content]  # a closed block is not recorded
    sent = backend.provider_requests[-1]["messages"][1]
    assert sent["content"] == reply.content + "\n</think>"  # the content goes as it is
    assert backend.provider_requests[-1]["reasoning"] == {"enabled": True}


def test_siliconflow_closes_the_block_at_the_first_call_delta():
    backend = SDKBaseContract(shape="stream")
    _, reply, calls = _first_round(backend)
    assert reply.content.startswith("<think>\n") and reply.content.endswith("\n</think>")
    assert [c["id"] for c in calls] == ["01call_01_calculator"]


@pytest.mark.parametrize("contract", [OpenRouterContract, SDKBaseContract])
def test_a_blocking_reply_keeps_no_reasoning(contract):
    _, reply, calls = _first_round(contract(shape="blocking"), stream=False)
    assert reply.content == "" and len(calls) == 1


def test_siliconflow_merges_consecutive_assistant_messages_and_refuses_consecutive_list_users():
    backend = SDKBaseContract()
    merged = backend.merged([
        {"role": "assistant", "content": "a", "tool_calls": [{"id": "1"}], "opaque_body": {"x": 1}},
        {"role": "assistant", "content": "b", "tool_calls": [{"id": "2"}]},
    ])
    assert merged == [{"role": "assistant", "content": "a\nb", "tool_calls": [{"id": "1"}, {"id": "2"}]}]
    users = [{"role": "user", "content": [{"type": "text", "data": "x"}]}, {"role": "user", "content": "y"}]
    with pytest.raises(Exception, match="20015"):
        list(backend.invoke_llm({"model": backend.model, "prompt_messages": users, "stream": True}))
