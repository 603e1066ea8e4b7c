"""Wave 33, through the real plugin process: the Hunyuan and Xinference contract backends (two
rounds of tool calls, then memory on the next run, both strategies; what each plugin sends back
of a round), and a MiniMax-M2 stream whose call arrives as a start of its arguments followed by
the whole object (sgl-project/sglang#23071), which now runs."""

from tests.e2e.helpers import assert_clean_end, weather_tool


def test_a_start_then_the_whole_object_runs_the_call_once(run):
    """sglang#23071: the call's arguments come as ``{"city": "Paris"`` glued to the whole object.
    Before, the user read an error after the model was asked again; now the tool runs once with
    the object and the model's answer is shown."""
    chunks = [
        {"tool_calls": [{"index": 0, "id": "call_mm1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
        {"tool_calls": [{"index": 1, "id": None, "function": {"name": None, "arguments": '{"city": "Paris"{"city": "Paris"}'}}]},
    ]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert result.text == "Sunny in Paris."
    (call,) = [c for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert call["id"] == "call_mm1"
