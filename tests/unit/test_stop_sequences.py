"""The user's stop sequences (the model-selector's ``completion_params["stop"]``) go into the
request's ``stop``, before the strategy's own words, and leave ``completion_params``: as the
official langgenius/agent strategies pass ``completion_params.get("stop", [])`` to the invoke."""

from dataclasses import replace
from decimal import Decimal

import pytest
from dify_plugin.entities.model.llm import LLMModelConfig
from dify_plugin.entities.model.message import UserPromptMessage
from pydantic_core import to_json

from agent_core.model_call import ModelRequest, build_llm_payload, merged_stop, refuses_stop, sent_stop
from agent_core.react.prompt import stop_words

MESSAGES = [UserPromptMessage(content="hi")]


def model(**completion_params) -> LLMModelConfig:
    return LLMModelConfig(provider="p", model="m", mode="chat", completion_params=completion_params)


@pytest.mark.parametrize(
    ("user", "own", "expected"),
    [
        (["###"], [], ["###"]),
        (["###", "END"], ["Observation"], ["###", "END", "Observation"]),
        (["Observation", "###"], ["Observation"], ["Observation", "###"]),
        (["a", "a", "b"], ["b", "c"], ["a", "b", "c"]),
        ("###", ["Observation"], ["###", "Observation"]),
        ([1, None, "", {"x": 1}, ["y"], "ok"], [], ["ok"]),
        (None, ["Observation"], ["Observation"]),
        (42, [], []),
        ({"stop": "x"}, [], []),
        (("x", "y"), [], ["x", "y"]),
    ],
)
def test_merged_stop_keeps_the_users_strings_in_order_then_the_own_words_once(user, own, expected):
    assert merged_stop(user, own) == expected


def test_react_request_sends_the_users_stop_and_its_own_and_no_stop_in_completion_params():
    config = model(temperature=0, stop=["###"])
    request = ModelRequest(prompt_messages=MESSAGES, stop=stop_words("m", "chat"))
    payload = build_llm_payload(config, request)
    assert payload["stop"] == ["###", "Observation"]
    assert payload["completion_params"] == {"temperature": 0}
    assert config.completion_params == {"temperature": 0, "stop": ["###"]}  # the run's settings unchanged


def test_function_calling_request_sends_the_users_stop():
    payload = build_llm_payload(model(stop=["###", 3]), ModelRequest(prompt_messages=MESSAGES))
    assert payload["stop"] == ["###"] and "stop" not in payload["completion_params"]


def test_no_stop_anywhere_sends_none_and_leaves_the_params_as_they_were():
    payload = build_llm_payload(model(temperature=0.5), ModelRequest(prompt_messages=MESSAGES))
    assert payload["stop"] is None and payload["completion_params"] == {"temperature": 0.5}
    junk = build_llm_payload(model(stop="", top_p=1), ModelRequest(prompt_messages=MESSAGES))
    assert junk["stop"] is None and junk["completion_params"] == {"top_p": 1}


def test_structured_output_requests_carry_the_users_stop_too():
    request = ModelRequest(prompt_messages=MESSAGES, structured_output_schema={"type": "object"})
    payload = build_llm_payload(model(stop=["###"]), request)
    assert payload["stop"] == ["###"] and payload["structured_output_schema"] == {"type": "object"}


@pytest.mark.parametrize("config", [
    model(stop=["s" * 100_000]), model(user="u" * 100_000),
    LLMModelConfig(provider="p", model="m" * 100_000, mode="chat", completion_params={}),
], ids=["stop", "completion-param", "model-name"])
def test_settings_bytes_are_what_the_request_line_carries_besides_prompt_and_tools(config):
    """The request line must fit the daemon with the node's model settings, whatever their size."""
    import json

    from agent_core.model_call import settings_bytes

    request = ModelRequest(prompt_messages=MESSAGES, stop=["Observation"])
    payload = build_llm_payload(config, request)
    rest = {key: value for key, value in payload.items() if key not in ("prompt_messages", "tools")}
    line = len(json.dumps(rest, ensure_ascii=False, separators=(",", ":"), default=str).encode())
    assert line - 100 < settings_bytes(config, request) <= line


@pytest.mark.parametrize(
    "message",
    [
        "[openai_api_compatible] Error: Responses.create() got an unexpected keyword argument 'stop'",
        "req_id: 1 PluginInvokeError: {\"message\":\"Unsupported parameter: 'stop' is not supported with this model.\"}",
        'Error code: 400 - {"error": {"message": "Unknown parameter: \'stop\'.", "param": "stop"}}',
        "Extra inputs are not permitted: 'stop'",
        # xAI: the plugin drops stop only for the reasoning models it lists (not grok-4.6)
        'Error code: 400 - {"code":"Client specified an invalid argument","error":"Argument not supported on this model: stop"}',
        '{"code":"invalid-argument","error":"Model grok-4.6 does not support parameter stop."}',
        "Argument not supported on this model: stop",
        'Model grok-4.6 does not support parameter "stop"',
    ],
)
def test_a_route_that_takes_no_stop_is_recognised(message):
    assert refuses_stop(message)


@pytest.mark.parametrize(
    "message",
    [
        "Error code: 400 - Invalid 'stop': array too long. Expected an array with maximum length 4",
        "The model stopped: unexpected keyword argument 'temperature'",
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "tool stop_watch failed",
        "Model grok-4.6 does not support parameter stop_sequences.",
        "Argument not supported on this model: stop_sequences",
        "Model grok-4.6 does not support parameter stopSequences.",
        "Model grok-4.6 does not support parameter stop-sequences.",
        "Model grok-4 does not support parameter reasoningEffort.",
    ],
)
def test_other_failures_are_not_taken_for_a_refused_stop(message):
    assert not refuses_stop(message)


def test_a_request_that_may_not_send_stop_sends_neither_the_users_nor_the_strategys():
    model = LLMModelConfig(provider="p", model="m", mode="chat", completion_params={"stop": ["###"]})
    request = ModelRequest(prompt_messages=[], stop=["Observation"])
    assert sent_stop(model, request) == ["###", "Observation"]
    assert sent_stop(model, replace(request, send_stop=False)) == []
    assert build_llm_payload(model, replace(request, send_stop=False))["stop"] is None


def test_the_model_settings_go_as_the_sdks_model_config_dumps_them():
    """The request's provider, model, type, mode and parameters are written without building the
    SDK's ``LLMModelConfig`` (``model_call._PLAIN_CONFIG``): the same keys, order and JSON."""
    params = {"temperature": 0.2, "thinking": {"type": "enabled", "budget": [1, Decimal("0.5")]}}
    payload = build_llm_payload(model(**params), ModelRequest(prompt_messages=MESSAGES))
    expected = LLMModelConfig(provider="p", model="m", mode="chat", completion_params=params).model_dump()
    written = {key: payload[key] for key in expected}
    assert list(payload)[: len(expected)] == list(expected)
    assert to_json(written) == to_json(expected) and written == expected
