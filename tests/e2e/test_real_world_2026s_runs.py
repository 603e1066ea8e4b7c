"""The eighteenth real-world pass's fixes through the real plugin, in both strategies: a call in
K2 Horizon's ``<ifm|tool_calls>``, PLaMo 3's request tags and iQuest Coder V2's
``<iquestcoder_tool_call>`` (vLLM's parser tests) reaches the tool with its arguments and the
user sees none of the markup; an indented code body in an ``<arg_value>`` (vLLM's Poolside v1
test) reaches the tool as written; and in ReAct a node tool named ``final_answer`` (vLLM's Hermes
test) is called, not taken as the answer."""

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool
from tests.e2e.test_real_world_2026r_runs import check_family_call


def _tool(name: str, *params: str) -> ScriptedTool:
    return named_tool(name, *params, outputs=("Sunny, 21 C", "Cloudy, 12 C"))


_PLAMO = ("<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
          "get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
          '<|plamo:msg|>{"city": "Tokyo"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>'
          "<|plamo:end_tool_requests:plamo|><|plamo:tag|>")
REPLIES = {
    "k2-horizon": ("Before <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key>"
                   "<ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls> after.", [{"city": "Paris"}]),
    "plamo3": ("Checking the weather." + _PLAMO, [{"city": "Tokyo"}]),
    "iquest-coder-v2": ("Let me look that up for you.\n<iquestcoder_tool_call>get_weather<arg_key>city</arg_key>"
                        "<arg_value>Dallas</arg_value></iquestcoder_tool_call>", [{"city": "Dallas"}]),
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("family", sorted(REPLIES))
def test_a_new_familys_call_reaches_the_tool_and_its_markup_is_not_shown(run, strategy, family):
    text, expected = REPLIES[family]
    check_family_call(run, strategy, text, expected, ("ifm|", "plamo", "iquest", "<arg_"))


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_an_indented_code_body_reaches_the_write_tool_as_written(run, strategy):
    body = "    def f():\n        return 1\n"
    text = f"<tool_call>write_file\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>"
    result = run([{"text": text, "split": 7}, answer_turn(strategy, "Written.")],
                 query="Write it.", tools=[_tool("write_file", "content")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"content": body}]
    assert result.text.endswith("Written.")


def test_react_calls_a_node_tool_named_final_answer(run):
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": "yes"}}\n</tool_call>'
    result = run([{"text": text, "split": 7}, answer_turn("ReAct", "Submitted.")],
                 query="Submit.", tools=[_tool("final_answer", "trigger")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"trigger": "yes"}]
    assert result.text.endswith("Submitted.")
    assert "trigger" not in result.text
