"""The run's time limit (``run_timeout``, else the daemon's PLUGIN_MAX_EXECUTION_TIMEOUT): when
another round would not fit, the model is asked for its answer, so the user gets one instead of
the daemon's bare timeout."""

import time

import pytest

from agent_core import prompts
from local_runner.tools import LocalTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text


def slow_tool(seconds: float) -> LocalTool:
    def handler(params):
        time.sleep(seconds)
        yield text_message(f"looked up {params['value']}")

    return LocalTool(name="lookup", description="A slow lookup", parameters=[ToolParam("value")], handler=handler)


def call(strategy: str, value: str) -> dict:
    if strategy == "ReAct":
        return {"text": f'Thought: look.\nAction: lookup\nAction Input: {{"value": "{value}"}}'}
    return {"tool_calls": [{"id": f"c-{value}", "name": "lookup", "arguments": {"value": value}}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_model_answers_when_another_round_would_not_fit(run, strategy):
    turns = [call(strategy, "a"), answer_turn(strategy, "Partial answer from a.")]
    result = run(turns, tools=[slow_tool(2.5)], strategy=strategy, params={"run_timeout": 10}, maximum_iterations=10)
    assert_clean_end(result)
    assert result.text == "Partial answer from a."
    assert len(result.tool_requests) == 1
    assert [n.label for n in result.logs.values() if n.label == "TIME LIMIT"] == ["TIME LIMIT"]
    assert prompts.TIME_LIMIT_NOTE in prompt_text(result.llm_requests[1])

