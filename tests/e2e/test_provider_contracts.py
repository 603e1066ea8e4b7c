"""Both strategies against every provider contract backend, streamed and blocking, through the
real plugin process: a tool call, then a final answer that uses the tool's result.

Each contract backend converts the plugin's messages as that official model plugin does and
refuses what the provider refuses (lost reasoning, unanswered tool calls, ...), so a run that
completes here is one the real chain accepts. See docs/providers.md for the table.
"""

import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK
from tests.e2e.helpers import STRATEGIES, assert_clean_end


def _run(plugin, contract: str, strategy: str, shape: str):
    backend = CONTRACTS[contract](shape=shape)
    model = ModelSettings(**CONTRACTS[contract].model_settings(stream=shape == "stream"))
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy=strategy, model=model)
    toolbox = default_toolbox()
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    return backend, toolbox, result


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", sorted(CONTRACTS))
def test_tool_run_is_accepted_and_answered(plugin, contract, strategy, shape, request):
    if shape == "blocking" and strategy == "function_calling" and not CONTRACTS[contract].blocking_calls:
        request.applymarker(pytest.mark.xfail(strict=True, reason="the model plugin drops a blocking reply's tool calls"))
    backend, toolbox, result = _run(plugin, contract, strategy, shape)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert [call.request.get("tool") for call in toolbox.calls] == ["calculator"]
    assert "3367" in result.text, result.text
    assert REASONING_MARK not in result.text, result.text
    assert len(backend.requests) == 2 + len(getattr(backend, "plugin_failures", []))


@pytest.mark.parametrize("contract", sorted(name for name, backend in CONTRACTS.items() if backend.reasoning))
def test_reasoning_is_shown_once_in_the_thought_log(plugin, contract):
    _, _, result = _run(plugin, contract, "function_calling", "stream")
    thoughts = [node for node in result.logs.values() if node.label.endswith("Thought")]
    shown = [node for node in thoughts if REASONING_MARK in str(node.data.get("reasoning", ""))]
    assert shown, [node.data for node in thoughts]
    for node in thoughts:
        assert REASONING_MARK not in str(node.data.get("output", ""))


@pytest.mark.parametrize("shape", ["stream", "blocking"])
def test_gemini_gets_no_thoughts_back_as_text_the_model_said(plugin, shape):
    """The Gemini plugin strips only a closed <think> block from the model text it sends back,
    and its blocking reply of thoughts and a function call leaves the block open: the round
    goes back with it closed, so the thoughts never reach Gemini as the model's own text."""
    backend, _, result = _run(plugin, "gemini", "function_calling", shape)
    assert_clean_end(result)
    assert len(backend.provider_requests) == 2
    assert REASONING_MARK not in json.dumps(backend.provider_requests[-1]["contents"])


@pytest.mark.parametrize("shape", ["stream", "blocking"])
def test_react_on_a_route_that_takes_no_stop_drops_it_once_and_for_the_run(plugin, shape):
    """The OpenAI-API-compatible plugin on its Responses route passes ``stop`` to
    ``Responses.create``, which takes no such argument: every request with ReAct's stop word
    fails in the plugin. The run sends the request again without stop words, sends none after,
    and says so in the model's log."""
    backend, toolbox, result = _run(plugin, "openai_api_compatible_responses", "ReAct", shape)
    assert_clean_end(result)
    assert "3367" in result.text, result.text
    assert backend.plugin_failures == ["Responses.create() got an unexpected keyword argument 'stop'"]
    assert [bool(request.get("stop")) for request in backend.requests] == [True, False, False]
    assert len(toolbox.calls) == 1
    noted = [node.data.get("stop_not_sent") for node in result.logs.values() if node.label.endswith("Thought")]
    assert noted and all("unexpected keyword argument 'stop'" in str(note) for note in noted), noted
