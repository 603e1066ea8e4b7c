"""The GPUStack and StepFun contract backends re-state their plugins' own handlers: GPUStack's
replay stripping (a leading ``<think>`` block only) and thinking filter, StepFun's calls merged by
tool name and the call its ``</think>`` chunk carries."""

import json

from local_runner.contracts.base import BrainCall, ContractBackend, Reply
from local_runner.contracts.gpustack import GPUStackContract, filter_thinking
from local_runner.contracts.stepfun import StepFunContract, StepFunWholeCallContract


def _chunks(*texts, finish=True):
    request = {"model": "m"}
    out = [ContractBackend.chunk(request, i, content=text) for i, text in enumerate(texts)]
    if finish:
        out.append(ContractBackend.chunk(request, len(texts), usage={"total_tokens": 1}, finish_reason="stop"))
    return out


def _text(chunks):
    return "".join(c["delta"]["message"]["content"] for c in chunks)


def test_gpustack_strips_only_a_leading_block_on_the_way_back():
    body = GPUStackContract().to_provider({"model": "qwen3-8b", "prompt_messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "<think>\nr\n</think>\n\nText <think>kept</think>"},
        {"role": "assistant", "content": "Before <think>kept too</think>"},
    ], "completion_params": {"enable_thinking": True}})
    assert [m["content"] for m in body["messages"][1:]] == ["Text <think>kept</think>", "Before <think>kept too</think>"]
    assert "enable_thinking" not in body and "chat_template_kwargs" not in body  # strict mode


def test_gpustack_filter_removes_think_spans_split_across_chunks():
    chunks = _chunks("<thi", "nk>\nsecret\n</th", "ink>Answer: 4", " < 5")
    out = filter_thinking(chunks)
    assert _text(out) == "Answer: 4 < 5"
    assert out[-1]["delta"]["finish_reason"] == "stop" or out[-1]["delta"]["message"]["content"] == ""


def test_gpustack_filter_holds_a_tag_start_and_yields_it_only_from_a_chunk_it_held_whole():
    """A text ending like a tag's start (``<``) is held back; the plugin yields it after the
    stream only when its chunk yielded nothing else, so ``a <`` in one chunk loses its ``<``."""
    assert _text(filter_thinking(_chunks("a ", "<"))) == "a <"
    assert _text(filter_thinking(_chunks("a <"))) == "a "


def _stepfun_calls(backend, reply):
    return [c["delta"]["message"]["tool_calls"] for c in backend.plugin_stream(reply, {"model": "m"})]


def test_stepfun_merges_calls_of_one_tool_and_its_think_chunk_carries_the_first():
    calls = tuple(BrainCall(id=f"p{i}", name="calculator", arguments={"x": i}) for i in range(2))
    reply = Reply(reasoning="r", calls=calls)
    lists = _stepfun_calls(StepFunWholeCallContract(), reply)
    assert lists[1] == [{"id": "call_p0", "type": "function", "function": {"name": "calculator", "arguments": json.dumps({"x": 0})}}]
    merged = [c for calls in lists[2:] for c in calls]
    assert merged == [{"id": "call_p1", "type": "function",
                       "function": {"name": "calculator", "arguments": json.dumps({"x": 0}) + json.dumps({"x": 1})}}]
    streamed = _stepfun_calls(StepFunContract(), reply)
    assert streamed[1][0]["function"]["arguments"] == ""  # the head delta of a call streamed in pieces
