"""ReAct turns that models really write, through the real plugin: several actions in one
turn, an input that repeats the tool's schema, an invented observation before an answer."""

import json

from agent_core import prompts
from tests.e2e.helpers import assert_clean_end, prompt_text, weather_tool


def blob(name: str, arguments: dict) -> str:
    return "Action:\n```json\n" + json.dumps({"action": name, "action_input": arguments}) + "\n```"


def test_every_action_of_a_turn_runs_in_order(run):
    turn = {"text": "Thought: both.\n" + blob("calculator", {"expression": "2 + 2"}) + "\n" + blob("calculator", {"expression": "3 * 3"})}
    result = run([turn, {"text": "Final Answer: 4 and 9."}], tools=["calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"]["expression"] for r in result.tool_requests] == ["2 + 2", "3 * 3"]
    scratchpad = prompt_text(result.llm_requests[1])
    assert "Observation: 2 + 2 = 4" in scratchpad and "Observation: 3 * 3 = 9" in scratchpad


def test_an_input_that_repeats_the_schema_is_refused_with_the_reason(run):
    echo = "Thought: calc.\nAction: calculator\nAction Input: " + json.dumps(
        {"expression": {"type": "string", "description": "An arithmetic expression"}}
    )
    turns = [{"text": echo}, {"text": "Thought: again.\n" + blob("calculator", {"expression": "2 + 2"})}, {"text": "Final Answer: 4."}]
    result = run(turns, tools=["calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"]["expression"] for r in result.tool_requests] == ["2 + 2"]
    assert "repeat the tool's parameter schema" in prompt_text(result.llm_requests[1])


def test_an_invented_observation_and_answer_after_an_action_are_discarded(run):
    invented = (
        "Thought: I need to compute.\nAction: calculator\nAction Input: {\"expression\": \"6 * 7\"}\n"
        "Observation: 41\nThought: I know it now.\nFinal Answer: 41"
    )
    result = run([{"text": invented}, {"text": "Thought: done.\nFinal Answer: 42."}], tools=["calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "42."
    assert len(result.tool_requests) == 1
    second = prompt_text(result.llm_requests[1])
    assert "Observation: 6 * 7 = 42" in second and "Observation: 41" not in second
    assert prompts.REACT_CONTINUE in second


def test_two_actions_written_on_one_line_both_run_in_that_round(run):
    # llama3.1-style parallel calls: the second object followed the first on its line and was
    # left in the thought, never run and never answered
    line = (
        'Thought: both at once.\nAction: {"action": "get_weather", "action_input": {"city": "Paris"}} '
        '{"action": "calculator", "action_input": {"expression": "2 + 2"}}'
    )
    turns = [{"text": line, "split": 4}, {"text": "Thought: done.\nFinal Answer: Sunny, and 4."}]
    result = run(turns, tools=[weather_tool(), "calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Sunny, and 4."
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [
        ("get_weather", {"city": "Paris"}),
        ("calculator", {"expression": "2 + 2"}),
    ]
    first_round = result.root_logs()[0]
    assert [n.label for n in result.root_logs()] == ["ROUND 1", "ROUND 2"]
    assert [n.label for n in result.children(first_round) if n.label.startswith("CALL ")] == [
        "CALL get_weather",
        "CALL calculator",
    ]
    scratchpad = prompt_text(result.llm_requests[1])
    assert scratchpad.index("Observation: Sunny, 21 C") < scratchpad.index("Observation: 2 + 2 = 4")
