"""Wave 34, through the real plugin process: Claude's interleaved thinking as Dify's Anthropic
plugin (1c274cb) streams it. Each reply is a signed thinking block, a text block, a second signed
thinking block in the middle of the streamed content (a second ``<think>`` block), then the rest
of the text or the tool calls; ``opaque_body.anthropic_content`` keeps the four blocks in order
(``local_runner/contracts/anthropic_interleaved.py``).

Two rounds of tool calls and an answer, then a second run with the first one's query and answer
as memory, both strategies, streamed and blocking, and streamed one character a chunk (every
split of both blocks and their tags): the answer and the memory hold neither thinking block; the
text before and after the mid-answer block joins as the model wrote it; the tool call after the
second thinking block runs; in Function Calling every later request holds each round's assistant
message as the plugin emitted it (content with both blocks, ``opaque_body``, tool-call ids) and
its provider body the blocks the API issued, unchanged and in order.
"""

import json

import pytest

from local_runner.backends import content_text
from local_runner.contracts.anthropic_interleaved import (
    CALL_LEAD,
    AnthropicInterleavedCharsContract,
    AnthropicInterleavedContract,
)
from local_runner.contracts.base import REASONING_MARK
from tests.e2e.helpers import STRATEGIES, assert_clean_end
from tests.e2e.test_provider_round_trip import EXPRESSIONS, QUERY, TwoRoundBrain, _as_emitted, _run

ANSWER = "The result is 3367 + 1 = 3368"
"""The brain's answer; the second thinking block stands between ``The result is `` and ``3368``."""
SECOND_BLOCK = "Then again, between blocks."
"""Text only the second (interleaved) thinking block of each reply holds."""

CASES = [
    (AnthropicInterleavedContract, "stream"),
    (AnthropicInterleavedContract, "blocking"),
    (AnthropicInterleavedCharsContract, "stream"),
]


def _opaque(chunks):
    (body,) = [c["delta"]["message"]["opaque_body"] for c in chunks if c["delta"]["message"].get("opaque_body")]
    return body


def _check_clean(backend, toolbox, result):
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    # the calls come after each reply's second thinking block, and run
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    assert len(backend.provider_requests) == 3
    for hidden in (REASONING_MARK, SECOND_BLOCK, "<think>", "</think>", "signature"):
        assert hidden not in result.text, (hidden, result.text)


def _check_rounds(backend):
    """Each round's assistant message goes back in every later request as the plugin emitted it,
    and its provider body is the four blocks the API issued."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        opaque = _opaque(chunks)
        assert [b["type"] for b in opaque["anthropic_content"]] == ["thinking", "text", "thinking", "tool_use"]
        for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
            turn = [m for m in request["prompt_messages"] if str(m.get("role")).endswith("assistant") and m.get("tool_calls")][round_index]
            assert content_text(turn["content"]) == content, (turn["content"], content)
            assert [call["id"] for call in turn["tool_calls"]] == ids
            assert turn.get("opaque_body") == opaque
            (sent,) = [m for m in body["messages"] if m["role"] == "assistant" and any(
                b.get("id") in ids for b in m["content"] if isinstance(m["content"], list))]
            assert sent["content"] == opaque["anthropic_content"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("backend_class", "shape"), CASES, ids=[f"{c.name}-{s}" for c, s in CASES])
def test_interleaved_thinking_is_hidden_joined_and_goes_back_intact(plugin, backend_class, strategy, shape):
    backend, toolbox, first = _run(plugin, backend_class, strategy, shape)
    _check_clean(backend, toolbox, first)
    # the text on both sides of the mid-answer block, joined as written
    assert first.text.strip().endswith(ANSWER), first.text
    assert ANSWER in first.text and "=  3368" not in first.text and "=3368" not in first.text
    streamed = _as_emitted(backend.emitted[-1])[0]
    if shape == "stream":  # the test has a second block, mid-answer, to lose
        assert streamed.count("<think>") == 2 and SECOND_BLOCK in streamed, streamed
        assert streamed.index(SECOND_BLOCK) < streamed.index("3368")
    if strategy == "function_calling":
        _check_rounds(backend)
        assert first.text.count(ANSWER) == 1, first.text
    else:
        for body in backend.provider_requests[1:]:  # ReAct's scratchpad is the text the user could see
            assert REASONING_MARK not in json.dumps(body["messages"]) and SECOND_BLOCK not in json.dumps(body["messages"])

    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, backend_class, strategy, shape, history=memory)
    _check_clean(backend, toolbox, second)
    remembered = [m for m in backend.requests[0]["prompt_messages"] if str(m.get("role")).endswith("assistant")]
    assert [content_text(m["content"]) for m in remembered] == [first.text]
    assert not any(m.get("opaque_body") or m.get("tool_calls") for m in remembered)
    opening = json.dumps(backend.provider_requests[0]["messages"])
    assert json.dumps(first.text)[1:-1] in opening
    for hidden in (REASONING_MARK, SECOND_BLOCK, '"type": "thinking"'):
        assert hidden not in opening, hidden


def test_a_call_reply_leads_with_text_before_its_second_block():
    """The backend itself: a call reply's blocks are thinking, the lead text, thinking, tool_use;
    streamed, the second ``<think>`` follows the lead text with nothing between them."""
    from local_runner.contracts.base import BrainCall, Reply

    backend = AnthropicInterleavedContract(shape="stream", brain=TwoRoundBrain())
    request = {"model": backend.model, "completion_params": dict(backend.completion_params), "prompt_messages": []}
    reply = Reply(reasoning="r", calls=(BrainCall(id="c1", name="calculator", arguments={"expression": "1"}),))
    chunks = list(backend.emit(reply, request, stream=True))
    content = "".join(c["delta"]["message"]["content"] for c in chunks)
    assert content.startswith("<think>\nr\n</think>\n\n" + CALL_LEAD + "<think>\n")
