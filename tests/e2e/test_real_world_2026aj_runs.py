"""The thirty-fifth real-world pass through the real plugin. ReAct replies that agent frameworks
read wrong: an action as a fenced JSON blob followed by an Observation and a Final Answer the
model made up (huggingface/agents-course#412) runs the action and never shows the made-up
weather; an Action Input with Python's ``True`` (lamalab-org/corral#144) runs with the boolean;
an Action Input with ``#`` and ``//`` comments (FoundationAgents/MetaGPT PR #799) and one with a
line of prose after it (run-llama/llama_index#7074; its empty ``working_file`` filled in, the
node's tool requiring it) run with their fields (both were refused as
unreadable); a ``Tool call`` label line above a call written as code (Mistral through LiteLLM,
openai/openai-agents-python#1196) runs in both strategies (both had shown it as the answer); a
reply the output limit cut at ``<tool_call`` (vllm-project/vllm#55395's shape) is asked again in
both, the fragment never shown (both had shown it as the answer)."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, named_tool, weather_tool


def test_a_fenced_json_action_then_a_made_up_observation_runs_the_action_only(run):
    reply = ("Thought: To answer the question, I need to get the current weather in London.\nAction:\n```\n"
             '{\n  "action": "get_weather",\n  "action_input": {"city": "London"}\n}\n```\n'
             "Observation: The current weather in London is partly cloudy with a temperature of 12°C.\n"
             "Thought: I now know the final answer.\n"
             "Final Answer: The current weather in London is partly cloudy with a temperature of 12°C.")
    result = run([{"text": reply, "split": 7}, answer_turn("ReAct", "London: sunny, 21 C.")],
                 query="Weather in London?", tools=[weather_tool()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "London"}]
    assert "partly cloudy" not in result.text
    assert result.text.strip().endswith("London: sunny, 21 C.")


def test_an_action_input_with_python_true_runs_with_the_boolean(run):
    reply = ("Thought: I will prepare the dataset.\n\nAction: prepare_tabular_dataset\n"
             'Action Input: {\n    "output_path": "fe2o3_dataset",\n    "normalize": True\n}')
    result = run([{"text": reply, "split": 7}, answer_turn("ReAct", "The dataset is ready.")],
                 query="Prepare the dataset.", tools=[named_tool("prepare_tabular_dataset", "output_path", "normalize")],
                 strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"output_path": "fe2o3_dataset", "normalize": True}]
    assert result.text.strip().endswith("The dataset is ready.")


def test_an_action_input_with_comments_runs_with_its_fields(run):
    reply = ('Thought: I need the weather.\nAction: get_weather\nAction Input: {\n  "city": "Beijing", # the user\'s city\n'
             '  "unit": "celsius" // metric\n}')
    result = run([{"text": reply, "split": 7}, answer_turn("ReAct", "Beijing: sunny, 21 C.")],
                 query="Weather in Beijing?", tools=[named_tool("get_weather", "city", "unit")], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Beijing", "unit": "celsius"}]
    assert "user's city" not in result.text


def test_an_action_input_with_a_line_of_prose_after_it_runs_with_its_fields(run):
    reply = ("Thought: I will use the code_writer tool to write the initial code.\nAction: code_writer\nAction Input: {\n"
             '  "working_file": "main.py",\n  "instructions": "do stuff",\n'
             '  "context": "some context {"key": "maybe there\'s a nested json here"}"\n}\n'
             "let's add some garbage in here too.\n")
    result = run([{"text": reply, "split": 7}, answer_turn("ReAct", "The code is written.")],
                 query="Write the code.", tools=[named_tool("code_writer", "working_file", "instructions", "context")],
                 strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{
        "working_file": "main.py", "instructions": "do stuff",
        "context": 'some context {"key": "maybe there\'s a nested json here"}'}]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_call_label_above_a_call_written_as_code_runs_it(run, strategy):
    reply = 'Tool call\n\ncall_rag_server({"category": "domestic", "query": "dogs", "k": "3"})'
    result = run([{"text": reply, "split": 7}, answer_turn(strategy, "Dogs are domestic animals.")],
                 query="Tell me about dogs.", tools=[named_tool("call_rag_server", "category", "query", "k")],
                 strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"category": "domestic", "query": "dogs", "k": "3"}]
    assert "call_rag_server(" not in result.text and "Tool call" not in result.text
    assert result.text.strip().endswith("Dogs are domestic animals.")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_the_output_limit_cut_at_a_call_opener_is_asked_again(run, strategy):
    result = run([{"text": "Let me check.\n<tool_call", "split": 7, "finish_reason": "length"},
                  answer_turn(strategy, "Paris: sunny, 21 C.")],
                 query="Weather in Paris?", tools=[weather_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert "<tool" not in result.text
    assert result.text.strip().endswith("Paris: sunny, 21 C.")
    assert len(run.backend.requests) == 2
