"""The Volcengine (Ark) contract backend: the plugin turns the streamed ``<think>`` block of an
assistant message back into ``reasoning_content``, so a round replayed intact carries its
reasoning to Ark, and one that lost or changed the block is refused; a blocking reply has no
reasoning to lose (the plugin drops it)."""

import pytest

from agent_core.model_call import AssistantReply, normalize_chunk
from agent_core.think import visible_text
from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK
from local_runner.contracts.volcengine import extract_reasoning
from tests.unit.test_contracts import TOOLS, second_round


def first_round(stream: bool):
    backend = CONTRACTS["volcengine_maas"](shape="stream" if stream else "blocking")
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": TOOLS, "stream": stream, "completion_params": {"thinking": "enabled"}}
    reply, calls = AssistantReply(), []
    for raw in backend.invoke_llm(request):
        reply.add(normalize_chunk(raw))
        calls += raw["delta"]["message"]["tool_calls"]
    return backend, request, reply, calls


def test_streamed_reasoning_goes_back_to_ark_as_reasoning_content():
    backend, request, reply, calls = first_round(True)
    assert reply.content.startswith("<think>\n") and "\n</think>" in reply.content
    list(backend.invoke_llm(second_round(request, reply.content, None, calls)))
    assistant = backend.provider_requests[-1]["messages"][1]
    assert REASONING_MARK in assistant["reasoning_content"]
    assert "<think>" not in assistant["content"]
    assert backend.rejections == []


@pytest.mark.parametrize("change", [visible_text, lambda text: text.replace(REASONING_MARK, "summary")])
def test_a_replay_that_lost_or_changed_the_block_is_refused(change):
    backend, request, reply, calls = first_round(True)
    with pytest.raises(ProviderRejection, match="passed back unchanged"):
        list(backend.invoke_llm(second_round(request, change(reply.content), None, calls)))


def test_blocking_reply_carries_no_reasoning():
    _, _, reply, calls = first_round(False)
    assert calls and REASONING_MARK not in reply.content


def test_extract_reasoning_joins_blocks_and_squeezes_blank_lines():
    assert extract_reasoning("<THINK> a </think>x\n\n\n<think>b</think>y") == ("x\n\ny", "a\nb")
    assert extract_reasoning("plain") == ("plain", None)
