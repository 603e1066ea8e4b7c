"""Through the real plugin process: the user's stop sequences reach the request's ``stop``; a
tool whose only output is variables is observed; a Function Calling answer after a reasoning
block does not start with the block's separators."""

import json

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations


def fetch_turns(strategy: str, answer: str = "Done.") -> list[dict]:
    """Round 1 calls ``fetch`` without arguments, round 2 answers."""
    if strategy == "ReAct":
        action = json.dumps({"action": "fetch", "action_input": {}})
        return [{"text": f"Thought: I will fetch.\nAction:\n```json\n{action}\n```"}, answer_turn(strategy, answer)]
    return [{"tool_calls": [{"id": "call_1", "name": "fetch", "arguments": "{}"}]}, answer_turn(strategy, answer)]


def variable(name: str, value, stream: bool = False) -> dict:
    return {"type": "variable", "message": {"variable_name": name, "variable_value": value, "stream": stream}, "meta": None}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_users_stop_sequences_go_into_stop_and_leave_completion_params(run, strategy):
    model = {"completion_params": {"temperature": 0, "stop": ["###", 7, "END"]}}
    result = run([answer_turn(strategy, "Hi.")], query="hi", strategy=strategy, model=model)
    assert_clean(result, run)
    (request,) = result.llm_requests
    own = ["Observation"] if strategy == "ReAct" else []
    assert request["stop"] == ["###", "END", *own]
    assert request["completion_params"] == {"temperature": 0}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_that_streams_only_variables_is_observed(run, strategy):
    lines = [variable("stream_text", f"event {n}\n", stream=True) for n in range(3)]
    tool = ScriptedTool(name="fetch", description="Streams events", parameters=[], responses=lines)
    result = run(fetch_turns(strategy), query="Fetch it.", tools=[tool], strategy=strategy)
    assert_clean(result, run)
    assert observations(result.llm_requests[1]) == ["event 0\nevent 1\nevent 2"]
    assert result.variables == {}  # still not the agent's outputs


def test_mcp_style_variables_are_observed_as_json_by_name(run):
    responses = [variable("city", "Paris"), variable("temperature", 21)]
    tool = ScriptedTool(name="fetch", description="Weather", parameters=[], responses=responses)
    result = run(fetch_turns("function_calling"), query="Fetch it.", tools=[tool])
    assert_clean(result, run)
    assert observations(result.llm_requests[1]) == ['{"city":"Paris","temperature":21}']


@pytest.mark.parametrize(
    "pieces",
    [
        ["<think>\n", "plan it", "\n</think>\n\n", "The answer", " is 4.\n\nBye."],  # Anthropic's plugin
        ["<think>\nplan it\n</think>\n", "The answer is 4.\n\nBye."],  # MiniMax's plugin
    ],
)
def test_a_function_calling_answer_after_reasoning_starts_with_its_first_word(run, pieces):
    result = run([{"chunks": [{"content": piece} for piece in pieces]}], query="2+2?")
    assert_clean(result, run)
    assert result.text == "The answer is 4.\n\nBye."
