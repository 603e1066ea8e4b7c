"""Through the real plugin: an answer that shows a reasoning block in a code span or a fenced block
(`` `<think>plan</think>` ``) reaches the user whole, in both strategies, sent whole and in 1- and
7-character chunks, alone or after a real reasoning block (which stays out). Before, the user saw
an empty code span."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

WEATHER = ScriptedTool(name="get_weather", description="get_weather tool",
                       parameters=[ToolParam("city", description="city")], responses=[text_message("done")])

ANSWERS = {
    "think-span": "The model wraps its reasoning in `<think>plan</think>` before answering.",
    "seed-span": "Seed-OSS writes `<seed:think>x</seed:think>` and `<seed:cot_budget_reflect>45/100</seed:cot_budget_reflect>`.",
    "plamo-span": "PLaMo 3: `<|plamo:begin_think:plamo|>idea<|plamo:end_think:plamo|>`.",
    "fenced": "A template:\n```\n<ifm|think>plan</ifm|think>\n<|think:start|>x<|think:end|>\n```\nThat is all.",
}


@pytest.mark.parametrize("lead", ["", "<think>they ask about tags</think>"], ids=["alone", "after-reasoning"])
@pytest.mark.parametrize("split", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_quoted_reasoning_block_reaches_the_user(run, name, strategy, split, lead):
    turn = answer_turn(strategy, ANSWERS[name])
    turn["text"] = lead + turn["text"]
    if split:
        turn["split"] = split
    result = run([turn], query="How do models mark reasoning?", tools=[WEATHER], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == ANSWERS[name]
    assert "they ask" not in result.text
