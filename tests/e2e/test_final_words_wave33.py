"""Two Function Calling readings through the real plugin:

1. a reply whose answer is the words ``Final answer`` (vLLM's Seed-OSS and Solar Open 2 reasoning
   parser tests end so) is shown, in both strategies, in one model call; before, Function
   Calling took the words for an empty ``Final Answer`` label and asked again. A label with its
   colon left empty is still asked again.
2. a ReAct step written as text that names a node tool but whose ``Action Input`` does not read
   is asked again with the unreadable-call message, the step never shown, and the tool runs on
   the next try; before, the user read the step as the answer. A step naming no tool stays the
   answer as written.
"""

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, assert_clean, observations, weather_tool

SELF_SERVED = {"provider": "langgenius/openai_api_compatible/openai_api_compatible"}


def _forecast_tool() -> ScriptedTool:
    """``get_forecast(city, unit)``: a tool with two parameters (a text input names neither)."""
    return ScriptedTool(name="get_forecast", description="Forecast for a city",
                        parameters=[ToolParam("city", description="City"), ToolParam("unit", description="C or F")],
                        responses=[text_message("Sunny, 21 C")])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("split", [1, 7])
@pytest.mark.parametrize("reply", ["Final answer", "Step 1: analyze\nStep 2: solve\nFinal answer"])
def test_an_answer_that_is_the_words_final_answer_is_shown(run, strategy, split, reply):
    text = reply if strategy == "function_calling" else f"Thought: done.\nFinal Answer: {reply}"
    result = run([{"text": text, "split": split}], query="What is the last line?", tools=[weather_tool()],
                 strategy=strategy)
    assert_clean(result, run)
    assert result.text.strip() == reply
    assert len(result.llm_requests) == 1  # not asked again


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_seed_oss_reasoning_then_the_words_shows_the_words_alone(run, strategy):
    # vLLM's Seed-OSS test: the template opened the block, only its end in the reply
    result = run([{"text": "Some reasoning content</seed:think>Final answer", "split": 7}], query="Hi",
                 tools=[weather_tool()], strategy=strategy, model=SELF_SERVED)
    assert_clean(result, run)
    assert result.text.strip() == "Final answer"
    assert len(result.llm_requests) == 1


def test_an_empty_label_with_its_colon_is_still_asked_again(run):
    turns = [{"text": "Final Answer:", "split": 1}, {"text": "Paris."}]
    result = run(turns, query="Capital of France?", tools=[weather_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert len(result.llm_requests) == 2
    assert result.text == "Paris."


BROKEN = {
    "json-that-does-not-decode": ('Thought: I need the forecast.\nAction: get_forecast\n'
                                  'Action Input: {"city": "Paris", "unit": 9 / 5 + 32}'),
    "json-never-closed": 'Action: get_forecast\nAction Input: {"city": "Paris", "unit": "C"',
    "text-for-two-parameters": "Action: get_forecast\nAction Input: Paris in C",
}
FIXED = 'Action: get_forecast\nAction Input: {"city": "Paris", "unit": "C"}'


@pytest.mark.parametrize("split", [1, 7])
@pytest.mark.parametrize("shape", sorted(BROKEN))
def test_a_step_whose_input_does_not_read_is_asked_again_then_runs(run, shape, split):
    turns = [{"text": BROKEN[shape], "split": split}, {"text": FIXED, "split": split}, {"text": "Sunny in Paris."}]
    result = run(turns, query="Forecast for Paris?", tools=[_forecast_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris", "unit": "C"}]
    assert result.text == "Sunny in Paris."  # nothing of the broken step, nor of the fixed one
    retry = result.llm_requests[1]["prompt_messages"]
    assert retry[-1]["content"] == prompts.TOOL_CALL_UNREADABLE
    assert observations(result.llm_requests[2]) == ["Sunny, 21 C"]


def test_prose_before_a_broken_step_is_shown_once(run):
    turns = [{"text": "Let me check.\n" + BROKEN["text-for-two-parameters"], "split": 3},
             {"text": FIXED}, {"text": "Sunny in Paris."}]
    result = run(turns, query="Forecast for Paris?", tools=[_forecast_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert result.text.count("Let me check.") == 1 and result.text.endswith("Sunny in Paris.")
    assert "Action" not in result.text and "get_forecast" not in result.text


def test_a_broken_step_naming_no_tool_is_the_answer(run):
    reply = "Action: call the supplier\nAction Input: ask for the price in C"
    result = run([{"text": reply, "split": 5}], query="What next?", tools=[_forecast_tool()],
                 strategy="function_calling")
    assert_clean(result, run)
    assert result.tool_requests == []
    assert result.text == reply
    assert len(result.llm_requests) == 1

