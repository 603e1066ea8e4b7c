"""The seventeenth real-world pass's fixes through the real plugin, in both strategies: a call in
GigaChat 3.5's GCML markup, in Solar Open 2's tokens (after its reasoning tokens) and in MiniCPM5's
``<param>`` XML (vLLM's parser tests), and two Gemma 4 calls in one block (mlx-lm's parser test),
each reach the tool with their arguments, and the user sees none of the markup nor the reasoning."""

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool


def _tool(name: str, *params: str) -> ScriptedTool:
    return named_tool(name, *params, outputs=("Sunny, 21 C", "Cloudy, 12 C"))


REPLIES = {
    "gigachat35": ('I will check.<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city" '
                   'string="true">Tokyo</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>', [{"city": "Tokyo"}]),
    "solar-open2": ("<|think:start|>I should use a tool<|think:end|>Sure, let me help.<|tool_call:start|>get_weather\n"
                    "<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n<|tool_call:end|>",
                    [{"city": "Seoul"}]),
    "minicpm5": ('Intro before.\n<function name="get_weather"><param name="city">上海</param></function>\n',
                 [{"city": "上海"}]),
    "gemma4-two-calls": ('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}call:get_weather{city:<|"|>Oslo<|"|>}'
                         "<tool_call|>", [{"city": "Paris"}, {"city": "Oslo"}]),
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("family", sorted(REPLIES))
def test_a_new_familys_call_reaches_the_tool_and_its_markup_is_not_shown(run, strategy, family):
    text, expected = REPLIES[family]
    check_family_call(run, strategy, text, expected, ("GCML", "<|", "<param", "I should use a tool"))


def check_family_call(run, strategy: str, text: str, expected: list[dict], leaked: tuple[str, ...]) -> None:
    """A reply of ``text`` (a family's call markup, streamed 7 characters a chunk) calls
    ``get_weather`` with each of ``expected`` in turn, then the model answers: the user reads the
    answer and none of ``leaked`` (the markup's pieces)."""
    result = run([{"text": text, "split": 7}, answer_turn(strategy, "Sunny there.")],
                 query="Weather?", tools=[_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == expected
    assert result.text.endswith("Sunny there.")
    for piece in leaked:
        assert piece not in result.text
