"""The twenty-first real-world pass's fixes through the real plugin: K2 V3's call written with no
``<ifm|tool_calls>`` group runs (SGLang's ``k2_v3`` detector tests), a MiniMax-M2 value that quotes
``</parameter>`` reaches the tool whole (SGLang's MiniMax-M2 detector test), and Seed-OSS's
``<seed:cot_budget_reflect>`` note stays out of the answer (llama.cpp's Seed-OSS parser test)."""

import pytest

from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool

IFM_CALLS = {
    "xml": "<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value>"
           "</ifm|tool_call>",
    "think-fast-then-xml": "<ifm|think_fast>need lookup</ifm|think_fast><ifm|tool_call>get_weather<ifm|arg_key>city"
                           "</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value></ifm|tool_call>",
    "json": '<ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</ifm|tool_call>',
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("shape", sorted(IFM_CALLS))
def test_a_bare_ifm_call_runs(run, strategy, shape):
    result = run([{"text": IFM_CALLS[shape], "split": 7}, answer_turn(strategy, "Sunny in Tokyo.")],
                 query="Weather in Tokyo?", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Tokyo"}]
    assert result.text.strip().endswith("Sunny in Tokyo.")
    assert "ifm|" not in result.text and "need lookup" not in result.text


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_minimax_value_quoting_its_closing_tag_reaches_the_tool_whole(run, strategy):
    call = ('<minimax:tool_call><invoke name="write_note"><parameter name="content">This text contains '
            "</parameter> in it</parameter></invoke></minimax:tool_call>")
    result = run([{"text": call, "split": 7}, answer_turn(strategy, "Saved.")],
                 query="Save the note.", tools=[named_tool("write_note", "content")], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [
        {"content": "This text contains </parameter> in it"}]
    assert result.text.strip().endswith("Saved.")


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_the_seed_budget_note_stays_out_of_the_answer(run, strategy):
    reply = ("<seed:think>Token usage: 45/1000\nI should continue.</seed:think><seed:cot_budget_reflect>Token usage: "
             "45/1000\nI should continue thinking to find the best solution.</seed:cot_budget_reflect>")
    reply += "Hello there." if strategy == "function_calling" else "Final Answer: Hello there."
    result = run([{"text": reply, "split": 7}], query="Hi", tools=[named_tool("get_weather", "city")], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Hello there."
    assert "Token usage" not in result.text and "seed:" not in result.text
