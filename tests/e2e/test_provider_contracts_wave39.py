"""Wave 39, through the real plugin process (docs/providers.md, "Wave 39").

Cohere (``models/cohere/models/llm/llm.py`` 2027214), new to the contracts. Its plugin speaks
Cohere's v1 chat API: the last user (or system) entry is the ``message``, an assistant message
with tool calls turns into ``tool_results`` items (its text dropped), the plugin makes each call's
id the tool's name, and a request with exactly one tool fails in the plugin itself. Cohere refuses
a request with both a ``message`` and ``tool_results`` (multi-step mode, langgenius/dify#5441), and
the plugin always sends both after a tool call.

* One tool, Function Calling: the plugin's refusal ("requires at least two tools") is read as a
  refusal of native tools, so the run goes on with ReAct's steps and answers (before: the run
  failed on its first request).
* Two tools, Function Calling: the first round's native call runs; Cohere's refusal of the next
  request is read the same way, and the run goes on with ReAct's steps, the first round's call and
  result in its scratchpad (before: the run failed on its second request). Then a run with the
  answer as memory.
* ReAct: two rounds, an answer and a memory run, streamed and blocking.

StepFun (``models/stepfun/models/llm/llm.py`` 23ce2fa, ``step-3.7-flash`` with deepseek-style
reasoning), new to the contracts: on the SDK base with a stream handler of its own. The chunk that
closes the reasoning carries its delta's call (arguments ``""``, or whole from a server that sends
a call in one delta); after the stream every call comes again, merged by tool name.

* Both strategies, both server shapes, streamed and blocking: two rounds, an answer, a memory
  run; each round goes back with its content as streamed (the ``<think>`` block included) and its
  id; the user sees the clean answer.
* Two parallel calls of one tool: each runs once and goes back once (before: a server that sends
  a call whole ran the first call twice, once more from the merged list's glued arguments).

GPUStack (``models/gpustack/models/llm/llm.py`` 2130a24), new to the contracts: the SDK base with
its own reasoning wrapper; on the way back it strips only a *leading* ``<think>`` block; with its
default ``agent_thought_support: not_supported`` it filters the ``<think>`` spans out of the
stream. Both strategies, thinking on and off, streamed and blocking: two rounds, an answer and a
memory run; each round's content goes back to the plugin as streamed, the provider gets it without
its leading block, ids as given; the user sees the clean answer.

DeepInfra (``models/deepinfra/models/llm/llm.py`` 44747f9, ``moonshotai/Kimi-K2.6``), new to the
contracts: its own handler reads only ``content`` (the reasoning never arrives), gathers the calls
and yields them on the held-back finish chunk with the usage; a blocking reply's content is
``None`` beside its calls. Both strategies, streamed and blocking: two rounds, an answer and a
memory run, ids as given.

SageMaker (``models/sagemaker/models/llm/llm.py`` d2e4c1d): the plugin never sends the tools to the
endpoint and reads no tool call back. Function Calling now runs ReAct's steps from the start, saying
so in the log (before: it sent the tools, which the model never saw, and a streamed request with
tools failed in the plugin); ReAct as usual. Both with an answer and a memory run.
"""

import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.backends import content_text
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from local_runner.contracts.cohere import MULTISTEP_REFUSAL, ONE_TOOL_REFUSAL, CohereContract
from tests.e2e.helpers import STRATEGIES, assert_clean_end
from tests.e2e.test_provider_round_trip import (
    EXPRESSIONS,
    QUERY,
    TwoRoundBrain,
    _as_emitted,
    _check_answered,
    _check_run,
    _recording,
)
from tests.e2e.test_provider_round_trip import _run as _contract_run


def _run(plugin, strategy, shape, tools, brain=None, history=()):
    backend = _recording(CohereContract)(shape=shape, brain=brain or TwoRoundBrain())
    model = ModelSettings(**CohereContract.model_settings(stream=shape == "stream"))
    scenario = Scenario(query=QUERY, tools=tools, strategy=strategy, model=model, history=list(history))
    toolbox = default_toolbox()
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    return backend, toolbox, result


def _memory(first):
    return [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]


def _check_memory_sent(backend, first):
    """The memory turn reaches Cohere as the clean answer the user saw (a ``CHATBOT`` entry)."""
    history = backend.provider_requests[0]["chat_history"]
    assert {"role": "CHATBOT", "message": first.text} in history
    assert "<think>" not in json.dumps(history)


@pytest.mark.parametrize("shape", ["stream", "blocking"])
def test_one_tool_function_calling_goes_on_with_react_steps_on_cohere(plugin, shape):
    backend, toolbox, first = _run(plugin, "function_calling", shape, ["calculator"])
    assert backend.plugin_failures == [ONE_TOOL_REFUSAL]  # once: no later request sends the tool
    assert all("tools" not in body for body in backend.provider_requests)
    assert backend.rejections == [] and backend.results_lost == []
    assert_clean_end(first)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    assert "3368" in first.text and "Thought:" not in first.text and "Action:" not in first.text, first.text

    backend, toolbox, second = _run(plugin, "function_calling", shape, ["calculator"], history=_memory(first))
    assert_clean_end(second)
    assert "3368" in second.text
    _check_memory_sent(backend, first)


