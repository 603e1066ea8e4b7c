"""The twenty-eighth real-world pass's fixes through the real plugin: Inkling's call message
(SGLang's ``inkling`` detector) runs its tool with the payload's ``args`` (before, the whole
``{"name", "args"}`` payload went to the tool as its arguments), a header naming another tool than
the payload runs nothing and shows nothing; HyperCLOVAX-SEED-Think-14B's ``-> tool/function_call``
list (vLLM's ``hyperclovax_seed_think_14b`` parser) runs in Function Calling instead of being
shown as the answer."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end

INK_JSON, INK_END = "<|content_invoke_tool_json|>", "<|end_message|>"
INKLING_CALL = 'get_weather' + INK_JSON + '{"name":"get_weather","args":{"city":"Paris"}}' + INK_END
MISMATCH = "<|message_model|>search" + INK_JSON + '{"name":"get_weather","args":{"city":"Paris"}}' + INK_END
HCX_CALL = ' -> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Seoul"}}]<|im_end|>'


def _weather() -> ScriptedTool:
    return ScriptedTool(name="get_weather", description="the weather in a city.",
                        parameters=[ToolParam("city", description="the city")], responses=[text_message("sunny")])


def _search() -> ScriptedTool:
    return ScriptedTool(name="search", description="search the web.",
                        parameters=[ToolParam("query", description="what to look for")], responses=[text_message("news")])


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_an_inkling_call_runs_with_its_args(run, strategy):
    result = run([{"text": INKLING_CALL, "split": 7}, answer_turn(strategy, "It is sunny in Paris.")],
                 query="Weather in Paris?", tools=[_weather(), _search()], strategy=strategy)
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert result.text.strip().endswith("It is sunny in Paris.")
    assert "content_invoke" not in result.text and '"args"' not in result.text


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_an_inkling_header_naming_another_tool_runs_nothing(run, strategy):
    result = run([{"text": MISMATCH, "split": 7}, {"text": INKLING_CALL, "split": 7},
                  answer_turn(strategy, "It is sunny in Paris.")],
                 query="Weather in Paris?", tools=[_weather(), _search()], strategy=strategy)
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert "content_invoke" not in result.text and "message_model" not in result.text


def test_a_hyperclovax_tool_message_runs_in_function_calling(run):
    result = run([{"text": HCX_CALL, "split": 7}, answer_turn("function_calling", "It is sunny in Seoul.")],
                 query="Weather in Seoul?", tools=[_weather()], strategy="function_calling")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Seoul"}]
    assert result.text.strip().endswith("It is sunny in Seoul.")
    assert "tool/function_call" not in result.text
