"""Step labels the label readers used to miss, through the real plugin: a heading label after an
emoji (``### 💭 Thought``), ``📥 Input:`` under the action and ``❓ Question:`` after an answer, a
closing fence as the reply's last characters, Function Calling's ``🔧 Action:`` call and empty
``✅ Final Answer:`` label, and ``Answer:`` after a ``Thought:`` in Function Calling. The tool runs
with the arguments the model wrote, and the user reads the answer alone."""

import pytest

from tests.e2e.helpers import assert_clean_end, weather_tool


@pytest.mark.parametrize("split", [1, 7])
def test_heading_labels_after_an_emoji_run_the_action_and_show_the_answer_alone(run, split):
    step = '### 💭 Thought\nI need the weather.\n### 🔧 Action\nget_weather\n### 📥 Action Input\n{"city": "Paris"}'
    answer = "### 💭 Thought\nI know it now.\n### ✅ Final Answer\nSunny in Paris, 21 C."
    result = run([{"text": step, "split": split}, {"text": answer, "split": split}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris, 21 C."


@pytest.mark.parametrize("split", [1, 7])
def test_an_emoji_input_label_gives_the_tool_its_arguments(run, split):
    # before, the tool was called with no arguments at all
    step = 'Thought: I need the weather.\nAction: get_weather\n📥 Input: {"city": "Oslo"}'
    answer = "Thought: done.\nFinal Answer: Cold in Oslo.\n❓ Question: and in Bergen?\nThought: look it up."
    result = run([{"text": step, "split": split}, {"text": answer, "split": split}],
                 query="Weather in Oslo?", tools=[weather_tool("Cold, -3 C")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Oslo"}]
    assert result.text == "Cold in Oslo."


def test_an_action_input_in_a_block_the_reply_ends_with_has_no_fence(run):
    step = "Thought: I will look it up.\n```\nAction: get_weather\nAction Input: Paris\n```"
    answer = "Thought: done.\nFinal Answer: Sunny in Paris."
    result = run([{"text": step, "split": 3}, {"text": answer, "split": 3}],
                 query="Weather in Paris?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert result.text == "Sunny in Paris."


@pytest.mark.parametrize("split", [1, 7])
def test_function_calling_runs_an_emoji_labelled_action_call_written_after_a_sentence(run, split):
    step = 'I will check the weather.\n🔧 Action: {"action": "get_weather", "action_input": {"city": "Rome"}}'
    result = run([{"text": step, "split": split}, {"text": "Sunny in Rome.", "split": split}],
                 query="Weather in Rome?", tools=[weather_tool()], strategy="function_calling")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Rome"}]
    assert "Action" not in result.text and "{" not in result.text
    assert result.text.endswith("Sunny in Rome.")


@pytest.mark.parametrize("split", [1, 7])
def test_function_calling_drops_an_empty_emoji_final_answer_label_the_reply_ends_with(run, split):
    reply = "Paris is the capital of France.\n✅ Final Answer:"
    result = run([{"text": reply, "split": split}], query="Capital of France?", tools=[weather_tool()],
                 strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."  # the empty label and the line break before it are held


@pytest.mark.parametrize("reply", [
    "Thought: no tool is needed.\nAnswer: Paris is the capital of France.",
    "💭 Thought: no tool is needed.\n✅ Answer: Paris is the capital of France.",
])
def test_function_calling_shows_the_answer_of_a_thought_and_answer_step_alone(run, reply):
    result = run([{"text": reply, "split": 5}], query="Capital of France?", tools=[weather_tool()],
                 strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."
