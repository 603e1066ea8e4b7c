"""The twenty-fourth real-world pass's fixes through the real plugin: a call whose arguments come
whole under a second id after its head (poolsideai/pool#9), and a call whose every chunk repeats
its name, as the SDK's OpenAI-compatible base hands it on with an id per chunk
(NousResearch/hermes-agent#8259). Before, the head was a call without arguments beside the rest
(refused for its missing city, or told it had no name); now the tool runs once with the
arguments, and the call and its result go back under the head's id."""

from tests.e2e.helpers import assert_clean_end, weather_tool


def _sdk(name: str, arguments: str, id: str) -> dict:
    """A tool call as a Dify model plugin yields it (no index)."""
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _check_one_call_under(result, call_id: str) -> None:
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert result.text == "Sunny in Paris."
    calls = [c for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"
             for c in m.get("tool_calls") or []]
    assert [c["id"] for c in calls] == [call_id]
    (tool_message,) = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == call_id


def test_arguments_under_a_second_id_run_the_heads_call_once(run):
    chunks = [
        {"tool_calls": [{"index": 0, "id": "call_p1", "type": "function",
                         "function": {"name": "get_weather", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "id": "call_p2", "type": "function",
                         "function": {"arguments": '{"city": "Paris"}'}}]},
    ]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}],
                 query="Weather in Paris?", tools=[weather_tool()])
    _check_one_call_under(result, "call_p1")


def test_a_name_on_every_chunk_through_the_sdk_base_runs_one_call(run):
    chunks = [{"tool_calls": [_sdk("get_weather", "", "call_nim1"),
                              _sdk("get_weather", '{"city": ', "chatcmpl-tool-0c1d"),
                              _sdk("get_weather", '"Paris"}', "chatcmpl-tool-9e2f")]}]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}],
                 query="Weather in Paris?", tools=[weather_tool()])
    _check_one_call_under(result, "call_nim1")
