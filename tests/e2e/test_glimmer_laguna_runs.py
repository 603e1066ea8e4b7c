"""Glimmer's recipient-headed messages and Laguna's call opened twice, through the real plugin
(Ollama's ``glimmer`` and ``laguna`` parser tests): what the user sees, and which tools run."""

import pytest

from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool


def _atem(name: str, parameters: str) -> str:
    return f'<atem:function_calls>\n<atem:invoke name="{name}">\n{parameters}</atem:invoke>\n</atem:function_calls>'


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_glimmer_answer_to_the_user_is_all_the_user_sees(run, strategy):
    reply = " to=self<|message|>Check the facts.<|eom|><|start|>assistant to=user<|message|>Paris is in France.<|eot|>"
    result = run([{"text": reply, "split": 7}], query="Where is Paris?", tools=[named_tool("get_weather", "city")],
                 strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Paris is in France."
    assert "Check the facts" not in result.text and "to=" not in result.text and "<|" not in result.text
    assert not result.tool_requests


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_glimmer_call_to_a_node_tool_runs(run, strategy):
    reply = (" to=self<|message|>Need the weather.<|eom|><|start|>assistant to=get_weather<|message|>"
             + _atem("get_weather", '<atem:parameter name="city">SF</atem:parameter>\n') + "<|eot|>")
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Sunny in SF.")],
                 query="Weather in SF?", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "SF"}]
    assert result.text.strip().endswith("Sunny in SF.")
    assert "Need the weather" not in result.text and "atem:" not in result.text and "<|" not in result.text


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_glimmer_call_naming_no_node_tool_runs_nothing(run, strategy):
    reply = " to=user<|message|>" + _atem("rm_all", '<atem:parameter name="path">/</atem:parameter>\n') + "<|eot|>"
    result = run([{"text": reply}, answer_turn(strategy, "I cannot do that.")],
                 query="Clean up", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert not result.tool_requests
    assert result.text.strip().endswith("I cannot do that.")
    assert "atem:" not in result.text and "rm_all" not in result.text


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_laguna_call_opened_twice_runs_once(run, strategy):
    reply = '<tool_call>skill\n{"name":"git-diff-review"}\n<tool_call>skill\n{"name":"git-diff-review"}</tool_call>'
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Reviewed.")],
                 query="Review my diff", tools=[named_tool("skill", "name")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"name": "git-diff-review"}]
    assert result.text.strip().endswith("Reviewed.")
    assert "tool_call" not in result.text
