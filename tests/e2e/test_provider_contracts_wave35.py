"""Wave 35, through the real plugin process: the model-plugin changes the wave-35 re-read found
(docs/providers.md, "Wave 35 re-read"), each with two rounds of tool calls, an answer, then a
second run with the first one's query and answer as memory; both strategies, streamed and
blocking.

* OpenAI, Responses route, ``gpt-5.4``: the text the model writes before its calls is a
  ``message`` item with ``phase: "commentary"``, kept in ``opaque_body.responses_output``; every
  later request gives each round's items back whole, the phase included (the backend refuses a
  message item whose phase was lost).
* Azure OpenAI, Responses route (every GPT-5 base model but ``gpt-5-chat``), and Bedrock's
  mantle route (GPT-5.4 and later), which now sends tools and replays calls: calls go back as
  ``function_call`` items with the provider's ``call_id``; no ``stop`` is sent to these models,
  so ReAct runs without the plugin failing.
"""

import json

import pytest

from local_runner.backends import content_text
from local_runner.contracts.base import Reply
from tests.e2e.helpers import STRATEGIES
from tests.e2e.test_provider_round_trip import QUERY, TwoRoundBrain, _as_emitted, _check_answered, _run

PREAMBLE = "Let me work that out."


class PreambleBrain(TwoRoundBrain):
    """``TwoRoundBrain`` that writes a sentence before each native tool call (what GPT-5.4 labels
    ``commentary``)."""

    def reply(self, request):
        reply = super().reply(request)
        if reply.calls:
            return Reply(reasoning=reply.reasoning, text=PREAMBLE, calls=reply.calls)
        return reply


def _opaque(chunks):
    bodies = [c["delta"]["message"]["opaque_body"] for c in chunks if c["delta"]["message"].get("opaque_body")]
    assert len(bodies) <= 1, bodies
    return bodies[0] if bodies else None


def _rounds_in(request):
    return [m for m in request["prompt_messages"] if str(m.get("role")).endswith("assistant") and m.get("tool_calls")]


def _check_memory(plugin, contract, strategy, shape, first, brain=None):
    """The second run's memory is the first run's clean answer, sent as the user saw it."""
    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, contract, strategy, shape, history=memory, brain=brain)
    _check_answered(backend, toolbox, second)
    remembered = [m for m in backend.requests[0]["prompt_messages"] if str(m.get("role")).endswith("assistant")]
    assert [content_text(m["content"]) for m in remembered] == [first.text]
    assert not any(m.get("opaque_body") or m.get("tool_calls") for m in remembered)
    return backend


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gpt_5_4_commentary_goes_back_with_its_phase(plugin, strategy, shape):
    backend, toolbox, first = _run(plugin, "openai_responses_phase", strategy, shape, brain=PreambleBrain())
    _check_answered(backend, toolbox, first)
    if strategy == "function_calling":
        for round_index, chunks in enumerate(backend.emitted[:2]):
            opaque = _opaque(chunks)
            items = opaque["responses_output"]
            (message,) = [item for item in items if item["type"] == "message"]
            assert message["phase"] == "commentary" and message["content"][0]["text"] == PREAMBLE
            content, ids = _as_emitted(chunks)
            for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
                turn = _rounds_in(request)[round_index]
                assert turn.get("opaque_body") == opaque  # the items whole, the phase with them
                assert content_text(turn["content"]) == content and [c["id"] for c in turn["tool_calls"]] == ids
                sent = [item for item in body["input"] if item.get("id") == message["id"]]
                assert sent == [message]
    second = _check_memory(plugin, "openai_responses_phase", strategy, shape, first, brain=PreambleBrain())
    assert "commentary" not in json.dumps(second.provider_requests[0]["input"])


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["azure_openai_responses", "bedrock_mantle"])
def test_responses_routes_pair_calls_by_call_id_and_send_no_stop(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_answered(backend, toolbox, first)
    assert backend.plugin_failures == []  # these models are sent no stop sequences, ReAct included
    assert all("stop" not in body for body in backend.provider_requests)
    if strategy == "function_calling":
        for round_index, chunks in enumerate(backend.emitted[:2]):
            _, ids = _as_emitted(chunks)
            assert ids == [f"call_r{round_index + 1}calc"]
            for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
                assert [c["id"] for c in _rounds_in(request)[round_index]["tool_calls"]] == ids
                calls = [item["call_id"] for item in body["input"] if item.get("type") == "function_call"]
                outputs = [item["call_id"] for item in body["input"] if item.get("type") == "function_call_output"]
                assert calls[round_index] == outputs[round_index] == ids[0]
        assert backend.reasoning_dropped  # the plugin's loss: no reasoning item goes back
    _check_memory(plugin, contract, strategy, shape, first)
