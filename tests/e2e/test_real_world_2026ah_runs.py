"""The thirty-third real-world pass's fixes through the real plugin. An answer ended by a
``</tool_call>`` that closes nothing (ai-dynamo/frontend-crates PR #61) is shown without it
(Function Calling showed the tag); GLM's bare call, its name straight before ``<arg_key>`` and an
orphan ``</tool_call>`` after it (ai-dynamo/dynamo PR #10144), runs (Function Calling showed the
markup as the answer); and Gemma 4's thought after a tool's result, its channel opened by the
template in the prompt so the reply holds only ``<channel|>`` and the answer (jundot/omlx PR
#2533), is kept out of the answer (both strategies showed it)."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import SELF_SERVED, STRATEGIES, answer_turn, assert_clean_end


def _weather_tool() -> ScriptedTool:
    return ScriptedTool(name="get_weather", description="the weather of a place.",
                        parameters=[ToolParam("location", description="the place")],
                        responses=[text_message("18 °C, light rain")])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_ended_by_an_orphan_tool_call_close_is_shown_without_it(run, strategy):
    reply = answer_turn(strategy, "The build is green on all three platforms.</tool_call>")
    result = run([{**reply, "split": 7}], query="Is the build green?", tools=[_weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == "The build is green on all three platforms."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_glms_bare_call_with_an_orphan_close_runs(run, strategy):
    bare = "get_weather<arg_key>location</arg_key><arg_value>Paris</arg_value></tool_call>"
    result = run([{"text": bare, "split": 7}, answer_turn(strategy, "Paris: 18 °C with light rain.")],
                 query="Weather in Paris?", tools=[_weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"location": "Paris"}]
    assert result.text.strip() == "Paris: 18 °C with light rain."
    assert "arg_key" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_gemma4s_prompt_opened_thought_is_kept_out_of_the_answer(run, strategy):
    thought_then_answer = ("The tool returned 18 °C and light rain for Paris. Summarise it in one line.<channel|>"
                           "Paris: 18 °C with light rain.")
    result = run([{"text": thought_then_answer, "split": 7}], query="Weather in Paris?", tools=[_weather_tool()],
                 strategy=strategy, model=dict(SELF_SERVED, model="gemma-4-26b-a4b-it"))
    assert_clean_end(result)
    assert result.text.strip() == "Paris: 18 °C with light rain."
    assert "Summarise it" not in result.text and "channel" not in result.text
