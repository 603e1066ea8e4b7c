"""The Hunyuan and Xinference contract backends re-state their plugins' shapes: Hunyuan's calls on
its finish chunk, a blocking reply without its calls, the space and ``{}`` it sends back for a
tool-call round, its alternation rule; Xinference's reasoning in the content, calls on the last
chunk, and a round sent back as the first call's ``function_call`` alone."""

import json

import pytest

from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK
from local_runner.contracts.hunyuan import HunyuanContract
from local_runner.contracts.xinference import XinferenceContract
from tests.unit.test_contract_azure_zhipu import QUERY, _first_round, _replay


def _calls(chunks):
    return [call for chunk in chunks for call in chunk["delta"]["message"]["tool_calls"]]


def test_both_are_registered():
    assert CONTRACTS["hunyuan"] is HunyuanContract
    assert CONTRACTS["xinference"] is XinferenceContract


def test_hunyuan_streams_calls_on_the_finish_chunk_and_drops_them_when_blocking():
    _, chunks = _first_round(HunyuanContract(shape="stream"))
    assert [c for c in chunks if c["delta"]["message"]["tool_calls"]] == [chunks[-1]]
    assert chunks[-1]["delta"]["finish_reason"] == "tool_calls" and chunks[-1]["delta"]["usage"]
    assert REASONING_MARK not in json.dumps(chunks)
    _, blocking = _first_round(HunyuanContract(shape="blocking"), stream=False)
    assert len(blocking) == 1 and _calls(blocking) == []


def test_hunyuan_sends_a_space_and_empty_arguments_back_but_keeps_the_ids():
    backend = HunyuanContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = _calls(chunks)
    list(backend.invoke_llm(_replay(request, "Let me compute.", calls)))
    turn, answer = backend.provider_requests[-1]["Messages"][1:3]
    assert turn == {"Role": "assistant", "Content": " ", "ToolCalls": [
        {"Id": calls[0]["id"], "Type": "function", "Function": {"Name": "calculator", "Arguments": "{}"}}]}
    assert answer == {"Role": "tool", "Content": '{"result": "3367"}', "ToolCallId": calls[0]["id"]}


def test_hunyuan_refuses_two_user_messages_in_a_row_an_orphan_result_and_an_empty_content():
    backend = HunyuanContract(shape="stream")
    request, _ = _first_round(backend)
    with pytest.raises(ProviderRejection, match="alternate"):
        list(backend.invoke_llm({**request, "prompt_messages": [QUERY, {"role": "user", "content": "Be brief."}]}))
    orphan = {**request, "prompt_messages": [QUERY, {"role": "assistant", "content": "ok"},
                                             {"role": "tool", "content": "3367", "tool_call_id": "x"}]}
    with pytest.raises(ProviderRejection):
        list(backend.invoke_llm(orphan))
    with pytest.raises(ProviderRejection, match="empty"):
        list(backend.invoke_llm({**request, "prompt_messages": [{"role": "user", "content": ""}]}))


@pytest.mark.parametrize("stream", [True, False])
def test_xinference_puts_the_reasoning_in_the_content_and_the_calls_on_the_last_chunk(stream):
    _, chunks = _first_round(XinferenceContract(shape="stream" if stream else "blocking"), stream=stream)
    content = "".join(c["delta"]["message"]["content"] for c in chunks)
    assert content.startswith("<think>\n") and REASONING_MARK in content and "</think>" in content
    assert [c for c in chunks if c["delta"]["message"]["tool_calls"]] == [chunks[-1]]
    (call,) = _calls(chunks)
    assert call["id"].startswith("call_") and json.loads(call["function"]["arguments"]) == {"expression": "37 * 91"}


def test_xinference_sends_a_round_back_as_its_first_call_only():
    backend = XinferenceContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = _calls(chunks)
    list(backend.invoke_llm(_replay(request, "<think>\nx\n</think>\n\n", calls)))
    turn, answer = backend.provider_requests[-1]["messages"][1:3]
    assert turn == {"role": "assistant", "content": "<think>\nx\n</think>\n\n",
                    "function_call": {"name": "calculator", "arguments": calls[0]["function"]["arguments"]}}
    assert answer["tool_call_id"] == calls[0]["id"] and backend.calls_lost == []
    second = {**calls[0], "id": "call_two"}
    list(backend.invoke_llm(_replay(request, "", [calls[0], second])))
    assert len(backend.calls_lost) == 1  # the second call of the round is not in the body
    assert backend.provider_requests[-1]["max_tokens"] == 512  # the plugin's default when the node sets none
