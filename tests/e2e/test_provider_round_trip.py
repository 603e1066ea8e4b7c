"""A model plugin's replies go back to it intact within a run, and the next run's memory holds
only the clean answer: both strategies, streamed and blocking, against the contract backends of
the third provider audit (docs/providers.md), through the real plugin process.

Run 1 calls the calculator in two rounds (``37 * 91``, then ``3367 + 1``) and answers; run 2 has
run 1's query and answer as memory and does the same. In Function Calling, every request after
a round holds that round's assistant message as the model plugin emitted it (the content with
its reasoning block, closed where the plugin left it open before its calls; the provider's
tool-call ids), as the provider body the plugin builds.
"""

import json
import re

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.backends import content_text
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import REASONING_MARK, BrainCall, Reply, TaskBrain
from tests.e2e.helpers import STRATEGIES, assert_clean_end

AUDITED = ["openrouter", "siliconflow", "azure_openai", "zhipuai"]
"""Contract backends added by the third audit (both halves)."""
EXPRESSIONS = ["37 * 91", "3367 + 1"]
QUERY = "What is 37 * 91, plus one?"
OBSERVATION = re.compile(r"Observation:\s*(\S[^\n]*)")


class TwoRoundBrain(TaskBrain):
    """Calls the calculator once a round for each of ``EXPRESSIONS``, then answers with the last
    result (native tool calls, or ReAct text when no tools are declared)."""

    def reply(self, request):
        self.turns += 1
        messages = request.get("prompt_messages") or []
        reasoning = f"({REASONING_MARK} {self.turns}) Step {self.turns} of the sum."
        if request.get("tools"):
            last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
            results = [content_text(m.get("content")).strip() for m in messages[last_user + 1 :] if m.get("role") == "tool"]
        else:
            text = "\n".join(content_text(m.get("content")) for m in messages if m.get("role") != "system")
            results = [found.strip() for found in OBSERVATION.findall(text)]
        if len(results) < len(EXPRESSIONS):
            arguments = {"expression": EXPRESSIONS[len(results)]}
            if request.get("tools"):
                return Reply(reasoning=reasoning, calls=(BrainCall(id=f"r{self.turns}calc", name="calculator", arguments=arguments),))
            action = json.dumps({"action": "calculator", "action_input": arguments})
            return Reply(reasoning=reasoning, text=f"Thought: step {len(results) + 1}.\nAction:\n```json\n{action}\n```")
        if request.get("tools"):
            return Reply(reasoning=reasoning, text=self.answer_prefix + results[-1])
        return Reply(reasoning=reasoning, text=f"Thought: I have it.\nFinal Answer: {self.answer_prefix}{results[-1]}")


def _recording(backend_class):
    """The backend class, keeping every reply's chunks as the model plugin emitted them."""

    class Recording(backend_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.emitted: list[list[dict]] = []

        def emit(self, reply, request, stream):
            chunks = list(super().emit(reply, request, stream))
            self.emitted.append(chunks)
            yield from chunks

    return Recording


def _run(plugin, contract, strategy, shape, history=(), brain=None):
    """One run of ``QUERY`` with the calculator through ``contract`` (a ``CONTRACTS`` name or a
    backend class), recording what it emitted; ``brain``: the model's plan (``TwoRoundBrain()``
    when None). Returns ``(backend, toolbox, result)``."""
    backend_class = CONTRACTS[contract] if isinstance(contract, str) else contract
    backend = _recording(backend_class)(shape=shape, brain=brain or TwoRoundBrain())
    model = ModelSettings(**backend_class.model_settings(stream=shape == "stream"))
    scenario = Scenario(query=QUERY, tools=["calculator"], strategy=strategy, model=model, history=list(history))
    toolbox = default_toolbox()
    result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    return backend, toolbox, result


def _as_emitted(chunks: list[dict]) -> tuple[str, list[str]]:
    """(the reply's content as the plugin streamed it, its tool-call ids)."""
    content = "".join(c["delta"]["message"]["content"] for c in chunks if isinstance(c["delta"]["message"]["content"], str))
    ids = [call["id"] for c in chunks for call in c["delta"]["message"]["tool_calls"]]
    return content, list(dict.fromkeys(ids))  # a plugin that repeats its call list on every chunk (Azure)


def _check_answered(backend, toolbox, result):
    """A ``_run`` of ``TwoRoundBrain`` went well: no request the contract backend refused, no
    reasoning block left open, a clean end, the calculator called with ``EXPRESSIONS`` in turn,
    and the answer (``3368``) shown without reasoning, after three provider requests."""
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert getattr(backend, "open_blocks", []) == []
    assert_clean_end(result)
    assert [call.request["tool_parameters"].get("expression") for call in toolbox.calls] == EXPRESSIONS
    assert "3368" in result.text, result.text
    assert REASONING_MARK not in result.text and "<think>" not in result.text, result.text
    assert len(backend.provider_requests) == 3


def _check_run(backend, toolbox, result, strategy):
    _check_answered(backend, toolbox, result)
    if strategy != "function_calling":
        for body in backend.provider_requests[1:]:
            assert REASONING_MARK not in json.dumps(body["messages"])  # ReAct's scratchpad is the visible text
        return
    for round_index, chunks in enumerate(backend.emitted[:2]):
        content, ids = _as_emitted(chunks)
        if content.count("<think>") > content.count("</think>"):
            content += "\n</think>"  # the plugin left the block open before its calls
        for body in backend.provider_requests[round_index + 1 :]:
            turn = [m for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls")][round_index]
            assert turn["content"] == content, (turn["content"], content)
            assert [call["id"] for call in turn["tool_calls"]] == ids


@pytest.mark.parametrize("shape", ["stream", "blocking"])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", AUDITED)
def test_round_trip_within_a_run_and_clean_memory_on_the_next(plugin, contract, strategy, shape):
    backend, toolbox, first = _run(plugin, contract, strategy, shape)
    _check_run(backend, toolbox, first, strategy)
    if shape == "stream" and strategy == "function_calling" and CONTRACTS[contract].reasoning:
        assert REASONING_MARK in _as_emitted(backend.emitted[0])[0]  # the test has reasoning to lose

    memory = [{"role": "user", "content": QUERY}, {"role": "assistant", "content": first.text}]
    backend, toolbox, second = _run(plugin, contract, strategy, shape, history=memory)
    _check_run(backend, toolbox, second, strategy)
    opening = backend.provider_requests[0]["messages"]
    remembered = [m for m in opening if m["role"] == "assistant"]
    assert [content_text(m["content"]) for m in remembered][:1] == [first.text]
    assert REASONING_MARK not in json.dumps(opening)
