"""Function Calling through the real plugin process: a tool call whose name the server split the
way it splits the arguments (ankit373/hydra#957: ``get_wea`` with ``{"ci``, then ``ther`` with
``ty":"Paris"}`` on the same index). Before, both halves were invalid calls and the user saw the
model told of broken arguments; now the call runs once under its whole name, and a joined name
that is no tool runs nothing."""

import json

from tests.e2e.helpers import assert_clean_end, weather_tool


def split_name_stream(first: str, rest: str) -> list[dict]:
    """One call on index 0: ``first`` with the arguments' first piece, then ``rest`` with the others."""
    return [
        {"tool_calls": [{"index": 0, "id": "call_ab", "type": "function",
                         "function": {"name": first, "arguments": '{"ci'}}]},
        {"tool_calls": [{"index": 0, "function": {"name": rest, "arguments": 'ty": "Paris"}'}}]},
    ]


def test_a_name_split_with_the_arguments_runs_once_under_the_whole_name(run):
    result = run(
        [{"chunks": split_name_stream("get_wea", "ther"), "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}],
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    (call,) = [c for m in result.llm_requests[1]["prompt_messages"] if m.get("role") == "assistant"
               for c in m.get("tool_calls") or []]
    assert call["id"] == "call_ab" and call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
    tool_results = [m for m in result.llm_requests[1]["prompt_messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in tool_results] == ["call_ab"]
    assert result.text == "Sunny in Paris."  # nothing of the broken stream was shown


def test_a_split_name_that_joins_into_no_tool_runs_nothing_and_the_model_is_told(run):
    result = run(
        [{"chunks": split_name_stream("get_wea", "thr"), "finish_reason": "tool_calls"}, {"text": "Sorry."}],
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert result.tool_requests == []
    (observation,) = [m for m in result.llm_requests[1]["prompt_messages"] if m.get("role") == "tool"]
    assert "get_weathr" in observation["content"] and "get_weather" in observation["content"]
