"""The Azure OpenAI and Zhipu contract backends re-state their plugins' shapes: Azure's calls once
on the finish chunk with the block closed before them (1fdcf1f) and, in its earlier versions,
the growing call list repeated on every chunk with the block left open; Zhipu's dropped
reasoning and calls on the finish chunk, and what each plugin's conversion loses on replay."""

import json

import pytest

from agent_core.model_call import AssistantReply, normalize_chunk
from agent_core.tool_calls import ToolCallAssembler, ToolCallDelta
from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.azure_openai import AzureOpenAIContract, AzureOpenAISnapshotContract
from local_runner.contracts.base import REASONING_MARK, PluginFailure
from local_runner.contracts.zhipuai import ZhipuAIContract

TOOLS = [{"name": "calculator", "description": "Evaluate",
          "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}]
QUERY = {"role": "user", "content": "What is 37 * 91?"}


def _first_round(backend, stream=True):
    request = {"model": backend.model, "prompt_messages": [QUERY], "tools": TOOLS, "stream": stream,
               "completion_params": dict(backend.completion_params)}
    return request, list(backend.invoke_llm(request))


def _replay(request, content, calls, result="3367"):
    assistant = {"role": "assistant", "content": content, "tool_calls": calls}
    results = [{"role": "tool", "content": result, "tool_call_id": c["id"], "name": c["function"]["name"]} for c in calls]
    return {**request, "prompt_messages": [*request["prompt_messages"], assistant, *results]}


def test_both_are_registered():
    assert CONTRACTS["azure_openai"] is AzureOpenAIContract
    assert CONTRACTS["zhipuai"] is ZhipuAIContract


def test_azure_before_1fdcf1f_repeats_the_growing_call_list_and_the_strategy_reads_one_complete_call():
    _, chunks = _first_round(AzureOpenAISnapshotContract(shape="stream"))
    lists = [c["delta"]["message"]["tool_calls"] for c in chunks if c["delta"]["message"]["tool_calls"]]
    assert len(lists) > 2 and all(len(calls) == 1 for calls in lists)
    arguments = [calls[0]["function"]["arguments"] for calls in lists]
    assert arguments == sorted(arguments, key=len) and arguments[0] != arguments[-1]  # snapshots, growing
    assert json.loads(arguments[-1]) == {"expression": "37 * 91"}
    assembler = ToolCallAssembler()
    for calls in lists:
        for raw in calls:
            assembler.add(ToolCallDelta.from_raw(raw))
    assembled = assembler.finish(None)
    assert [(c.id, c.arguments) for c in assembled.calls] == [("call_call_01_calculator", {"expression": "37 * 91"})]
    assert assembled.invalid == ()


def test_azure_before_1fdcf1f_leaves_the_block_open_before_calls_and_says_stop_after_them():
    _, chunks = _first_round(AzureOpenAISnapshotContract(shape="stream"))
    reply = AssistantReply()
    for raw in chunks:
        reply.add(normalize_chunk(raw))
    assert reply.content.startswith("<think>\n") and REASONING_MARK in reply.content and "</think>" not in reply.content
    assert [c["delta"]["finish_reason"] for c in chunks][-1] == "stop"
    assert all(c["delta"]["finish_reason"] is None for c in chunks[:-1])
    assert chunks[-1]["delta"]["usage"] and chunks[-1]["delta"]["message"]["tool_calls"] == []


def test_azure_before_1fdcf1f_sends_the_content_back_as_is_and_records_an_open_block():
    backend = AzureOpenAISnapshotContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = chunks[-2]["delta"]["message"]["tool_calls"]
    content = "".join(c["delta"]["message"]["content"] for c in chunks)
    list(backend.invoke_llm(_replay(request, content, calls)))
    sent = backend.provider_requests[-1]["messages"]
    assert sent[1]["content"] == content and sent[1]["tool_calls"][0]["id"] == calls[0]["id"]
    assert sent[2] == {"role": "tool", "name": "calculator", "content": "3367", "tool_call_id": calls[0]["id"]}
    assert backend.open_blocks == [content]
    list(backend.invoke_llm(_replay(request, content + "\n</think>", calls)))
    assert backend.open_blocks == [content]  # a closed block is not recorded


def test_azure_blocking_puts_the_reasoning_first_and_only_earlier_versions_fail_on_a_null_tool_content():
    _, chunks = _first_round(AzureOpenAIContract(shape="blocking"), stream=False)
    assert len(chunks) == 1
    content = chunks[0]["delta"]["message"]["content"]
    assert content.startswith("<think>\n") and content.endswith("\n</think>")
    assert chunks[0]["delta"]["message"]["tool_calls"][0]["id"] == "call_call_01_calculator"

    class NullContent(AzureOpenAISnapshotContract):
        null_tool_content = True

    with pytest.raises(PluginFailure, match="NoneType"):
        _first_round(NullContent(shape="blocking"), stream=False)


def test_azure_closes_the_block_before_calls_and_sends_the_calls_once_complete():
    """1fdcf1f: a new tool call closes the reasoning block with a chunk of its own, and the calls
    come once, complete, on the finish-reason chunk; the strategy's reply holds the block closed
    and one call, and the replay sends the content back as it came."""
    backend = AzureOpenAIContract(shape="stream")
    request, chunks = _first_round(backend)
    with_calls = [c for c in chunks if c["delta"]["message"]["tool_calls"]]
    assert len(with_calls) == 1
    (call,) = with_calls[0]["delta"]["message"]["tool_calls"]
    assert call["id"] == "call_call_01_calculator" and json.loads(call["function"]["arguments"]) == {"expression": "37 * 91"}
    contents = [c["delta"]["message"]["content"] for c in chunks]
    assert "\n</think>" in contents and contents.index("\n</think>") < chunks.index(with_calls[0])
    assert [c["delta"]["finish_reason"] for c in chunks][-1] == "stop"
    reply = AssistantReply()
    for raw in chunks:
        reply.add(normalize_chunk(raw))
    assert reply.content.startswith("<think>\n") and reply.content.endswith("\n</think>")
    content = "".join(contents)
    list(backend.invoke_llm(_replay(request, content, [call])))
    sent = backend.provider_requests[-1]["messages"]
    assert sent[1]["content"] == content and sent[1]["tool_calls"][0]["id"] == call["id"]
    assert backend.open_blocks == []


def test_azure_refuses_a_result_without_its_call():
    backend = AzureOpenAIContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = chunks[-2]["delta"]["message"]["tool_calls"]
    orphan = {**request, "prompt_messages": [QUERY, {"role": "tool", "content": "3367", "tool_call_id": calls[0]["id"]}]}
    with pytest.raises(ProviderRejection):
        list(backend.invoke_llm(orphan))


@pytest.mark.parametrize("stream", [True, False])
def test_zhipu_drops_the_reasoning_and_sends_calls_on_the_finish_chunk(stream):
    _, chunks = _first_round(ZhipuAIContract(shape="stream" if stream else "blocking"), stream=stream)
    assert REASONING_MARK not in json.dumps(chunks)
    with_calls = [c for c in chunks if c["delta"]["message"]["tool_calls"]]
    assert with_calls == [chunks[-1]]
    call = chunks[-1]["delta"]["message"]["tool_calls"][0]
    assert call["id"].startswith("call_") and call["id"][5:].isdigit()
    assert json.loads(call["function"]["arguments"]) == {"expression": "37 * 91"}
    if stream:
        assert chunks[-1]["delta"]["finish_reason"] == "tool_calls" and chunks[-1]["delta"]["usage"]


def test_zhipu_accepts_each_round_as_one_message_and_refuses_two_in_a_row():
    backend = ZhipuAIContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = chunks[-1]["delta"]["message"]["tool_calls"]
    list(backend.invoke_llm(_replay(request, "", calls)))
    assert backend.provider_requests[-1]["messages"][1]["tool_calls"][0]["id"] == calls[0]["id"]
    split = {**request, "prompt_messages": [QUERY, {"role": "assistant", "content": "Let me compute."},
                                            {"role": "assistant", "content": "", "tool_calls": calls},
                                            {"role": "tool", "content": "3367", "tool_call_id": calls[0]["id"]}]}
    with pytest.raises(ProviderRejection, match="tool"):  # the second message's calls are lost in the join
        list(backend.invoke_llm(split))
    assert backend.provider_requests[-1]["messages"][1] == {"role": "assistant", "content": "Let me compute.\n\n"}
    split["prompt_messages"][1]["content"] = None
    with pytest.raises(PluginFailure):
        list(backend.invoke_llm(split))


def test_zhipu_drops_a_tool_result_that_is_not_a_string():
    backend = ZhipuAIContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = chunks[-1]["delta"]["message"]["tool_calls"]
    replay = _replay(request, "", calls, result=[{"type": "text", "data": "3367"}])
    with pytest.raises(ProviderRejection, match=r"did not have response|without response"):
        list(backend.invoke_llm(replay))


def test_zhipu_joins_consecutive_user_messages():
    backend = ZhipuAIContract(shape="stream")
    request = {"model": backend.model, "prompt_messages": [{"role": "system", "content": ""}, QUERY,
                                                           {"role": "user", "content": "Be brief."}], "stream": True}
    list(backend.invoke_llm(request))
    assert backend.provider_requests[-1]["messages"] == [{"role": "user", "content": "What is 37 * 91?\n\nBe brief."}]
