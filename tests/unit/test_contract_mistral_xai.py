"""The Mistral AI and xAI contract backends refuse what their providers refuse, so a green
round trip against them means something: Mistral's nine-character ids, xAI's refusal of
``stop`` for ``grok-4.6``."""

import pytest

from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import PluginFailure, ProviderRejection
from local_runner.contracts.mistral import MISTRAL_ID, MistralContract
from local_runner.contracts.xai import XAIContract, XAIListedModelsContract, is_reasoning_model

TOOLS = [{"name": "calculator", "description": "Evaluate",
          "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}]


def _first_round(backend, stream=True):
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "What is 37 * 91?"}],
               "tools": TOOLS, "stream": stream, "completion_params": {}}
    chunks = list(backend.invoke_llm(request))
    calls = [c for chunk in chunks for c in chunk["delta"]["message"]["tool_calls"]]
    return request, chunks, calls


def _replay(request, calls, call_id=None):
    calls = [{**c, "id": call_id or c["id"]} for c in calls]
    assistant = {"role": "assistant", "content": "", "tool_calls": calls}
    results = [{"role": "tool", "content": "3367", "tool_call_id": c["id"]} for c in calls]
    return {**request, "prompt_messages": [*request["prompt_messages"], assistant, *results]}


def test_both_are_registered():
    assert CONTRACTS["mistralai"] is MistralContract and CONTRACTS["x"] is XAIContract


@pytest.mark.parametrize("stream", [True, False])
def test_mistral_gives_ids_of_nine_letters_and_digits_and_takes_them_back(stream):
    backend = MistralContract(shape="stream" if stream else "blocking")
    request, chunks, calls = _first_round(backend, stream)
    assert [bool(MISTRAL_ID.fullmatch(c["id"])) for c in calls] == [True]
    assert all("<think>" not in str(chunk["delta"]["message"]["content"]) for chunk in chunks)
    list(backend.invoke_llm(_replay(request, calls)))
    assert backend.rejections == []


@pytest.mark.parametrize("call_id", ["call_1", "c0001000", "0_2", "calculator"])
def test_mistral_refuses_an_id_of_another_shape(call_id):
    backend = MistralContract(shape="stream")
    request, _, calls = _first_round(backend)
    with pytest.raises(ProviderRejection, match="must be a-z, A-Z, 0-9, with a length of 9"):
        backend.invoke_llm(_replay(request, calls, call_id))


def test_mistral_never_gets_stop_and_refuses_ending_on_the_assistant():
    backend = MistralContract(shape="stream")
    request, _, _ = _first_round(backend)
    body = backend.to_provider({**request, "stop": ["Observation"]})
    assert "stop" not in body
    ending = {**request, "prompt_messages": [*request["prompt_messages"], {"role": "assistant", "content": "Hi"}]}
    with pytest.raises(ProviderRejection, match="Expected last role User or Tool"):
        backend.invoke_llm(ending)


def test_xai_before_1e1bf29_grok_46_refuses_stop_in_the_plugin_call_and_takes_the_request_without():
    backend = XAIListedModelsContract(shape="stream")
    request = {"model": backend.model, "prompt_messages": [{"role": "user", "content": "hi"}], "stop": ["Observation"]}
    with pytest.raises(PluginFailure, match="does not support parameter stop"):
        backend.invoke_llm(request)
    assert backend.plugin_failures == ["Model grok-4.6 does not support parameter stop."]
    list(backend.invoke_llm({**request, "stop": None}))
    assert backend.rejections == [] and len(backend.provider_requests) == 1


@pytest.mark.parametrize(("model", "reasons"), [("grok-4.6", True), ("grok-4-fast-non-reasoning", False), ("grok-3-mini", True),
                                               ("grok-code-fast-1", True), ("grok-3", False)])
def test_xai_1e1bf29_drops_stop_and_penalties_for_every_reasoning_family(model, reasons):
    """1e1bf29 reads the reasoning families, so ``grok-4.6`` is sent no stop sequences and nothing
    is refused; a non-reasoning model still gets them."""
    assert is_reasoning_model(model) is reasons
    backend = XAIContract(shape="stream")
    request = {"model": model, "prompt_messages": [{"role": "user", "content": "hi"}], "stop": ["Observation"],
               "completion_params": {"presence_penalty": 0.5, "temperature": 0.2}}
    list(backend.invoke_llm(request))
    body = backend.provider_requests[-1]
    assert ("stop" in body) is (not reasons) and ("presence_penalty" in body) is (not reasons)
    assert body.get("temperature") == 0.2 and backend.plugin_failures == []


def test_xai_keeps_its_call_ids_and_pairs_results_by_them():
    backend = XAIContract(shape="stream")
    request, _, calls = _first_round(backend)
    assert [c["id"] for c in calls] == ["call_call_01_calculator"]
    list(backend.invoke_llm(_replay(request, calls)))
    with pytest.raises(ProviderRejection):
        backend.invoke_llm({**_replay(request, calls), "prompt_messages": _replay(request, calls)["prompt_messages"][:-1]})
