"""Wave 38, through the real plugin process (docs/providers.md, "Wave 38 re-read").

Anthropic, a0fee42 (newer than 0.3.33, 1c274cb): a thinking block followed straight by
``tool_use`` is closed once in the stream (0.3.33 closed it a second time at the end). Both
versions, both strategies, streamed and blocking: two rounds of tool calls, an answer, then a run
with that answer as memory; each round goes back with its content as streamed (one closing tag or
two), its ``opaque_body`` and ids, and the blocks reach Claude as issued.

Fireworks AI, new to the contracts. Its plugin speaks OpenAI's legacy function-calling form: a
round's first call goes back as ``function_call`` (no id: the plugin makes the function's name the
id), a tool result as a ``function`` message named after the tool, and only the first call of an
assistant message reaches the model.

* Two rounds of tool calls, an answer, then a second run with the first one's query and answer as
  memory; both strategies, streamed and blocking: each round goes back with its content as the
  plugin streamed it (Qwen3's ``<think>`` block included) and its call; the user sees the clean
  answer; memory holds no reasoning.
* Two calls the model wrote in its text in one reply (Qwen3's ``<tool_call>`` markup): both run
  and both reach the model on the next request, one call a message, since the plugin sends back
  only a message's first call.
"""

import json

import pytest

from local_runner.backends import content_text
from local_runner.contracts.anthropic import Anthropic0333Contract, AnthropicContract
from local_runner.contracts.base import REASONING_MARK, Reply, TaskBrain
from tests.e2e.helpers import STRATEGIES, assert_clean_end
from tests.e2e.test_contract_thinking_wave33 import (
    _check_anthropic_rounds,
    _check_clean,
    _check_memory,
    _memory,
    _opaque,
)
from tests.e2e.test_provider_contracts_wave35 import _rounds_in
from tests.e2e.test_provider_round_trip import EXPRESSIONS, QUERY, TwoRoundBrain, _as_emitted, _check_answered, _run

RESULTS = ["3367", "3368"]


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", [AnthropicContract, Anthropic0333Contract], ids=["a0fee42", "1c274cb"])
def test_claude_rounds_go_back_as_streamed_in_both_versions(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape, brain=TwoRoundBrain())
    _check_clean(backend, first)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    if strategy == "function_calling":
        _check_anthropic_rounds(backend)  # the blocks reach Claude as issued
        for round_index, chunks in enumerate(backend.emitted[:2]):
            content, ids = _as_emitted(chunks)
            if shape == "stream":
                closes = 2 if contract is Anthropic0333Contract else 1
                assert REASONING_MARK in content and content.count("</think>") == closes, content
            for request in backend.requests[round_index + 1 :]:
                turn = _rounds_in(request)[round_index]
                assert content_text(turn["content"]) == content  # as streamed, each closing tag kept
                assert turn.get("opaque_body") == _opaque(chunks)
                assert [call["id"] for call in turn["tool_calls"]] == ids

    backend, toolbox, second = _run(plugin, contract, strategy, shape, brain=TwoRoundBrain(), history=_memory(first))
    _check_clean(backend, second)
    _check_memory(backend, first)


def _check_fireworks_rounds(backend):
    """Each round goes back with its content as the plugin emitted it, its call as
    ``function_call`` (name and arguments as streamed), and the result as a ``function`` message
    named after the tool; no call is lost."""
    assert backend.calls_lost == []
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        assert ids == ["calculator"]  # the plugin's id: the function's name
        assert REASONING_MARK in content
        arguments = [c["function"]["arguments"] for chunk in chunks for c in chunk["delta"]["message"]["tool_calls"]]
        for body in backend.provider_requests[round_index + 1 :]:
            messages = body["messages"]
            position = [i for i, m in enumerate(messages) if m.get("function_call")][round_index]
            turn, answer = messages[position], messages[position + 1]
            assert turn["content"] == content
            assert turn["function_call"] == {"name": "calculator", "arguments": arguments[0]}
            assert json.loads(arguments[0]) == {"expression": EXPRESSIONS[round_index]}
            assert answer["role"] == "function" and answer["name"] == "calculator"
            assert answer["content"].strip().endswith(RESULTS[round_index])


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fireworks_rounds_go_back_as_its_plugin_sends_them_and_memory_is_clean(plugin, strategy, shape):
    backend, toolbox, first = _run(plugin, "fireworks", strategy, shape)
    _check_answered(backend, toolbox, first)
    if strategy == "function_calling":
        _check_fireworks_rounds(backend)
    else:
        for body in backend.provider_requests[1:]:
            assert REASONING_MARK not in json.dumps(body["messages"])  # ReAct's scratchpad is the visible text
            assert "functions" not in body

    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, "fireworks", strategy, shape, history=memory)
    _check_answered(backend, toolbox, second)
    opening = backend.provider_requests[0]["messages"]
    assert [content_text(m["content"]) for m in opening if m["role"] == "assistant"] == [first.text]
    assert REASONING_MARK not in json.dumps(opening)


TEXT_CALLS = "".join(
    f'<tool_call>\n{{"name": "calculator", "arguments": {{"expression": "{expression}"}}}}\n</tool_call>\n'
    for expression in EXPRESSIONS
)


class TextCallsBrain(TaskBrain):
    """Writes both calculator calls in its text in one reply (Qwen3's markup, no native call),
    then answers with the results it was given, in order."""

    def reply(self, request):
        self.turns += 1
        messages = request.get("prompt_messages") or []
        results = [content_text(m.get("content")).strip() for m in messages if m.get("role") == "tool"]
        if not results:
            return Reply(reasoning=f"({REASONING_MARK}) both sums at once", text=TEXT_CALLS)
        return Reply(reasoning=f"({REASONING_MARK}) done", text="Results: " + ", ".join(results))


@pytest.mark.parametrize("shape", ["stream", "blocking"])
def test_two_calls_written_in_the_text_both_reach_fireworks_one_a_message(plugin, shape):
    backend, toolbox, result = _run(plugin, "fireworks", "function_calling", shape, brain=TextCallsBrain())
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    assert backend.calls_lost == []  # before: the second call was dropped by the plugin
    body = backend.provider_requests[1]
    sent = [m["function_call"]["arguments"] for m in body["messages"] if m.get("function_call")]
    assert [json.loads(arguments)["expression"] for arguments in sent] == EXPRESSIONS
    results = [m for m in body["messages"] if m["role"] == "function"]
    assert [m["name"] for m in results] == ["calculator", "calculator"]
    assert "3367" in result.text and "3368" in result.text
    assert REASONING_MARK not in result.text and "<tool_call>" not in result.text
