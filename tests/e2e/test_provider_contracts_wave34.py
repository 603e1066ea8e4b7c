"""Wave 34, through the real plugin process: two rounds of tool calls, an answer, then a second
run with the first one's query and answer as memory, for every contract backend whose round trip
the earlier waves had not pinned (those checked one tool call only): DeepSeek, Moonshot (Kimi),
MiniMax, OpenAI chat completions, Tongyi, Ollama, OpenAI-API-compatible (both routes),
Volcengine Ark and Bedrock (Nova), and the two backends this wave adds: Mistral AI (ids of nine
letters and digits) and xAI (``grok-4.6``, which refuses ``stop``); both strategies, streamed and
blocking.

In Function Calling, every request after a round holds that round's assistant message as the
model plugin emitted it: its content with the reasoning block (closed where the plugin left it
open before its calls), its ``opaque_body``, its tool-call ids. For the plugins that turn the
block back into ``reasoning_content`` (DeepSeek, Moonshot, Volcengine), the provider body of
every later request carries that round's reasoning on its tool-call turn; MiniMax's body carries
the round's signed blocks. The user's answer and the second run's memory hold no reasoning.
``docs/providers.md`` lists the plugin files and commits these backends re-state.
"""

import json

import pytest

from local_runner.backends import content_text
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK
from tests.e2e.helpers import STRATEGIES
from tests.e2e.test_provider_round_trip import QUERY, _as_emitted, _check_answered, _run

WAVE34 = [
    "bedrock", "deepseek", "minimax", "moonshot", "ollama", "openai", "openai_api_compatible",
    "openai_api_compatible_responses", "tongyi", "volcengine_maas", "mistralai", "x",
]
REASONING_BACK = {"deepseek", "moonshot", "volcengine_maas"}
"""Plugins that send a tool-call turn's reasoning back as ``reasoning_content``."""


def _opaque(chunks):
    bodies = [c["delta"]["message"]["opaque_body"] for c in chunks if c["delta"]["message"].get("opaque_body")]
    assert len(bodies) <= 1, bodies
    return bodies[0] if bodies else None


def _rounds_in(request):
    """The assistant messages with tool calls of one backwards ``llm`` request, in order."""
    return [m for m in request["prompt_messages"] if str(m.get("role")).endswith("assistant") and m.get("tool_calls")]


def _check_clean(backend, toolbox, result):
    _check_answered(backend, toolbox, result)
    # a route that refuses stop sequences (xAI's grok-4.6) is met once in ReAct, then none is sent
    assert len(getattr(backend, "plugin_failures", [])) <= 1


def _check_rounds(contract, backend, shape):
    """Each round goes back in every later request as the plugin emitted it, and its provider
    body carries what the provider needs of it. An id an earlier round already used (Tongyi's
    tool name, Ollama's counter) goes back with a suffix, so results pair with their calls."""
    taken: set[str] = set()
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        ids = [f"{i}_2" if i in taken else i for i in ids]
        taken.update(ids)
        if content.count("<think>") > content.count("</think>"):
            content += "\n</think>"  # the plugin left the block open before its calls
        opaque = _opaque(chunks)
        for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
            turn = _rounds_in(request)[round_index]
            assert content_text(turn["content"]) == content, (turn["content"], content)
            assert [call["id"] for call in turn["tool_calls"]] == ids
            assert turn.get("opaque_body") == opaque
            if contract in REASONING_BACK and (shape == "stream" or opaque):
                (sent,) = [m for m in body["messages"] if [c.get("id") for c in m.get("tool_calls") or []] == ids]
                assert f"({REASONING_MARK} {round_index + 1})" in sent["reasoning_content"], sent
            if contract == "minimax":
                (sent,) = [m for m in body["messages"] if m["role"] == "assistant"
                           and any(b.get("id") in ids for b in m["content"] if b.get("type") == "tool_use")]
                assert sent["content"] == opaque["minimax_anthropic_content"]
                assert sent["content"][0]["type"] == "thinking" and sent["content"][0]["signature"]


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", WAVE34)
def test_two_tool_rounds_go_back_intact_and_memory_is_clean(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_clean(backend, toolbox, first)
    if strategy == "function_calling":
        _check_rounds(contract, backend, shape)
        if shape == "stream" and CONTRACTS[contract].reasoning and contract != "ollama":
            shown = _as_emitted(backend.emitted[0])[0] + json.dumps(_opaque(backend.emitted[0]))
            assert REASONING_MARK in shown  # the test has reasoning to lose
    else:
        for body in backend.provider_requests[1:]:  # ReAct's scratchpad is the text the user could see
            assert REASONING_MARK not in json.dumps(body.get("messages") or body.get("input"))

    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, contract, strategy, shape, history=memory)
    _check_clean(backend, toolbox, second)
    remembered = [m for m in backend.requests[0]["prompt_messages"] if str(m.get("role")).endswith("assistant")]
    assert [content_text(m["content"]) for m in remembered] == [first.text]
    assert not any(m.get("opaque_body") or m.get("tool_calls") for m in remembered)
    opening = json.dumps(backend.provider_requests[0])
    assert json.dumps(first.text)[1:-1] in opening and REASONING_MARK not in opening
