"""A reply the output limit cut while no finish reason says so, known from its usage, through the
real plugin process.

The Ollama model plugin always sends ``stop`` (Ollama's ``done_reason`` ``length`` is dropped) and
a blocking reply may have no finish reason: the cut answer used to be shown as complete. (A
streamed Gemini reply whose last response has no content parts loses both its reason and its
usage in the plugin, so it cannot be known as cut: docs/providers.md.) When the reply's usage reports
exactly the output limit the node set (``max_tokens``, Ollama's ``num_predict``…) it is read as
cut (``agent_core/output_limit.py``): the answer is continued, the calls are not run.
"""

from __future__ import annotations

import json

import pytest

from agent_core import prompts
from agent_core.tool_calls import LENGTH_BY_USAGE
from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.contracts.base import Reply, TaskBrain
from local_runner.contracts.ollama import OllamaContract
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text

LIMIT = 64
ADD = {"name": "calculator", "arguments": {"expression": "2 + 2"}}
NO_STREAMED_CALLS = ["tool-call", "multi-tool-call"]  # Function Calling then asks for a blocking reply


def at_limit(turn: dict, reason: str | None = "stop", tokens: int = LIMIT) -> dict:
    """``turn`` reporting ``tokens`` completion tokens and ending with ``reason`` (None: none)."""
    return {**turn, "usage": {"prompt_tokens": 40, "completion_tokens": tokens}, "finish_reason": reason}


def limited(limit_name: str = "max_tokens", **fields) -> dict:
    return {"completion_params": {"temperature": 0.2, limit_name: LIMIT}, **fields}