@pytest.mark.parametrize("shape", ["stream", "blocking"])
def test_two_tools_function_calling_goes_on_with_react_steps_once_cohere_refuses_tool_results(plugin, shape):
    tools = ["calculator", "unit_convert"]
    backend, toolbox, first = _run(plugin, "function_calling", shape, tools)
    assert [rejection.message for rejection in backend.rejections] == [MULTISTEP_REFUSAL]  # once, then no tool_results
    assert backend.plugin_failures == [] and backend.results_lost == []
    assert_clean_end(first)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    assert "3368" in first.text and "Thought:" not in first.text and "Action:" not in first.text, first.text
    # the first round went back as the plugin returned it: its call, under the plugin's id
    _, ids = _as_emitted(backend.emitted[0])
    assert ids == ["calculator"]
    emitted = [c["function"] for chunk in backend.emitted[0] for c in chunk["delta"]["message"]["tool_calls"]]
    turn = [m for m in backend.requests[1]["prompt_messages"] if m.get("tool_calls")]
    assert [c["id"] for c in turn[0]["tool_calls"]] == ids and [c["function"] for c in turn[0]["tool_calls"]] == emitted
    assert backend.provider_requests[1]["tool_results"][0]["outputs"][0]["result"].strip() == "37 * 91 = 3367"
    # after the refusal: ReAct's steps, the first round's call and result in the text
    for body in backend.provider_requests[2:]:
        assert "tools" not in body and "tool_results" not in body
        assert "37 * 91 = 3367" in json.dumps(body)

    backend, toolbox, second = _run(plugin, "function_calling", shape, tools, history=_memory(first))
    assert_clean_end(second)
    assert "3368" in second.text
    _check_memory_sent(backend, first)


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("tools", [["calculator"], ["calculator", "unit_convert"]], ids=["one_tool", "two_tools"])
def test_react_rounds_and_memory_on_cohere(plugin, tools, shape):
    backend, toolbox, first = _run(plugin, "ReAct", shape, tools)
    _check_answered(backend, toolbox, first)
    assert backend.plugin_failures == [] and all("tools" not in body for body in backend.provider_requests)
    for body in backend.provider_requests:
        assert body["message"].strip()  # the last entry Cohere gets as the user's message is never empty
        assert not body["message"].startswith("Thought:")  # a user's turn, not the scratchpad sent as one

    backend, toolbox, second = _run(plugin, "ReAct", shape, tools, history=_memory(first))
    _check_answered(backend, toolbox, second)
    _check_memory_sent(backend, first)


# -- StepFun --------------------------------------------------------------------------------------

STEPFUN = ["stepfun", "stepfun_whole_calls"]


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", STEPFUN)
def test_stepfun_rounds_go_back_as_streamed_and_memory_is_clean(plugin, contract, strategy, shape):
    backend, toolbox, first = _contract_run(plugin, contract, strategy, shape)
    _check_run(backend, toolbox, first, strategy)  # content as streamed, ids as given, in every later request
    if strategy == "function_calling" and shape == "stream":
        content, ids = _as_emitted(backend.emitted[0])
        assert REASONING_MARK in content and content.count("</think>") == 1  # the test has reasoning to lose
        assert len(ids) == 1  # the call on the </think> chunk and the merged list's are one call

    backend, toolbox, second = _contract_run(plugin, contract, strategy, shape, history=_memory(first))
    _check_run(backend, toolbox, second, strategy)
    opening = backend.provider_requests[0]["messages"]
    assert [m["content"] for m in opening if m["role"] == "assistant"] == [first.text]
    assert REASONING_MARK not in json.dumps(opening)


class ParallelBrain(TaskBrain):
    """Calls the calculator twice in one reply (``EXPRESSIONS``), then answers with the results."""

    def reply(self, request):
        self.turns += 1
        messages = request.get("prompt_messages") or []
        results = [content_text(m.get("content")).strip() for m in messages if m.get("role") == "tool"]
        reasoning = f"({REASONING_MARK} {self.turns}) both sums"
        if not results:
            calls = tuple(BrainCall(id=f"p{i}", name="calculator", arguments={"expression": e}) for i, e in enumerate(EXPRESSIONS))
            return Reply(reasoning=reasoning, calls=calls)
        return Reply(reasoning=reasoning, text="Results: " + "; ".join(results))


