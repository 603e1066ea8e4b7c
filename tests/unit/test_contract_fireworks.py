"""The Fireworks contract backend re-states its plugin's shapes (``models/fireworks/models/llm/llm.py``
8bdae72): reasoning in the content, the one call on the last chunk with the function's name as its
id, a round sent back as its first call's ``function_call`` and the result as a ``function``
message named after the tool; and the strategy sends that plugin one call a message."""

import json

import pytest

from agent_core.function_calling.prompt import replays_one_call
from local_runner.contracts import CONTRACTS, ProviderRejection
from local_runner.contracts.base import REASONING_MARK
from local_runner.contracts.fireworks import FireworksContract
from tests.unit.test_contract_azure_zhipu import QUERY, TOOLS, _first_round, _replay


def _calls(chunks):
    return [call for chunk in chunks for call in chunk["delta"]["message"]["tool_calls"]]


def test_registered_and_sent_one_call_a_message():
    assert CONTRACTS["fireworks"] is FireworksContract
    assert replays_one_call(FireworksContract.provider)
    assert "agent-thought" not in FireworksContract.features  # the customizable schema declares none


@pytest.mark.parametrize("stream", [True, False])
def test_reasoning_in_the_content_and_the_call_named_by_its_function_on_the_last_chunk(stream):
    _, chunks = _first_round(FireworksContract(shape="stream" if stream else "blocking"), stream=stream)
    content = "".join(c["delta"]["message"]["content"] for c in chunks)
    assert content.startswith("<think>\n") and REASONING_MARK in content and "</think>" in content
    assert [c for c in chunks if c["delta"]["message"]["tool_calls"]] == [chunks[-1]]
    (call,) = _calls(chunks)
    assert call["id"] == "calculator" and json.loads(call["function"]["arguments"]) == {"expression": "37 * 91"}
    assert chunks[-1]["delta"]["finish_reason"] == ("function_call" if stream else None)
    assert chunks[-1]["delta"]["usage"]


def test_a_round_goes_back_as_its_first_call_and_a_function_message_named_after_the_tool():
    backend = FireworksContract(shape="stream")
    request, chunks = _first_round(backend)
    calls = _calls(chunks)
    list(backend.invoke_llm(_replay(request, "<think>\nx\n</think>\n\n", calls)))
    body = backend.provider_requests[-1]
    assert body["functions"] == [{"name": t["name"], "description": t["description"], "parameters": t["parameters"]} for t in TOOLS]
    turn, answer = body["messages"][1:3]
    assert turn == {"role": "assistant", "content": "<think>\nx\n</think>\n\n",
                    "function_call": {"name": "calculator", "arguments": calls[0]["function"]["arguments"]}}
    assert answer == {"role": "function", "content": "3367", "name": "calculator"} and backend.calls_lost == []
    second = {**calls[0], "id": "calculator_2"}
    list(backend.invoke_llm(_replay(request, "", [calls[0], second])))
    assert len(backend.calls_lost) == 1  # the second call of a message is not in the body


def test_an_assistant_message_with_neither_content_nor_call_is_refused():
    backend = FireworksContract(shape="stream")
    request = {"model": backend.model, "prompt_messages": [QUERY, {"role": "assistant", "content": ""}, QUERY],
               "stream": True, "completion_params": {}}
    with pytest.raises(ProviderRejection, match="function_call"):
        list(backend.invoke_llm(request))
