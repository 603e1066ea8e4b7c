"""The Cohere contract backend (``local_runner/contracts/cohere.py``) converts as the Cohere model
plugin does and records what it loses, so that a green end-to-end run means something."""

import json

import pytest

from local_runner.contracts.base import PluginFailure, ProviderRejection
from local_runner.contracts.cohere import MULTISTEP_REFUSAL, ONE_TOOL_REFUSAL, CohereContract

TOOLS = [
    {"name": "calculator", "description": "math", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}},
    {"name": "unit_convert", "description": "units", "parameters": {"type": "object", "properties": {"unit": {"enum": ["m", "km"]}}}},
]


def _call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _request(messages, tools=TOOLS):
    return {"prompt_messages": messages, "tools": tools, "stream": True}


def _round(call_id, expression, result):
    return [
        {"role": "assistant", "content": "I will compute.", "tool_calls": [_call(call_id, "calculator", {"expression": expression})]},
        {"role": "tool", "content": result, "tool_call_id": call_id},
    ]


def test_one_tool_fails_in_the_plugin():
    backend = CohereContract()
    with pytest.raises(PluginFailure, match="at least two tools"):
        backend.to_provider(_request([{"role": "user", "content": "hi"}], tools=TOOLS[:1]))
    assert backend.plugin_failures == [ONE_TOOL_REFUSAL]


def test_a_tool_call_round_becomes_tool_results_and_its_text_is_dropped():
    backend = CohereContract()
    body = backend.to_provider(_request([{"role": "system", "content": "be brief"}, {"role": "user", "content": "q"},
                                         *_round("calculator", "1+1", "2")]))
    assert body["message"] == "q"
    assert body["chat_history"] == [{"role": "USER", "message": "be brief"}]
    assert body["tool_results"] == [{"call": {"name": "calculator", "parameters": {"expression": "1+1"}}, "outputs": [{"result": "2"}]}]
    assert "I will compute." not in json.dumps(body)
    assert body["tools"][1]["parameter_definitions"]["unit"] == {
        "description": "; Only accepts one of the following predefined options: [m, km]", "type": "string", "required": False}
    assert backend.results_lost == []


@pytest.mark.parametrize(("second_id", "lost"), [
    ("calculator_2", "calculator_2: no call named so"),
    ("calculator", "calculator: overwrote the result of an earlier call"),
])
def test_a_second_call_of_one_tool_loses_its_result(second_id, lost):
    backend = CohereContract()
    body = backend.to_provider(_request([{"role": "user", "content": "q"}, *_round("calculator", "1+1", "2"),
                                         *_round(second_id, "2+1", "3")]))
    assert backend.results_lost == [lost]
    assert len(body["tool_results"]) == 1  # the second call, without outputs, is dropped


def test_an_empty_message_without_tool_results_is_refused():
    backend = CohereContract()
    body = backend.to_provider(_request([{"role": "user", "content": " "}]))
    with pytest.raises(Exception, match="at least 1 token"):
        backend.check(body)


def test_tool_calls_come_whole_on_the_last_chunk_with_the_tool_name_as_id():
    backend = CohereContract(shape="stream")
    chunks = list(backend.invoke_llm(_request([{"role": "user", "content": "What is 37 * 91?"}])))
    last = chunks[-1]["delta"]
    assert [c["id"] for c in last["message"]["tool_calls"]] == ["calculator"]
    assert last["finish_reason"] == "COMPLETE" and last["usage"]
    assert all(not c["delta"]["message"]["tool_calls"] for c in chunks[:-1])


def test_tool_results_beside_the_message_are_refused_in_multistep_mode():
    """The plugin always sends the user's message beside the tool results (langgenius/dify#5441)."""
    backend = CohereContract()
    body = backend.to_provider(_request([{"role": "user", "content": "q"}, *_round("calculator", "1+1", "2")]))
    with pytest.raises(ProviderRejection) as raised:
        backend.check(body)
    assert raised.value.message == MULTISTEP_REFUSAL  # the text the plugin's fallback recognises
    assert backend.rejections == []
