"""A special token written as text inside a call's value reaches the tool intact, through the
real plugin in both strategies: a user asks what ``<|im_end|>`` means."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

QUERY = "what does <|im_end|> mean"


def _search() -> ScriptedTool:
    return ScriptedTool(name="search", description="Web search", parameters=[ToolParam("query", description="query")],
                        responses=[text_message("It ends a ChatML message.")])


def test_native_call_arguments_keep_the_token(run):
    call = {"id": "c1", "name": "search", "arguments": '{"query": "' + QUERY + '"}<|eot_id|>'}
    result = run([{"tool_calls": [call]}, answer_turn("function_calling", "It ends a message.")],
                 query="What does <|im_end|> mean?", tools=[_search()], strategy="function_calling")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"query": QUERY}]


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_call_written_as_text_keeps_the_token(run, strategy):
    reply = '<tool_call>{"name": "search", "arguments": {"query": "' + QUERY + '"}}</tool_call><|im_end|>'
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "It ends a message.")],
                 query="What does <|im_end|> mean?", tools=[_search()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"query": QUERY}]
    assert result.text.strip().endswith("It ends a message.")


@pytest.mark.parametrize("split", [1, 7])
def test_react_action_input_keeps_the_token(run, split):
    reply = 'Thought: look it up\nAction: search\nAction Input: {"query": "' + QUERY + '"}<|eot_id|>'
    result = run([{"text": reply, "split": split}, answer_turn("ReAct", "It ends a message.")],
                 query="What does <|im_end|> mean?", tools=[_search()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"query": QUERY}]


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_a_leaked_turn_end_still_ends_the_answer(run, strategy):
    text = "Paris.<|im_end|>\n<|im_start|>user\nAnd Rome?"
    reply = f"Thought: done\nFinal Answer: {text}" if strategy == "ReAct" else text
    result = run([{"text": reply, "split": 7}], query="Capital of France?", tools=[_search()], strategy=strategy)
    assert_clean_end(result)
    assert result.text.strip() == "Paris."
