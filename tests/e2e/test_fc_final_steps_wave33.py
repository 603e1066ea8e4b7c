"""Function Calling reads a ReAct-style final step as ReAct does, through the real plugin: heading
labels without a colon (``### Thought`` / ``### Final Answer``), a bulleted empty label
(``- ✅ Final Answer:``), a step written on after the answer (the answer alone; the step in the
Thought node, never run), and an empty label's line breaks (the user's text does not end in one)."""

import pytest

from tests.e2e.helpers import STRATEGIES, assert_clean_end, weather_tool

STEP_AFTER = 'Action: get_weather\nAction Input: {"city": "Paris"}'


def _thought_nodes(result):
    return [node for node in result.logs.values() if node.label.endswith(" Thought")]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("split", [1, 7])
@pytest.mark.parametrize("reply", [
    "### Thought\nNo tool is needed.\n### Final Answer\nParis is the capital of France.",
    "### 💭 Thought\nNo tool is needed.\n### ✅ Final Answer\nParis is the capital of France.",
    "**Thought**\nNo tool is needed.\n**Final Answer**\nParis is the capital of France.",
])
def test_heading_labels_without_a_colon_show_the_answer_alone(run, strategy, split, reply):
    result = run([{"text": reply, "split": split}], query="Capital of France?", tools=[weather_tool()],
                 strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."


@pytest.mark.parametrize("split", [1, 7])
def test_function_calling_drops_a_bulleted_empty_label_and_the_line_break_before_it(run, split):
    reply = "Paris is the capital of France.\n\n- ✅ Final Answer:\n"
    result = run([{"text": reply, "split": split}], query="Capital of France?", tools=[weather_tool()],
                 strategy="function_calling")
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "Paris is the capital of France."  # no label, no line break at its end


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_bulleted_empty_label_after_a_thought_is_asked_again(run, strategy):
    turns = [{"text": "Thought: I know the answer.\n- ✅ Final Answer:", "split": 5},
             {"text": "Thought: done.\nFinal Answer: Paris." if strategy == "ReAct" else "Paris."}]
    result = run(turns, query="Capital of France?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert len(result.llm_requests) == 2  # the empty label was no answer
    assert result.text == "Paris."


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("label", ["Answer", "Final Answer"])
def test_a_step_written_after_the_answer_is_logged_not_run(run, strategy, label):
    reply = f"Thought: no tool is needed.\n{label}: Paris is the capital.\n{STEP_AFTER}\nObservation: sunny"
    result = run([{"text": reply, "split": 7}], query="Capital of France?", tools=[weather_tool()],
                 strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Paris is the capital."
    assert result.tool_requests == []
    (thought,) = _thought_nodes(result)
    assert thought.data["calls_not_run_after_answer"] == "1: get_weather"
    assert thought.data["not_read_after_answer"] == f"{STEP_AFTER}\nObservation: sunny"


def test_prose_before_a_native_call_and_the_answer_do_not_run_together(run):
    # the prose's last line break waits for the next text; the next round's answer still starts a paragraph
    turns = [{"text": "Let me check the weather.\n", "tool_calls": [{"id": "c1", "name": "get_weather",
                                                                   "arguments": {"city": "Paris"}}]},
             {"text": "Sunny, 21 C."}]
    result = run(turns, query="Weather in Paris?", tools=[weather_tool()], strategy="function_calling")
    assert_clean_end(result)
    assert result.text == "Let me check the weather.\n\nSunny, 21 C."
