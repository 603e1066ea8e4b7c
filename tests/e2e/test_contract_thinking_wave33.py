"""Wave 33, through the real plugin process: thinking models whose reasoning carries a signature
or encrypted data get it back intact within a run, and the next run's memory holds only the
clean answer.

* Anthropic with extended thinking on (``claude-opus-4-6``), with a ``redacted_thinking`` block
  beside the signed thinking, and with adaptive thinking whose text the API omits
  (``claude-opus-4-7``): the plugin keeps the reply's blocks in ``opaque_body.anthropic_content``
  and sends exactly those back; Claude refuses a tool loop whose last assistant turn does not
  open with the thinking blocks it issued, unchanged and in their order.
* Gemini 3 on Vertex AI and on the Gemini plugin, parallel calls: only the first call of a
  batch carries a thought signature (Vertex AI keeps it in the call id); on Gemini the plugin
  stamps the placeholder on every call.
* OpenAI Responses (``gpt-5-mini``): each reply's output items, the reasoning item with its
  ``encrypted_content`` and every item's id, go back in their order.

Run 1 does two rounds of tool calls and answers; run 2 has run 1's query and answer as memory and
does the same. ``docs/providers.md`` lists what these tests verify.
"""

import json

import pytest

from local_runner.backends import content_text
from local_runner.contracts import CONTRACTS
from local_runner.contracts.anthropic import AnthropicAdaptiveContract, AnthropicContract, AnthropicRedactedContract
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from local_runner.contracts.bedrock import BedrockContract
from local_runner.contracts.vertex_ai import DUMMY_SIGNATURE, decode_call_id
from tests.e2e.helpers import STRATEGIES, assert_clean_end
from tests.e2e.test_provider_round_trip import EXPRESSIONS, QUERY, TwoRoundBrain, _run

ANTHROPIC = {backend.name: backend for backend in (AnthropicContract, AnthropicRedactedContract, AnthropicAdaptiveContract)}
PARALLEL = ["37 * 91", "2 + 2"]
"""Round 1's two parallel calls; round 2 adds one to the first result."""


class ParallelBrain(TaskBrain):
    """Calls the calculator twice at once (``PARALLEL``), then once more (``3367 + 1``), then
    answers with the last result (native tool calls only)."""

    def reply(self, request):
        self.turns += 1
        messages = request.get("prompt_messages") or []
        last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        results = [content_text(m.get("content")).strip() for m in messages[last_user + 1 :] if m.get("role") == "tool"]
        reasoning = f"({REASONING_MARK} {self.turns}) Step {self.turns}."
        if not results:
            calls = tuple(BrainCall(id=f"p{self.turns}n{n}", name="calculator", arguments={"expression": expression})
                          for n, expression in enumerate(PARALLEL))
            return Reply(reasoning=reasoning, calls=calls)
        if len(results) == len(PARALLEL):
            return Reply(reasoning=reasoning, calls=(BrainCall(id=f"p{self.turns}n0", name="calculator", arguments={"expression": "3367 + 1"}),))
        return Reply(reasoning=reasoning, text=self.answer_prefix + results[-1])


def _memory(first):
    return [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]


def _check_clean(backend, result):
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3368" in result.text, result.text
    assert REASONING_MARK not in result.text and "<think>" not in result.text, result.text
    assert len(backend.provider_requests) == 3


def _opaque(chunks):
    """The ``opaque_body`` the plugin put on the reply (its last chunk's)."""
    bodies = [c["delta"]["message"].get("opaque_body") for c in chunks if c["delta"]["message"].get("opaque_body")]
    assert len(bodies) == 1, bodies
    return bodies[0]


def _ids(chunks):
    return list(dict.fromkeys(call["id"] for c in chunks for call in c["delta"]["message"]["tool_calls"]))


def _check_memory(backend, first):
    body = backend.provider_requests[0]
    opening = json.dumps(body.get("messages") or body.get("contents") or body.get("input"))
    assert json.dumps(first.text)[1:-1] in opening
    assert REASONING_MARK not in opening
    for marker in ('"type": "thinking"', "redacted_thinking", "encrypted_content", "::sig::"):
        assert marker not in opening, marker


# -- Anthropic ------------------------------------------------------------------------------------


