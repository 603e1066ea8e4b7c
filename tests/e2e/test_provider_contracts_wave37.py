"""Wave 37, through the real plugin process: the model-plugin versions the wave-37 drift check
found newer than what the contracts re-stated (docs/model-round-trip.md, "Versions checked,
wave 37"), each with two rounds of tool calls, an answer, then a second run with the first
one's query and answer as memory; both strategies, streamed and blocking.

* Azure OpenAI, chat route, 1fdcf1f: the reasoning block is closed before the calls, which come
  once, complete; the content goes back as it came. The earlier versions (growing call lists on
  every chunk, the block left open before calls) keep their run, since users still have them.
* Azure OpenAI, Responses route, 1fdcf1f: the text beside a round's calls goes back as an
  assistant message before its ``function_call`` items, paired by ``call_id``; no ``stop`` is
  sent to any model, ReAct included (the plugin cuts at the stop sequence itself).
* xAI, 1e1bf29: ``grok-4.6`` is a reasoning model for the plugin, so ReAct's stop sequences never
  reach xAI; on the earlier version (ead96ff) xAI refuses them once and the run goes on without.
"""

import pytest

from local_runner.backends import content_text
from local_runner.contracts.azure_openai import AzureOpenAISnapshotContract
from local_runner.contracts.xai import XAIListedModelsContract
from tests.e2e.helpers import STRATEGIES
from tests.e2e.test_provider_contracts_wave35 import PREAMBLE, PreambleBrain, _check_memory, _rounds_in
from tests.e2e.test_provider_round_trip import _as_emitted, _check_answered, _check_run, _run


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["azure_openai", AzureOpenAISnapshotContract], ids=["1fdcf1f", "00ba75d"])
def test_azure_chat_route_round_trip_in_both_versions(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_run(backend, toolbox, first, strategy)
    if strategy == "function_calling" and shape == "stream":
        content, _ = _as_emitted(backend.emitted[0])
        closed = content.count("<think>") == content.count("</think>")
        assert closed is (contract == "azure_openai"), content  # only 1fdcf1f closes it before the calls
        calls_chunks = [c for c in backend.emitted[0] if c["delta"]["message"]["tool_calls"]]
        assert (len(calls_chunks) == 1) is (contract == "azure_openai")  # once, complete; else snapshots
    _check_memory(plugin, contract, strategy, shape, first)


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_azure_responses_route_sends_the_text_beside_the_calls_back(plugin, strategy, shape):
    backend, toolbox, first = _run(plugin, "azure_openai_responses", strategy, shape, brain=PreambleBrain())
    _check_answered(backend, toolbox, first)
    assert backend.plugin_failures == [] and all("stop" not in body for body in backend.provider_requests)
    if strategy == "function_calling":
        for round_index, chunks in enumerate(backend.emitted[:2]):
            content, ids = _as_emitted(chunks)
            assert content == PREAMBLE
            for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
                turn = _rounds_in(request)[round_index]
                assert content_text(turn["content"]) == content and [c["id"] for c in turn["tool_calls"]] == ids
                items = body["input"]
                call = next(i for i, item in enumerate(items) if item.get("call_id") == ids[0])
                assert items[call - 1] == {"role": "assistant", "content": PREAMBLE}
                assert [item.get("call_id") for item in items if item.get("type") == "function_call_output"][round_index] == ids[0]
        assert backend.reasoning_dropped  # the plugin's loss: no reasoning item goes back
    _check_memory(plugin, "azure_openai_responses", strategy, shape, first, brain=PreambleBrain())


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["x", XAIListedModelsContract], ids=["1e1bf29", "ead96ff"])
def test_xai_stop_sequences_in_both_versions(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_run(backend, toolbox, first, strategy)
    sent_stop = [body for body in backend.provider_requests if body.get("stop")]
    if contract == "x" or strategy == "function_calling":
        assert backend.plugin_failures == [] and sent_stop == []
    else:  # refused once by xAI, then the run sends none
        assert len(backend.plugin_failures) == 1 and sent_stop == []
    _check_memory(plugin, contract, strategy, shape, first)
