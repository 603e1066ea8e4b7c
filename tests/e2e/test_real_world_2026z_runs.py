"""The twenty-fifth real-world pass's fix through the real plugin: LangChain's conversational answer
step written with its ``Thought:`` label left out (``Do I need to use a tool? No`` then ``AI: ...``,
as gpt-4-0613 wrote it in langchaingo's recorded ``TestConversationalWithMemory``) shows the user the
answer alone, not the format's lines."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean_end

ANSWER = ("Hi Bob! It's nice to meet you. Based on the year you were born, you would be around 34 or 35 years old "
          "now, depending on your birthday. How can I assist you today?")


def _calculator() -> ScriptedTool:
    return ScriptedTool(name="calculator", description="calculator tool",
                        parameters=[ToolParam("expression", description="a math expression")],
                        responses=[text_message("2026")])


@pytest.mark.parametrize("split", [1, 7])
def test_the_unlabelled_conversational_answer_shows_the_answer_alone(run, split):
    reply = "Do I need to use a tool? No\nAI: " + ANSWER
    result = run([{"text": reply, "split": split}], query="Hi! my name is Bob and the year I was born is 1987",
                 tools=[_calculator()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text.strip() == ANSWER
    assert result.tool_requests == []


def test_a_step_then_the_unlabelled_conversational_answer(run):
    turns = [
        {"text": "Do I need to use a tool? Yes\nAction: calculator\nAction Input: 1987 + 39", "split": 7},
        {"text": "Do I need to use a tool? No\nAI: It is 2026.", "split": 7},
    ]
    result = run(turns, query="What year is 39 years after 1987?", tools=[_calculator()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"expression": "1987 + 39"}]
    assert result.text.strip() == "It is 2026."
