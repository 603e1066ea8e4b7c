"""Red-team wave 33, what users ask of an agent strategy, through the real plugin process, in
both strategies: paths the earlier suites did not try.

Found here and fixed: a model that reports no usage, or usage without a latency (a plugin that
fills only tokens), gave the run a ``latency`` of 0 in its ``execution_metadata`` however long
its model calls took; each call's latency is now the time the run measured for it when the model
reported none (``usage.timed``). Also pinned: the run's usage is the sum of every model call,
including the re-prompt of an unreadable reply and the continuation of a cut answer, in the
currency the model priced it in.
"""

from __future__ import annotations

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end

PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "RMB"}


def weather() -> ScriptedTool:
    return ScriptedTool(name="get_weather", description="Weather for a city", parameters=[ToolParam("city")],
                        responses=[text_message("Sunny, 21 C")])


def call_turn(strategy: str, city: str = "Paris") -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": "get_weather", "action_input": {"city": city}})
        return {"text": f"Thought: look.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": city}}]}


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith(" Thought")]


# --- fixed: a model that reports no latency ------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("report", ["no usage", "tokens only"])
def test_a_model_that_reports_no_latency_still_gives_the_run_its_time(run, strategy, report):
    """Two model calls of about 0.3 s each: the run's latency is their time, not 0, and at most
    the time their Thought nodes took; tokens stay what the model reported (none are invented)."""
    usage = None if report == "no usage" else {"prompt_tokens": 40, "completion_tokens": 4, "latency": 0}
    turns = [{**call_turn(strategy), "usage": usage, "delay": 0.3},
             {**answer_turn(strategy, "Sunny."), "usage": usage, "delay": 0.3}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather()])
    assert_clean_end(result)
    assert result.text == "Sunny."
    metadata = result.execution_metadata
    assert 0.6 <= metadata["latency"] <= sum(n.elapsed for n in thoughts(result)) + 0.01
    assert metadata["total_tokens"] == (0 if usage is None else 88)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_latency_the_model_reported_is_kept(run, strategy):
    usage = {"prompt_tokens": 40, "completion_tokens": 4, "latency": 7.25}
    turns = [{**call_turn(strategy), "usage": usage}, {**answer_turn(strategy, "Sunny."), "usage": usage}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather()])
    assert_clean_end(result)
    assert result.execution_metadata["latency"] == pytest.approx(14.5)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_failing_without_usage_still_reports_the_time_it_took(run, strategy):
    turns = [{**call_turn(strategy), "usage": None}, {"delay": 0.3, "error": "upstream 503"}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather()])
    assert not result.ok and "upstream 503" in result.error_text
    assert result.unfinished_logs() == []
    assert result.execution_metadata["latency"] >= 0.3


# --- pinned: the run's usage is every model call's ------------------------------------------------------


def unreadable_turn(strategy: str) -> dict:
    if strategy == "ReAct":
        return {"text": 'Thought: search\nAction_input: {"input": "x"}'}
    return {"text": '<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>'}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_sums_a_round_a_re_prompt_a_cut_answer_and_its_continuation(run, strategy):
    """Four model calls: a tool call, an unreadable reply (asked again), an answer cut by the
    output limit and its continuation. The run's tokens and price are all four's, in RMB, and
    the user gets the whole answer once."""
    reports = [(100, 10), (11, 1), (200, 20), (300, 30)]
    turns = [call_turn(strategy), unreadable_turn(strategy),
             {"text": answer_turn(strategy, "Part one of the answer")["text"], "finish_reason": "length"},
             {"text": " and part two."}]
    for turn, (prompt, completion) in zip(turns, reports, strict=True):
        turn["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion}
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather()], model={"pricing": PRICING})
    assert_clean_end(result)
    assert result.text == "Part one of the answer and part two."
    metadata = result.execution_metadata
    prompt, completion = sum(p for p, _ in reports), sum(c for _, c in reports)
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (
        prompt, completion, prompt + completion)
    assert metadata["total_price"] == pytest.approx(prompt * 2e-6 + completion * 8e-6)
    assert metadata["currency"] == "RMB"
    assert [n.metadata["total_tokens"] for n in thoughts(result)] == [p + c for p, c in reports]
