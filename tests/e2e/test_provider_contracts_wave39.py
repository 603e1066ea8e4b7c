"""Wave 39, through the real plugin process (docs/providers.md, "Wave 39").

Cohere (``models/cohere/models/llm/llm.py`` 2027214), new to the contracts. Its plugin speaks
Cohere's v1 chat API: the last user (or system) entry is the ``message``, an assistant message
with tool calls turns into ``tool_results`` items (its text dropped), a tool message fills the
first item whose call is *named* as its ``tool_call_id``, the plugin makes each call's id the
tool's name, and a request with exactly one tool fails in the plugin itself.

* One tool, Function Calling: the plugin's refusal ("requires at least two tools") is read as a
  refusal of native tools, so the run goes on with ReAct's steps and answers (before: the run
  failed on its first request).
* Two tools, Function Calling: two rounds (calculator, then unit_convert), an answer, then a run
  with that answer as memory, streamed and blocking: each round's call goes back under the
  plugin's id with its arguments, each result reaches its own call, the user sees the clean
  answer, memory holds it as shown.
* ReAct: two rounds of the same tool, an answer and a memory run, streamed and blocking.
* The same tool called in two rounds, Function Calling: the second result never reaches Cohere
  (the plugin pairs results by tool name): a strict xfail.

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
"""

import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.backends import content_text
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from local_runner.contracts.cohere import ONE_TOOL_REFUSAL, CohereContract
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

CONVERSION = {"value": 3367, "from_unit": "m", "to_unit": "km"}


class TwoToolsBrain(TaskBrain):
    """Calls the calculator (``37 * 91``), then unit_convert on its result, then answers with
    every result it was given, in order (Command R+ shows no reasoning)."""

    def reply(self, request):
        self.turns += 1
        messages = request.get("prompt_messages") or []
        results = [content_text(m.get("content")).strip() for m in messages if m.get("role") == "tool"]
        if not results:
            return Reply(reasoning="", calls=(BrainCall(id="c1", name="calculator", arguments={"expression": "37 * 91"}),))
        if len(results) == 1:
            return Reply(reasoning="", calls=(BrainCall(id="c2", name="unit_convert", arguments=CONVERSION),))
        return Reply(reasoning="", text="Results: " + "; ".join(results))


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
def test_two_tools_rounds_go_back_to_cohere_as_its_plugin_returned_them(plugin, shape):
    tools = ["calculator", "unit_convert"]
    backend, toolbox, first = _run(plugin, "function_calling", shape, tools, brain=TwoToolsBrain())
    assert backend.rejections == [] and backend.plugin_failures == [] and backend.results_lost == []
    assert_clean_end(first)
    assert [call.request["tool"] for call in toolbox.calls] == tools
    assert first.text.startswith("Results: 37 * 91 = 3367; 3367 m = 3.367 km"), first.text
    assert len(backend.provider_requests) == 3
    for round_index, chunks in enumerate(backend.emitted[:2]):
        _, ids = _as_emitted(chunks)
        assert ids == [tools[round_index]]  # the plugin's id: the tool's name
        emitted = [c["function"] for chunk in chunks for c in chunk["delta"]["message"]["tool_calls"]]
        for request, body in zip(backend.requests[round_index + 1 :], backend.provider_requests[round_index + 1 :], strict=True):
            turns = [m for m in request["prompt_messages"] if m.get("tool_calls")]
            assert [c["id"] for c in turns[round_index]["tool_calls"]] == ids
            assert [c["function"] for c in turns[round_index]["tool_calls"]] == emitted
            item = body["tool_results"][round_index]
            assert item["call"] == {"name": tools[round_index], "parameters": json.loads(emitted[0]["arguments"])}
            assert item["outputs"][0]["result"].strip() == ["37 * 91 = 3367", "3367 m = 3.367 km"][round_index]
        assert backend.provider_requests[round_index + 1]["message"] == QUERY

    backend, toolbox, second = _run(plugin, "function_calling", shape, tools, brain=TwoToolsBrain(), history=_memory(first))
    assert backend.rejections == [] and backend.results_lost == []
    assert_clean_end(second)
    assert second.text == first.text
    _check_memory_sent(backend, first)


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("tools", [["calculator"], ["calculator", "unit_convert"]], ids=["one_tool", "two_tools"])
def test_react_rounds_and_memory_on_cohere(plugin, tools, shape):
    backend, toolbox, first = _run(plugin, "ReAct", shape, tools)
    _check_answered(backend, toolbox, first)
    assert backend.plugin_failures == [] and all("tools" not in body for body in backend.provider_requests)
    for body in backend.provider_requests:
        assert body["message"].strip()  # the last entry Cohere gets as the user's message is never empty
        assert body["chat_history"][-1]["role"] in ("USER", "CHATBOT")

    backend, toolbox, second = _run(plugin, "ReAct", shape, tools, history=_memory(first))
    _check_answered(backend, toolbox, second)
    _check_memory_sent(backend, first)


@pytest.mark.xfail(strict=True, reason=(
    "Cohere's plugin pairs a tool message with the first call *named* as its tool_call_id: the second "
    "call of one tool in a run gets no result (under the strategy's unique id calculator_2) or overwrites "
    "the first call's (under the plugin's own id), so Cohere never sees that call with its result; the "
    "strategy cannot send it in a form the plugin converts. The run ends on the repeat guard's message."))
def test_the_same_tool_in_two_rounds_reaches_cohere_with_both_results(plugin):
    backend, _toolbox, result = _run(plugin, "function_calling", "stream", ["calculator", "unit_convert"])
    assert_clean_end(result)
    assert backend.results_lost == [], backend.results_lost
    assert "3368" in result.text


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