def _check_anthropic_rounds(backend):
    """Every later request holds each round's assistant turn as exactly the blocks the API
    issued: the thinking blocks first (signature, redacted ``data``), then the ``tool_use``."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        blocks = _opaque(chunks)["anthropic_content"]
        assert blocks[0]["type"] == "thinking" and blocks[0]["signature"], blocks
        assert (blocks[1]["type"] == "redacted_thinking") == backend.redacted_thinking, blocks
        (call_id,) = _ids(chunks)
        for body in backend.provider_requests[round_index + 1 :]:
            (turn,) = [m for m in body["messages"] if m["role"] == "assistant"
                       and any(b.get("id") == call_id for b in m["content"] if isinstance(m["content"], list))]
            assert turn["content"] == blocks


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", sorted(ANTHROPIC))
def test_claude_thinking_blocks_go_back_unchanged_and_memory_is_clean(plugin, contract, strategy, shape):
    backend_class = ANTHROPIC[contract]
    backend, toolbox, first = _run(plugin, backend_class, strategy, shape, brain=TwoRoundBrain())
    _check_clean(backend, first)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    if strategy == "function_calling":
        _check_anthropic_rounds(backend)
    shows_thinking = backend_class.model == AnthropicContract.model
    streamed = "".join(c["delta"]["message"]["content"] for c in backend.emitted[0])
    assert (REASONING_MARK in streamed) == (shows_thinking and shape == "stream"), streamed

    backend, toolbox, second = _run(plugin, backend_class, strategy, shape, brain=TwoRoundBrain(), history=_memory(first))
    _check_clean(backend, second)
    _check_memory(backend, first)


# -- Gemini 3: parallel calls, one signature a batch ----------------------------------------------


def _check_vertex_rounds(backend):
    """Each round's calls go back with the ids the plugin made, so the first call of each batch
    carries the signature the API issued and the others the placeholder, as they came."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        ids = _ids(chunks)
        signatures = [decode_call_id(call_id) for call_id in ids]
        assert signatures[0] and signatures[0] in backend.issued and not any(signatures[1:]), ids
        for body in backend.provider_requests[round_index + 1 :]:
            turns = [t for t in body["contents"] if t["role"] == "model" and any("function_call" in p for p in t["parts"])]
            sent = [p["thought_signature"] for p in turns[round_index]["parts"]]
            assert sent == [signatures[0], *[DUMMY_SIGNATURE] * (len(ids) - 1)]


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("contract", ["vertex_ai", "gemini"])
def test_gemini3_parallel_calls_keep_the_batch_signature_and_memory_is_clean(plugin, contract, shape):
    backend_class = CONTRACTS[contract]
    backend, toolbox, first = _run(plugin, backend_class, "function_calling", shape, brain=ParallelBrain())
    _check_clean(backend, first)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == [*PARALLEL, "3367 + 1"]
    if contract == "vertex_ai":
        _check_vertex_rounds(backend)
    else:  # the plugin stamps the placeholder on every call, each sent with the call's own id
        parts = [p for t in backend.provider_requests[-1]["contents"] for p in t["parts"] if "functionCall" in p]
        assert {p.get("thoughtSignature") for p in parts} == {DUMMY_SIGNATURE}
        assert [p["functionCall"]["id"] for p in parts] == [i for chunks in backend.emitted[:2] for i in _ids(chunks)]

    backend, _, second = _run(plugin, backend_class, "function_calling", shape, brain=ParallelBrain(), history=_memory(first))
    _check_clean(backend, second)
    _check_memory(backend, first)


# -- OpenAI Responses: encrypted reasoning items --------------------------------------------------


def _check_responses_rounds(backend):
    """Every later request holds each round's output items, the reasoning item with its
    ``encrypted_content`` first, exactly and together, in the order the API gave them."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        items = _opaque(chunks)["responses_output"]
        assert items[0]["type"] == "reasoning" and items[0]["encrypted_content"], items
        assert [item["type"] for item in items[1:]] and {item["type"] for item in items[1:]} == {"function_call"}
        for body in backend.provider_requests[round_index + 1 :]:
            sent = body["input"]
            start = next(k for k, item in enumerate(sent) if item.get("id") == items[0]["id"])
            assert sent[start : start + len(items)] == items


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("brain", ["two_rounds", "parallel"])
def test_responses_reasoning_items_go_back_in_order_and_memory_is_clean(plugin, brain, shape):
    backend_class = CONTRACTS["openai_responses"]
    make = {"two_rounds": TwoRoundBrain, "parallel": ParallelBrain}[brain]
    backend, _, first = _run(plugin, backend_class, "function_calling", shape, brain=make())
    _check_clean(backend, first)
    _check_responses_rounds(backend)

    backend, _, second = _run(plugin, backend_class, "function_calling", shape, brain=make(), history=_memory(first))
    _check_clean(backend, second)
    _check_memory(backend, first)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_responses_react_memory_is_clean(plugin, strategy):
    """ReAct on the Responses route: two rounds, then memory without reasoning items."""
    backend_class = CONTRACTS["openai_responses"]
    backend, _, first = _run(plugin, backend_class, strategy, "stream", brain=TwoRoundBrain())
    _check_clean(backend, first)
    backend, _, second = _run(plugin, backend_class, strategy, "stream", brain=TwoRoundBrain(), history=_memory(first))
    _check_clean(backend, second)
    _check_memory(backend, first)


# -- Bedrock, Claude with reasoning: the plugin's loss ---------------------------------------------


class _BedrockClaude(BedrockContract):
    claude_reasoning = True


@pytest.mark.xfail(strict=True, reason=(
    "The Bedrock plugin sends an assistant turn with calls back as its toolUse blocks only: the "
    "reasoningContent block and its signature never reach Claude, which refuses the tool loop "
    "when reasoning is on (docs/providers.md, what the strategy cannot fix)."))
def test_bedrock_claude_reasoning_tool_loop_is_refused_by_the_plugins_loss(plugin):
    backend, _, result = _run(plugin, _BedrockClaude, "function_calling", "stream", brain=TwoRoundBrain())
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
