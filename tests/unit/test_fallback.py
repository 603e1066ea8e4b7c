"""The loop's choice of an unlabelled last reply as the answer (``agent_core.fallback``)."""

import pytest

from agent_core import prompts
from agent_core.fallback import unlabelled_answer
from agent_core.turn import ModelTurn, ParseFailure
from agent_core.usage import empty_usage

TOOLS = ["get_weather", "search"]


def thought_only(thought: str) -> ModelTurn:
    return ModelTurn(thought=thought, decision=ParseFailure(prompts.PROBLEM_THOUGHT_ONLY), usage=empty_usage())


@pytest.mark.parametrize(
    "thought",
    [
        "Paris is sunny and 21 C.",
        "I searched the archive: the museum opens at 9.",  # "searched" is no tool's name
        "The research says 42.",
        "The get_weather_v2 note: Paris is sunny.",  # another name that merely begins with one
        '{"city": "Paris", "temp": 21}',  # a JSON answer, no call envelope
        "Final Answer: Paris is sunny.",  # the label, then the answer
        "The final answer is 42.",
    ],
)
def test_a_thought_that_answers_is_the_answer(thought):
    assert unlabelled_answer(thought_only(thought), TOOLS) == thought


@pytest.mark.parametrize(
    "thought",
    [
        "I need to call get_weather again for Rome.",
        "Let me search for it.",
        "I now know the final answer.",
        "I know the final answer",
        "**Final Answer**",
        "I will answer.\nFinal Answer:",
        "The weather:\n**Final Answer:** ",
        'I will call <tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
        '{"action": "get_time", "action_input": {}}',
        "",
    ],
)
def test_a_thought_on_its_way_to_a_tool_result_is_no_answer(thought):
    assert unlabelled_answer(thought_only(thought), TOOLS) == ""


def test_reasoning_left_as_the_fallback_is_judged_the_same_way():
    turn = ModelTurn(thought="", decision=ParseFailure(prompts.ONLY_REASONING_REPLY, "I should call get_weather."), usage=empty_usage())
    assert unlabelled_answer(turn, TOOLS) == ""
    turn = ModelTurn(thought="", decision=ParseFailure(prompts.ONLY_REASONING_REPLY, "Sunny in Paris."), usage=empty_usage())
    assert unlabelled_answer(turn, TOOLS) == "Sunny in Paris."


def test_markup_an_answer_shows_in_quoted_text_is_the_answer_at_a_limit():
    """Function Calling gives an unreadable reply a fallback only when all its markup is quoted
    (a tutorial): it names tools and holds markup, and is still the answer; its start is kept when
    it continues text the reply streamed."""
    shown = '  ```xml\n<tool_call>\n{"name": "search", "arguments": {}}\n</tool_call>\n```\n'
    turn = ModelTurn(thought="", decision=ParseFailure(prompts.TOOL_CALL_UNREADABLE, shown, continues=True), usage=empty_usage())
    assert unlabelled_answer(turn, TOOLS) == shown.rstrip()
    broken = ModelTurn(thought="", decision=ParseFailure(prompts.TOOL_CALL_UNREADABLE), usage=empty_usage())
    assert unlabelled_answer(broken, TOOLS) == ""
