"""The thirty-first real-world pass's fix through the real plugin: Granite 3.3 8B's parallel calls
written as code, one a line, in the content (vllm-project/vllm#43116) run both tools in both
strategies instead of the two lines being shown as the answer; the same lines with a line of
prose run nothing and are the answer as written."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

LINES = 'get_weather(location="San Francisco", unit="celsius")\nsearch_web(query="vLLM release notes")'


def _tools() -> list[ScriptedTool]:
    return [
        ScriptedTool(name="get_weather", description="the weather of a place.",
                     parameters=[ToolParam("location", description="the place"), ToolParam("unit", description="the unit")],
                     responses=[text_message("14 °C, fog")]),
        ScriptedTool(name="search_web", description="search the web.",
                     parameters=[ToolParam("query", description="what to search for")],
                     responses=[text_message("vLLM 0.20.1 released")]),
    ]


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_calls_as_code_one_a_line_run(run, strategy):
    result = run([{"text": LINES, "split": 7}, answer_turn(strategy, "It is 14 °C and foggy; vLLM 0.20.1 is out.")],
                 query="Weather in San Francisco, and the vLLM news?", tools=_tools(), strategy=strategy)
    assert_clean_end(result)
    assert sorted((r["tool"], r["tool_parameters"]) for r in result.tool_requests) == [
        ("get_weather", {"location": "San Francisco", "unit": "celsius"}),
        ("search_web", {"query": "vLLM release notes"}),
    ]
    assert result.text.strip().endswith("vLLM 0.20.1 is out.")
    assert "get_weather(" not in result.text


def test_code_lines_after_prose_stay_the_answer(run):
    reply = "You could call:\n" + LINES
    result = run([{"text": reply, "split": 7}], query="How do I call these?", tools=_tools(), strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text.strip() == reply
