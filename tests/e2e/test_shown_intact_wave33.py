"""Through the real plugin process: answers that show call markup the readers used to take for
calls (or for a step cut short) reach the user whole, in one round, and run nothing. A tool's
declaration, JSON rows that name a tool, a dataset whose strings hold ``<tool_call>`` blocks, a log
of CrewAI's steps and a ReAct prompt template in a code block; and in ReAct a step an answer shows
in a code block takes its input from that block only, so a genuine action after it still runs
with its own input."""

import pytest

from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations, weather_tool

DECLARATION = '''Declare the tool like this:

```json
{
  "name": "get_weather",
  "description": "Weather for a city",
  "parameters": {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"]
  }
}
```'''

ROWS = '''Here is how often each tool ran, as JSON:

```json
[{"tool": "get_weather", "calls": 12}, {"tool": "get_weather", "calls": 4}]
```'''

DATASET = '''One training row per line:

```jsonl
{"prompt": "Weather in Paris?", "completion": "<tool_call>{\\"name\\": \\"get_weather\\", \\"arguments\\": {\\"city\\": \\"Paris\\"}}</tool_call>"}
```'''

CREWAI = '''CrewAI prints each step like this:

```
# Agent: Researcher
## Thought: I need the weather first.
## Using tool: get_weather
## Tool Input:
"{\\"city\\": \\"Paris\\"}"
## Tool Output:
...
```'''

TEMPLATE = '''A minimal ReAct prompt:

```text
Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
Final Answer: the final answer to the original input question
```'''


def _shown(run, strategy: str, text: str, split: int = 5):
    result = run([{"text": text, "split": split}], query="Show me.", tools=[weather_tool()], strategy=strategy)
    assert_clean(result, run)
    assert result.tool_requests == []
    assert len(result.llm_requests) == 1
    return result


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("text", [DECLARATION, ROWS, DATASET], ids=["declaration", "rows", "dataset"])
def test_an_answer_showing_json_that_names_a_tool_is_shown_and_runs_nothing(run, strategy, text):
    assert _shown(run, strategy, text).text == text


@pytest.mark.parametrize("text", [CREWAI, TEMPLATE], ids=["crewai-log", "react-template"])
def test_react_steps_an_answer_shows_in_a_code_block_are_the_answer(run, text):
    assert _shown(run, "ReAct", text).text == text


def test_a_react_step_shown_in_a_block_takes_its_input_from_the_block_and_the_real_action_runs(run):
    reply = (
        "Your parser fails on this line:\n\n```\nAction: get_weather[Lima]\n```\n\nbut accepts:\n\n"
        "```\nAction: get_weather\nAction Input: Lima\n```\n\nLet me check Paris for you.\n\n"
        'Action: get_weather\nAction Input: {"city": "Paris"}'
    )
    turns = [{"text": reply, "split": 7}, answer_turn("ReAct", "Sunny in Paris.")]
    result = run(turns, query="Why does my parser fail, and what is the weather in Paris?", tools=[weather_tool()],
                 strategy="ReAct")
    assert_clean(result, run)
    cities = [request["tool_parameters"] for request in result.tool_requests]
    assert {"city": "Paris"} in cities  # the genuine action is not swallowed by the example's input
    assert all(c in ({"city": "Lima"}, {"city": "Paris"}) for c in cities)  # no prose taken as an input
    assert "Sunny, 21 C" in observations(result.llm_requests[1])
    assert result.text == "Sunny in Paris."