@pytest.mark.parametrize("contract", STEPFUN)
def test_two_parallel_calls_of_one_tool_run_once_each_through_stepfun(plugin, contract):
    backend, toolbox, result = _contract_run(plugin, contract, "function_calling", "stream", brain=ParallelBrain())
    assert backend.rejections == []
    assert_clean_end(result)
    assert [call.request["tool_parameters"]["expression"] for call in toolbox.calls] == EXPRESSIONS
    assert result.text == "Results: 37 * 91 = 3367; 3367 + 1 = 3368", result.text
    turn = [m for m in backend.provider_requests[1]["messages"] if m.get("tool_calls")]
    assert len(turn) == 1
    sent = [json.loads(call["function"]["arguments"])["expression"] for call in turn[0]["tool_calls"]]
    assert sent == EXPRESSIONS
    ids = [call["id"] for call in turn[0]["tool_calls"]]
    answered = [m["tool_call_id"] for m in backend.provider_requests[1]["messages"] if m["role"] == "tool"]
    assert answered == ids and len(set(ids)) == 2
    assert ids[0] == "call_p0"  # the first call's id, as the plugin gave it
    if contract == "stepfun_whole_calls":
        assert ids[1] == "call_p1"  # the merged call's id goes with the call it ends with


# -- GPUStack -------------------------------------------------------------------------------------


def _check_gpustack_rounds(backend):
    """Each round goes back to the plugin as it streamed it, and reaches the server without its
    leading ``<think>`` block (the plugin's ``_drop_analyze_channel``), under the same ids."""
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
            turn = [m for m in request["prompt_messages"] if m.get("tool_calls")][round_index]
            assert turn["content"] == content
            sent = [m for m in body["messages"] if m.get("tool_calls")][round_index]
            assert sent["content"] == (content.split("</think>", 1)[1].lstrip() if content.startswith("<think>") else content)
            assert [c["id"] for c in sent["tool_calls"]] == ids


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["gpustack", "gpustack_thinking_off"])
def test_gpustack_rounds_go_back_as_streamed_and_memory_is_clean(plugin, contract, strategy, shape):
    backend, toolbox, first = _contract_run(plugin, contract, strategy, shape)
    _check_answered(backend, toolbox, first)
    if strategy == "function_calling":
        _check_gpustack_rounds(backend)
        streamed = _as_emitted(backend.emitted[0])[0]
        if shape == "stream":  # the reasoning reaches the strategy only when thinking is on
            assert (REASONING_MARK in streamed) is (contract == "gpustack"), streamed
    else:
        for body in backend.provider_requests[1:]:
            assert REASONING_MARK not in json.dumps(body["messages"])

    backend, toolbox, second = _contract_run(plugin, contract, strategy, shape, history=_memory(first))
    _check_answered(backend, toolbox, second)
    opening = backend.provider_requests[0]["messages"]
    assert [m["content"] for m in opening if m["role"] == "assistant"] == [first.text]
    assert REASONING_MARK not in json.dumps(opening)


# -- DeepInfra ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_deepinfra_rounds_go_back_as_returned_and_memory_is_clean(plugin, strategy, shape):
    backend, toolbox, first = _contract_run(plugin, "deepinfra", strategy, shape)
    _check_answered(backend, toolbox, first)
    if strategy == "function_calling":
        for round_index, chunks in enumerate(backend.emitted[:2]):
            _, ids = _as_emitted(chunks)
            assert ids == [f"functions.calculator:r{round_index + 1}calc"]
            for body in backend.provider_requests[round_index + 1 :]:
                turn = [m for m in body["messages"] if m.get("tool_calls")][round_index]
                assert [call["id"] for call in turn["tool_calls"]] == ids
                assert turn["content"] in ("", None)  # the round said nothing beside its call
                answers = [m for m in body["messages"] if m["role"] == "tool"]
                assert answers[round_index]["tool_call_id"] == ids[0]

    backend, toolbox, second = _contract_run(plugin, "deepinfra", strategy, shape, history=_memory(first))
    _check_answered(backend, toolbox, second)
    opening = backend.provider_requests[0]["messages"]
    assert [m["content"] for m in opening if m["role"] == "assistant"] == [first.text]


# -- SageMaker ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sagemaker_runs_with_react_steps_and_memory_is_clean(plugin, strategy):
    backend, toolbox, first = _contract_run(plugin, "sagemaker", strategy, "blocking")
    _check_answered(backend, toolbox, first)
    assert backend.tools_sent == []  # the plugin would drop them: none is sent
    if strategy == "function_calling":
        note = first.root_logs()[0]
        assert note.label == "USING ReAct" and "never sends tools" in json.dumps(note.data), note

    backend, toolbox, second = _contract_run(plugin, "sagemaker", strategy, "blocking", history=_memory(first))
    _check_answered(backend, toolbox, second)
    opening = backend.provider_requests[0]["messages"]
    assert [m["content"] for m in opening if m["role"] == "assistant"] == [first.text]
