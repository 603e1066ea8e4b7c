"""Function Calling runs a ReAct step a model wrote as text instead of calling its native tools,
through the real plugin: the tool runs, the user reads the next round's answer alone (nothing of
the step, nor the Thought before it), the model gets its reply back intact with the call under a
made id and the tool's result answering that id. A sentence already streamed before the step
stays shown; a step the reply only shows (in a code block, then prose) is the answer."""

import json

import pytest

from tests.e2e.helpers import assert_clean, observations, weather_tool

STEP = 'Action: get_weather\nAction Input: {"city": "Paris"}'


def _assistant_and_tools(request: dict) -> tuple[dict, list[dict]]:
    messages = request["prompt_messages"]
    assistant = next(m for m in messages if m["role"] == "assistant")
    return assistant, [m for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize("split", [1, 7])
@pytest.mark.parametrize("reply", [
    "Thought: I need the weather.\n" + STEP,
    STEP,
    "### Thought\nI need the weather.\n### Action\nget_weather\n### Action Input\n{\"city\": \"Paris\"}",
    "Thought: I need the weather.\n" + STEP + "\nObservation: Rainy, 12 C\nThought: done.\nFinal Answer: Rainy.",
])
def test_the_step_runs_and_only_the_next_answer_is_shown(run, reply, split):
    turns = [{"text": reply, "split": split}, {"text": "It is sunny in Paris."}]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "It is sunny in Paris."
    second = result.llm_requests[1]
    assert observations(second) == ["Sunny, 21 C"]  # the real result, not the invented one
    assistant, tools = _assistant_and_tools(second)
    assert assistant["content"] == reply  # the reply goes back intact
    (call,) = assistant["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    assert [m["tool_call_id"] for m in tools] == [call["id"]]
    assert len(call["id"]) == 9 and call["id"].isalnum()


def test_the_sentence_before_the_step_stays_shown(run):
    turns = [{"text": "Let me check the weather.\n" + STEP, "split": 3}, {"text": "Sunny in Paris."}]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text.startswith("Let me check the weather.") and result.text.endswith("Sunny in Paris.")
    assert "Action" not in result.text and "get_weather" not in result.text


def test_two_steps_run_in_order_in_one_round(run):
    reply = (
        "Thought: both cities.\n" + STEP + '\nThought: and Rome.\nAction: get_weather\nAction Input: {"city": "Rome"}'
    )
    turns = [{"text": reply, "split": 7}, {"text": "Both sunny."}]
    result = run(turns, query="Paris and Rome?", tools=[weather_tool()], strategy="function_calling")
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}, {"city": "Rome"}]
    assert result.text == "Both sunny."
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize("reply", [
    "Steps look like this:\n```\n" + STEP + "\n```\nThe tool's result comes next.",
    'Action: get_forecast\nAction Input: {"city": "Paris"}',
])
def test_a_step_the_reply_only_shows_or_that_names_no_tool_is_the_answer(run, reply):
    result = run([{"text": reply, "split": 5}], query="How do steps look?", tools=[weather_tool()],
                 strategy="function_calling")
    assert_clean(result, run)
    assert result.tool_requests == []
    assert result.text == reply
