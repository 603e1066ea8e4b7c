"""The contract backends wave 35 changed or added (docs/providers.md, "Wave 35 re-read"): each
refuses what its plugin's provider refuses or loses, and accepts the intact replay.

* OpenAI Responses, GPT-5.4 and later: an assistant ``message`` item comes back with the
  ``phase`` it was issued with.
* Azure OpenAI, Responses route (and Bedrock's mantle route, which now sends tools): no
  ``stop`` for the GPT-5 reasoning models (Azure's codex models get it, and the OpenAI SDK
  refuses it before anything is sent); calls go back as ``function_call`` items paired by
  ``call_id``; the text beside them and the reasoning are lost.
"""

import copy

import pytest

from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.azure_openai_responses import AzureOpenAIResponsesBefore1fdcf1fContract
from local_runner.contracts.base import BrainCall, PluginFailure, Reply, TaskBrain
from local_runner.contracts.openai import OUTPUT_KEY, labels_phase
from tests.unit.test_contract_openai import SYSTEM, USER, assistant, call_dict, gather, request, tool_result


class Preamble(TaskBrain):
    """Writes a sentence and calls the calculator, then answers."""

    def reply(self, request):
        if any(m.get("role") == "tool" for m in request.get("prompt_messages") or []):
            return Reply(reasoning="done", text="3367")
        return Reply(reasoning="plan", text="Let me compute.", calls=(BrainCall("call_1", "calculator", {"expression": "37 * 91"}),))


@pytest.mark.parametrize("model", ["gpt-5.4", "gpt-5.6-sol", "gpt-5.3-codex", "gpt-6"])
def test_newer_gpt_models_label_their_messages_with_a_phase(model):
    assert labels_phase(model)


@pytest.mark.parametrize("model", ["gpt-5-mini", "gpt-5.1", "gpt-4.1", "o4-mini"])
def test_older_models_label_none(model):
    assert not labels_phase(model)


@pytest.mark.parametrize("stream", [True, False])
def test_a_commentary_message_must_come_back_with_its_phase(stream):
    backend = CONTRACTS["openai_responses_phase"](brain=Preamble())
    _, calls, opaque = gather(backend.invoke_llm(request(backend, [SYSTEM, USER], stream=stream)))
    (message,) = [item for item in opaque[OUTPUT_KEY] if item["type"] == "message"]
    assert message["phase"] == "commentary"

    intact = [SYSTEM, USER, assistant("Let me compute.", calls, opaque), tool_result(calls[0]["id"])]
    list(backend.invoke_llm(request(backend, intact, stream=stream)))  # accepted

    lost = copy.deepcopy(opaque)
    for item in lost[OUTPUT_KEY]:
        item.pop("phase", None)
    with pytest.raises(ProviderRejection, match="phase 'commentary'"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, assistant("Let me compute.", calls, lost), tool_result(calls[0]["id"])])))


def test_gpt_5_mini_messages_carry_no_phase():
    backend = CONTRACTS["openai_responses"](brain=Preamble())
    _, _, opaque = gather(backend.invoke_llm(request(backend, [SYSTEM, USER])))
    assert all("phase" not in item for item in opaque[OUTPUT_KEY])


def test_azure_responses_before_1fdcf1f_sends_no_stop_to_gpt_5_and_pairs_calls_by_call_id():
    backend = AzureOpenAIResponsesBefore1fdcf1fContract(brain=Preamble())
    history = [SYSTEM, USER, assistant("Let me compute.", [call_dict("call_a")]), tool_result("call_a")]
    list(backend.invoke_llm(request(backend, history, stop=["Observation"], params={"temperature": 0.3})))
    body = backend.provider_requests[-1]
    assert "stop" not in body and "temperature" not in body
    assert [item.get("type") for item in body["input"]] == [None, None, "function_call", "function_call_output"]
    assert "Let me compute." not in str(body["input"])  # the plugin drops the text beside the calls
    assert backend.reasoning_dropped == ["call_a"]

    with pytest.raises(ProviderRejection, match="No tool output found for function call call_a"):
        list(backend.invoke_llm(request(backend, [SYSTEM, USER, assistant("", [call_dict("call_a")]), tool_result("call_b")])))


def test_azure_codex_before_1fdcf1f_gets_stop_and_the_sdk_refuses_it():
    backend = AzureOpenAIResponsesBefore1fdcf1fContract(brain=Preamble())
    with pytest.raises(PluginFailure, match="unexpected keyword argument 'stop'"):
        list(backend.invoke_llm({**request(backend, [SYSTEM, USER], stop=["Observation"]), "model": "gpt-5.1-codex"}))


def test_azure_responses_1fdcf1f_sends_the_text_before_the_calls_and_cuts_at_stop_itself():
    """1fdcf1f: the text beside a tool-call turn goes back as an assistant message before its
    ``function_call`` items, no model is sent ``stop`` (codex included, so the SDK no longer
    refuses it), and the plugin cuts the output text at the first stop sequence."""
    backend = CONTRACTS["azure_openai_responses"](brain=Preamble())
    history = [SYSTEM, USER, assistant("Let me compute.", [call_dict("call_a")]), tool_result("call_a")]
    list(backend.invoke_llm(request(backend, history, stop=["Observation"], params={"temperature": 0.3})))
    body = backend.provider_requests[-1]
    assert "stop" not in body and "temperature" not in body
    assert body["input"][2] == {"role": "assistant", "content": "Let me compute."}
    assert [item.get("type") for item in body["input"][3:]] == ["function_call", "function_call_output"]
    assert backend.reasoning_dropped == ["call_a"]

    class Invents(TaskBrain):
        def reply(self, request):
            return Reply(reasoning="", text="Thought: done\nObservation: invented")

    codex = CONTRACTS["azure_openai_responses"](brain=Invents())
    for stream in (True, False):
        text, _, _ = gather(codex.invoke_llm({**request(codex, [SYSTEM, USER], stop=["Observation"], stream=stream),
                                              "model": "gpt-5.1-codex"}))
        assert text == "Thought: done\n" and codex.plugin_failures == []
        assert "stop" not in codex.provider_requests[-1]


def test_bedrock_mantle_sends_tools_and_replays_calls_by_call_id():
    backend = CONTRACTS["bedrock_mantle"](brain=Preamble())
    history = [SYSTEM, USER, assistant("", [call_dict("call_a")]), tool_result("call_a")]
    list(backend.invoke_llm(request(backend, history, stop=["Observation"], params={"temperature": 0.3, "top_p": 0.9})))
    body = backend.provider_requests[-1]
    assert body["input"][0]["role"] == "system" and body["tools"][0]["strict"] is False
    assert "stop" not in body and "top_p" not in body and body["temperature"] == 0.3
    assert [item.get("type") for item in body["input"][2:]] == ["function_call", "function_call_output"]
    assert backend.reasoning_dropped == ["call_a"]
