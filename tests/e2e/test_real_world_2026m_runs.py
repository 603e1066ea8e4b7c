"""The twelfth real-world pass's fixes through the real plugin: a ReAct reply that is only
``Finish[answer]`` (datawhalechina/hello-agents#311) shows the answer alone, and Gemma 4's call
under an MCP namespace (jundot/omlx#1830) runs the node's tool in both strategies."""

import pytest

from tests.e2e.helpers import answer_turn, assert_clean_end, weather_tool

GQ = '<|"|>'


def test_a_react_reply_that_is_only_finish_shows_its_answer_alone(run):
    result = run([{"text": "Finish[北京今天晴，推荐去八达岭长城。]", "split": 4}], query="北京天气?",
                 tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "北京今天晴，推荐去八达岭长城。"
    assert result.tool_requests == []


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_gemma_call_under_an_mcp_namespace_runs_the_nodes_tool(run, strategy):
    call = f"<|tool_call>call:google:mcp:weather:get_weather{{city:{GQ}Paris{GQ}}}<tool_call|>"
    result = run([{"text": call, "split": 6}, answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris."
    assert "tool_call" not in result.text and "google:mcp" not in result.text
