"""The twenty-sixth real-world pass's fix through the real plugin: the end-of-message tokens the
model makers' own documentation shows, Hy3's ``<｜hy_eos｜>`` (its chat template) and MiniMax-M2's
``[e~[`` (its tool-calling guide), end the reply when a server keeps special tokens: the user sees
the answer without them and without the turn the model went on to invent after them, and a call
before them still runs."""

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool


def _tool(name: str, *params: str) -> ScriptedTool:
    return named_tool(name, *params, outputs=("18 degrees",))


ENDS = {
    "hy3": ("<｜hy_eos｜>", "<｜hy_User｜>Thanks! And tomorrow?"),
    "minimax-m2": ("[e~[", "\n]~b]user\nThanks! And tomorrow?"),
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("family", sorted(ENDS))
def test_the_end_token_and_an_invented_turn_after_it_are_not_shown(run, strategy, family):
    end, invented = ENDS[family]
    reply = "It is 18 °C in Beijing." if strategy == "function_calling" else "Final Answer: It is 18 °C in Beijing."
    result = run([{"text": reply + end + invented, "split": 7}], query="Weather in Beijing?",
                 tools=[_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "It is 18 °C in Beijing."
    assert "tomorrow" not in result.text


CALLS = {
    "hy3": "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
           "</tool_call>\n</tool_calls><｜hy_eos｜>",
    "minimax-m2": '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Beijing</parameter>\n'
                  "</invoke>\n</minimax:tool_call>[e~[",
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("family", sorted(CALLS))
def test_a_call_before_the_end_token_runs_then_the_answer_is_clean(run, strategy, family):
    end = ENDS[family][0]
    result = run([{"text": CALLS[family], "split": 7}, answer_turn(strategy, "It is 18 °C in Beijing.")],
                 query="Weather in Beijing?", tools=[_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Beijing"}]
    assert result.text.strip().endswith("It is 18 °C in Beijing.")
    assert end not in result.text and "tool_call" not in result.text
