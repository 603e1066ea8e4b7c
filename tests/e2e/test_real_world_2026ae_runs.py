"""The thirtieth real-world pass's fix through the real plugin: LMDeploy stamps a fresh id on every
argument fragment, empty ones too (InternLM/lmdeploy#3412), and the SDK's OpenAI-compatible base
hands each on as an entry of its own. Before, the empty entry between the call and its last piece
cut the call in two: the tool never ran, and the model was told the call's JSON was malformed and
that a second call had lost its beginning. Now the tool runs once with the arguments, and the call
and its result go back under the head's id."""

from tests.e2e.helpers import assert_clean_end, weather_tool


def _sdk(name: str, arguments: str, id: str) -> dict:
    """A tool call as the SDK base yields it (no index)."""
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_fresh_ids_on_every_fragment_through_the_sdk_base_run_one_call(run):
    chunks = [{"tool_calls": [_sdk("get_weather", "", "chatcmpl-tool-a0"),
                              _sdk("", '{"city": "Pa', "chatcmpl-tool-b1"),
                              _sdk("", "ri", "chatcmpl-tool-8nW5XP"),
                              _sdk("", "", "chatcmpl-tool-nSqe5Y"),
                              _sdk("", 's"}', "chatcmpl-tool-iCZ7iE")]}]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sunny in Paris."}],
                 query="Weather in Paris?", tools=[weather_tool()])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert result.text == "Sunny in Paris."
    messages = result.llm_requests[1]["prompt_messages"]
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert [c["id"] for c in calls] == ["chatcmpl-tool-a0"]
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["chatcmpl-tool-a0"]