def call_turn(strategy: str) -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": "calculator", "action_input": ADD["arguments"]})
        return {"text": f"Thought: add.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "c", **ADD}]}


def thought_reasons(result) -> list:
    return [n.data.get("finish_reason") for n in result.logs.values() if n.label.endswith("Thought")]


# --- an answer cut at the limit is continued --------------------------------------------------


@pytest.mark.parametrize("reason", ["stop", None], ids=["ollama-stop", "no-reason"])
@pytest.mark.parametrize("limit_name", ["max_tokens", "num_predict", "max_output_tokens"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_whose_usage_reached_the_limit_is_continued(run, strategy, limit_name, reason):
    first = at_limit(answer_turn(strategy, "The three laws are: one, two"), reason)
    result = run([first, {"text": ", and three."}], query="List the laws.", strategy=strategy,
                 model=limited(limit_name))
    assert_clean_end(result)
    assert result.text == "The three laws are: one, two, and three."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    assert thought_reasons(result)[0] == LENGTH_BY_USAGE  # the log says how it was known


def test_a_blocking_answer_whose_usage_reached_the_limit_is_continued(run):
    """A blocking reply (the model cannot stream tool calls): one chunk, no finish reason."""
    first = at_limit({"text": "The three laws are: one, two"}, None)
    result = run([first, at_limit({"text": ", and three."}, None, 5)], query="List the laws.", tools=["calculator"],
                 model=limited(features=NO_STREAMED_CALLS))
    assert_clean_end(result)
    assert [request["stream"] for request in result.llm_requests] == [False, False]
    assert result.text == "The three laws are: one, two, and three."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_at_the_limit_twice_ends_with_the_cut_notice(run, strategy):
    turns = [at_limit(answer_turn(strategy, "Part one"), None), at_limit({"text": " and part two"}, None)]
    result = run(turns, query="Write a lot.", strategy=strategy, model=limited())
    assert_clean_end(result)
    assert result.text.startswith("Part one and part two")
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)


# --- calls in a reply at the limit are not run ----------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_in_a_reply_that_reached_the_limit_is_not_run(run, strategy):
    """Ollama sends ``tool_calls`` then ``stop``: the limit may have cut a later call of the plan."""
    turns = [at_limit(call_turn(strategy), "stop"), call_turn(strategy), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, model=limited("num_predict"))
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1  # only round 2's call ran
    assert "cut off by the output limit" in prompt_text(result.llm_requests[1])


def test_a_blocking_call_at_the_limit_is_not_run(run):
    turns = [at_limit(call_turn("function_calling"), None), call_turn("function_calling"), {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"], model=limited(features=NO_STREAMED_CALLS))
    assert_clean_end(result)
    assert result.text == "4." and len(result.tool_requests) == 1


def test_calls_a_plugin_says_ended_with_tool_calls_run_at_the_limit(run):
    """A ``tool_calls`` reason comes from a plugin that passes its provider's reasons on, which
    would have said ``length``: the calls are complete and run."""
    turns = [at_limit(call_turn("function_calling"), "tool_calls"), {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"], model=limited())
    assert_clean_end(result)
    assert result.text == "4." and len(result.tool_requests) == 1


# --- what is not proof ---------------------------------------------------------------------------


@pytest.mark.parametrize(("tokens", "model"), [
    (LIMIT - 1, limited()),  # short of the limit
    (LIMIT + 40, limited()),  # over it: an estimate by another tokenizer, not the model's count
    (LIMIT, {"completion_params": {"temperature": 0.2}}),  # no limit set
    (LIMIT, {"completion_params": {"num_predict": -1}}),  # Ollama: no limit
    (LIMIT, {"completion_params": {"max_tokens": "64"}}),  # text is no limit
], ids=["short", "over", "no-limit", "num-predict-infinite", "text"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_not_proven_cut_is_shown_as_it_came(run, strategy, tokens, model):
    result = run([at_limit(answer_turn(strategy, "Paris."), "stop", tokens)], query="Capital?", strategy=strategy,
                 model=model)
    assert_clean_end(result)
    assert result.text == "Paris." and len(result.llm_requests) == 1
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_with_no_usage_is_shown_as_it_came(run, strategy):
    turn = {**answer_turn(strategy, "Paris."), "usage": None, "finish_reason": None}
    result = run([turn], query="Capital?", strategy=strategy, model=limited())
    assert_clean_end(result)
    assert result.text == "Paris." and len(result.llm_requests) == 1


# --- the Ollama model plugin, as it streams and answers blocking ----------------------------------


class _ContinuingBrain(TaskBrain):
    """The task brain, which also answers a request to continue a cut answer with its rest."""

    rest = " (continued)."

    def reply(self, request: dict) -> Reply:
        if prompts.CONTINUE_CUT_ANSWER in json.dumps(request.get("prompt_messages") or [], ensure_ascii=False):
            self.turns += 1
            return Reply(reasoning="", text=self.rest)
        return super().reply(request)


LONG_ANSWER = ("After checking carefully against the tool output, twice over and with some care, I can say that the "
               "final result of the multiplication of 37 by 91 is ")
"""An answer of some 40 tokens: the reply that gives it passes ``num_predict`` (55 with the brain's
reasoning, 30 without), the one that calls the tool does not."""


@pytest.mark.parametrize(("strategy", "shape", "think", "num_predict"), [
    ("function_calling", "stream", True, 55),
    ("function_calling", "blocking", False, 30),
    ("ReAct", "stream", True, 55),  # ReAct always asks for a stream
])
def test_ollama_answer_cut_at_num_predict_is_continued(plugin, strategy, shape, think, num_predict):
    """``num_predict`` reached: Ollama stops with ``done_reason`` ``length``, which its model plugin
    drops (``stop``, or none when blocking), and reports ``eval_count`` = ``num_predict``.

    Blocking with ``think`` off: the plugin drops a blocking reply's thinking, so with ``think`` on
    the answer of a model that may open ``<think>`` in its prompt comes with no ``</think>``, and a
    cut one is read as cut inside its reasoning (asked again, shorter), as after any ``length``."""
    brain = _ContinuingBrain(answer_prefix=LONG_ANSWER)
    backend = OllamaContract(brain=brain)
    settings = OllamaContract.model_settings(stream=shape == "stream")
    settings["completion_params"] = {**settings["completion_params"], "think": think, "num_predict": num_predict}
    scenario = Scenario(query="What is 37 * 91?", tools=["calculator"], strategy=strategy, model=ModelSettings(**settings))
    result = run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)
    assert_clean_end(result)
    assert backend.rejections == []
    assert backend.cut_replies, "no reply reached num_predict: the test proves nothing"
    assert result.text.endswith(_ContinuingBrain.rest)
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(backend.requests[-1])
    assert LENGTH_BY_USAGE in thought_reasons(result)
