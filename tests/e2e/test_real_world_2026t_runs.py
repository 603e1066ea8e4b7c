"""The nineteenth real-world pass's fixes through the real plugin: PLaMo 3's reasoning (its own
tags, also with only the end the template left) and MiniMax-M3's template-opened reasoning are
kept out of the answer (vLLM's reasoning parser tests); a key written twice in a MiniMax-M3 object
value reaches the tool as both values (vLLM's ``minimax_m3`` tool parser test); and in ReAct a node
tool named ``Finish`` called inside the reasoning is called, not taken as the answer (vLLM's
``qwen3`` reasoning parser test)."""

import pytest

from tests.e2e.helpers import answer_turn, assert_clean_end, named_tool

REASONING = {
    "plamo3-tags": "<|plamo:begin_think:plamo|>The user greets me.<|plamo:end_think:plamo|>Hello there.",
    "plamo3-template-opened": "The user greets me.<|plamo:end_think:plamo|>Hello there.<|plamo:tag|>",
    "minimax-m3-template-opened": "The user greets me.</mm:think>Hello there.",
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("shape", sorted(REASONING))
def test_the_reasoning_stays_out_of_the_answer(run, strategy, shape):
    # served by the user's own server (a template that opened the block: Function Calling holds
    # the reply's start only for a self-served model)
    result = run([{"text": REASONING[shape], "split": 7}], query="Hi", tools=[named_tool("get_weather", "city")],
                 strategy=strategy, model={"provider": "langgenius/openai_api_compatible/openai_api_compatible"})
    assert_clean_end(result)
    assert result.text.strip() == "Hello there."
    assert not result.tool_requests


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_repeated_minimax_m3_element_reaches_the_tool_with_every_value(run, strategy):
    ns = "]<]minimax[>["
    text = (f'I will tag it.\n{ns}<tool_call>\n{ns}<invoke name="tag_it">{ns}<labels>{ns}<tag>a{ns}</tag>'
            f"{ns}<tag>b{ns}</tag>{ns}</labels>{ns}</invoke>\n{ns}</tool_call>")
    result = run([{"text": text, "split": 7}, answer_turn(strategy, "Tagged.")],
                 query="Tag it.", tools=[named_tool("tag_it", "labels")], strategy=strategy)
    assert_clean_end(result)
    # a string parameter: the object goes as its JSON, both values in it
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"labels": '{"tag": ["a", "b"]}'}]
    assert result.text.endswith("Tagged.")
    assert "minimax" not in result.text


def test_react_calls_a_node_tool_named_finish_written_in_the_reasoning(run):
    text = ("<think>The sum is 204, I submit it.\n<tool_call>\n<function=Finish>\n<parameter=answer>\n204\n"
            "</parameter>\n</function>\n</tool_call>\n</think>")
    result = run([{"text": text, "split": 7}, answer_turn("ReAct", "Submitted 204.")],
                 query="Submit the sum.", tools=[named_tool("Finish", "answer")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"answer": "204"}]
    assert result.text.strip().endswith("Submitted 204.")
