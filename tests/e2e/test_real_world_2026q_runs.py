"""The sixteenth real-world pass's fixes through the real plugin, in both strategies: a DeepSeek
reply that writes a tool's output itself (Ollama's deepseek3 parser test) runs no tool and shows
its words without DeepSeek's tool-output tokens; a Kimi-K2 section end with no section open
(SGLang's kimik2 detector test) is not shown; and a Qwen3-Coder call whose parameters have no
``</parameter>`` (SGLang's Qwen3-Coder detector test) reaches the tool with each value as written,
not with the line break before the next tag."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, weather_tool

OUT, OUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_made_up_tool_output_runs_nothing_and_shows_no_tokens(run, strategy):
    text = f"Here's the weather: {OUT}Temperature: 22°C, Sunny{OUT_END} Hope that helps!"
    if strategy == "ReAct":
        text = f"Thought: done.\nFinal Answer: {text}"
    result = run([{"text": text, "split": 5}], query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Here's the weather: Temperature: 22°C, Sunny Hope that helps!"


def test_a_stray_kimi_section_end_is_not_shown(run):
    result = run([{"text": "It is sunny in Paris.<|tool_calls_section_end|>", "split": 4}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="function_calling")
    assert_clean_end(result)
    assert result.text == "It is sunny in Paris."


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_qwen3_coder_parameters_without_closing_tags_reach_the_tool_as_written(run, strategy):
    call = ("<function=get_weather>\n<parameter=city>Paris\n<parameter=unit>celsius\n<parameter=days>3\n"
            "</function>")
    tool = ScriptedTool(name="get_weather", description="Weather for a city",
                        parameters=[ToolParam("city", description="City"), ToolParam("unit", description="Unit"),
                                    ToolParam("days", description="Days")],
                        responses=[text_message("Sunny, 21 C")])
    result = run([{"text": call, "split": 7}, answer_turn(strategy, "Sunny in Paris.")],
                 query="Weather in Paris?", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris", "unit": "celsius", "days": "3"}]
    assert result.text == "Sunny in Paris."
