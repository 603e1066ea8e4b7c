"""A reply asking for more tool calls than one round runs (agent_core.round_cap), through the real
plugin: the first MAX_CALLS_PER_ROUND run, the model is told of the others (Function Calling: a
tool message per id; ReAct: a count), the log says how many, and the run ends with the answer."""

import json

import pytest

from agent_core import prompts
from agent_core.round_cap import MAX_CALLS_PER_ROUND
from tests.e2e.helpers import assert_clean, weather_tool

CALLS = 100
NOT_RUN = CALLS - MAX_CALLS_PER_ROUND


def round_one(result):
    """The ROUND 1 node and its children's labels."""
    node = next(n for n in result.root_logs() if n.label == "ROUND 1")
    return node, [child.label for child in result.children(node)]


def assert_logged(result, not_run: int = NOT_RUN) -> None:
    """One CALL node per call run, and one CALLS NOT RUN node giving the count."""
    node, labels = round_one(result)
    assert labels.count("CALL get_weather") == MAX_CALLS_PER_ROUND
    assert labels.count("CALLS NOT RUN") == 1 and labels[-1] == "CALLS NOT RUN"
    note = next(c for c in result.children(node) if c.label == "CALLS NOT RUN")
    assert note.status == "success" and note.data["calls_not_run"] == not_run
    assert f"{not_run} more tool calls" in note.data["output"]
    assert node.data["output"]["calls_not_run"] == not_run
    assert len(node.data["output"]["tool_responses"]) == MAX_CALLS_PER_ROUND


@pytest.mark.parametrize("count", [CALLS, 1000])
def test_function_calling_runs_the_first_calls_and_answers_every_id(run, count):
    calls = [{"id": f"call_{n}", "name": "get_weather", "arguments": {"city": f"C{n}"}} for n in range(count)]
    result = run([{"tool_calls": calls}, {"text": "Sunny everywhere I checked."}], tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny everywhere I checked."
    ran = sorted(int(r["tool_parameters"]["city"][1:]) for r in result.tool_requests)
    assert ran == list(range(MAX_CALLS_PER_ROUND)), "the first calls the model wrote, each once"
    second = result.llm_requests[1]
    (assistant,) = [m for m in second["prompt_messages"] if m["role"] == "assistant"]
    assert [c["id"] for c in assistant["tool_calls"]] == [c["id"] for c in calls], "the model's calls, all of them"
    tool_messages = [m for m in second["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [c["id"] for c in calls], "every id answered, in order"
    assert all(m["content"] == "Sunny, 21 C" for m in tool_messages[:MAX_CALLS_PER_ROUND])
    not_run = prompts.CALL_NOT_RUN.format(name="get_weather", limit=MAX_CALLS_PER_ROUND)
    assert all(m["content"] == not_run for m in tool_messages[MAX_CALLS_PER_ROUND:])
    assert_logged(result, count - MAX_CALLS_PER_ROUND)


def test_react_runs_the_first_actions_and_says_how_many_were_not_run(run):
    reply = "".join(
        f'Thought: city {n}.\nAction:\n```json\n{json.dumps({"action": "get_weather", "action_input": {"city": f"C{n}"}})}\n```\n'
        for n in range(CALLS)
    )
    turns = [{"text": reply}, {"text": "Thought: I know.\nFinal Answer: Sunny everywhere I checked."}]
    result = run(turns, strategy="ReAct", tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny everywhere I checked."
    ran = sorted(int(r["tool_parameters"]["city"][1:]) for r in result.tool_requests)
    assert ran == list(range(MAX_CALLS_PER_ROUND))
    prompt = "\n".join(str(m["content"]) for m in result.llm_requests[1]["prompt_messages"])
    assert prompt.count("Observation: Sunny, 21 C") == MAX_CALLS_PER_ROUND
    assert f"{NOT_RUN} more tool calls of your reply were not run (get_weather)" in prompt
    assert '"C99"' not in prompt, "the actions not run are counted, not listed"
    assert_logged(result)


def test_a_reply_of_ten_thousand_actions_ends_in_seconds(run):
    """A model looping in its output wrote 10,000 actions of a tool taking 50 ms: 64 run (8 waves
    of 8, under a second), the next request counts the rest in one line, and the run ends with the
    model's answer. All of them would have run in 1,250 waves, a minute."""
    reply = "".join(f"Action: get_weather\nAction Input: {{\"city\": \"C{n}\"}}\n" for n in range(10_000))
    turns = [{"text": "Thought: all of them.\n" + reply}, {"text": "Thought: enough.\nFinal Answer: Done."}]
    result = run(turns, strategy="ReAct", tools=[weather_tool(latency=0.05)], timeout=60)
    assert_clean(result, run)
    assert result.text == "Done."
    assert len(result.tool_requests) == MAX_CALLS_PER_ROUND
    prompt = "\n".join(str(m["content"]) for m in result.llm_requests[1]["prompt_messages"])
    assert f"{10_000 - MAX_CALLS_PER_ROUND} more tool calls of your reply were not run" in prompt
    assert result.duration < 20
    _, labels = round_one(result)
    assert len(labels) == 1 + MAX_CALLS_PER_ROUND + 1  # Thought, the calls run, the note
