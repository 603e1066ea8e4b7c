"""Faults and parallel tool calls, end to end through the real plugin process.

Every fault ends with something the user can read (a session error with a clear message, or
answer text that explains), no log node left in ``start`` state, and nothing already produced
lost: text already streamed, files already forwarded, tool results already in the log.
"""

import base64
import itertools
import json
import time

import pytest

from agent_core import prompts
from agent_core.loop import MAX_PARSE_RETRIES, REPEAT_LIMIT
from local_runner.tools import LocalTool, ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, prompt_text

# --- helpers -------------------------------------------------------------------------------------


def echo_tool(name: str = "echo", *, delay_by_value: dict[str, float] | None = None) -> LocalTool:
    """A tool whose output names its input (``echo:<value>``), optionally slower for some values."""

    def handler(params):
        time.sleep((delay_by_value or {}).get(params["value"], 0.0))
        yield text_message(f"{name}:{params['value']}")

    return LocalTool(name=name, description="Echo a value", parameters=[ToolParam("value")], handler=handler)


def blob(data: bytes, name: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": name, "mime_type": "text/csv"}}


def call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments}


def action(name: str, **arguments) -> str:
    """A ReAct action turn calling ``name``."""
    blob_ = json.dumps({"action": name, "action_input": arguments})
    return f"Thought: I will use {name}.\nAction:\n```json\n{blob_}\n```"


def tool_turn(strategy: str, call_id: str, name: str, **arguments) -> dict:
    """One model turn calling one tool, in the strategy's own format."""
    if strategy == "ReAct":
        return {"text": action(name, **arguments)}
    return {"tool_calls": [call(call_id, name, **arguments)]}





def nodes(result, label: str) -> list:
    return [n for n in result.logs.values() if n.label == label]


def assert_no_open_logs(result) -> None:
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]



# --- 1. the model stream fails mid-way -----------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_stream_failing_mid_answer_keeps_the_streamed_text_and_says_why(run, strategy):
    partial = "The warranty covers two years of"
    turn = {"text": (f"Thought: I know.\nFinal Answer: {partial}" if strategy == "ReAct" else partial),
            "split": 5, "error": "connection reset by peer"}
    result = run([turn], strategy=strategy)
    assert not result.ok
    assert "model call failed in round 1" in result.error_text
    assert "connection reset by peer" in result.error_text
    assert result.text == partial, "text already streamed stays with the user"
    assert_no_open_logs(result)
    (thought,) = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert thought.status == "error" and "connection reset by peer" in thought.error


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_stream_failing_in_a_held_reply_shows_its_answer_text_before_the_error(run, strategy):
    """Text held before it streams (a self-served model's first 256 characters, looked at for a
    bare </think>; a ReAct reply with no label, held to its end) was lost when the stream failed:
    the user got only the error."""
    partial = "The warranty covers two years of"
    model = {"provider": "langgenius/ollama/ollama", "model": "llama3.1:8b"}
    result = run([{"text": partial, "split": 5, "error": "connection reset by peer"}], strategy=strategy, model=model)
    assert not result.ok
    assert "connection reset by peer" in result.error_text
    assert result.text == partial
    assert_no_open_logs(result)


def test_model_stream_failing_in_a_reply_held_as_reasoning_or_a_call_shows_none_of_it(run):
    """What may be reasoning (no </think> came in a reply whose template opened the block) or a
    call is never shown, also when the stream fails."""
    reasoning = run([{"text": "Okay, the user asks about the warranty", "split": 5, "error": "upstream 502"}],
                    model={"model": "deepseek-r1:14b", "provider": "langgenius/ollama/ollama"})
    assert not reasoning.ok and reasoning.text == ""
    markup = run([{"text": 'Let me check.\n<tool_call>{"name": "echo", "argu', "split": 6, "error": "upstream 502"}],
                 tools=[echo_tool()], model={"provider": "langgenius/ollama/ollama"})
    assert not markup.ok and markup.text == "Let me check.\n"
    assert markup.tool_requests == []


def test_model_stream_failing_inside_a_tool_call_runs_no_half_call(run):
    chunks = [{"content": "Let me check. "},
              {"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"val'}}]}]
    result = run([{"chunks": chunks, "error": "stream closed"}], tools=[echo_tool()])
    assert not result.ok
    assert "round 1" in result.error_text and "stream closed" in result.error_text
    assert result.tool_requests == [], "a call cut off mid-stream is never run"
    assert result.text == "Let me check. "
    assert_no_open_logs(result)


def test_model_failing_after_a_tool_round_keeps_files_tool_results_and_usage(run):
    report = ScriptedTool(
        name="export_report",
        description="Export the report",
        parameters=[ToolParam("period")],
        responses=[text_message("Exported 3 rows."), blob(b"a,b\n1,2\n", "report.csv")],
    )
    turns = [
        {"text": "Exporting. ", "tool_calls": [call("c1", "export_report", period="Q3")],
         "usage": {"prompt_tokens": 40, "completion_tokens": 8}},
        {"text": "The report has", "split": 4, "error": "upstream 502"},
    ]
    result = run(turns, tools=[report])
    assert not result.ok
    assert "round 2" in result.error_text and "upstream 502" in result.error_text
    assert result.text == "Exporting. \n\nThe report has"
    assert [f["meta"]["filename"] for f in result.files] == ["report.csv"], "the forwarded file is not lost"
    (call_node,) = nodes(result, "CALL export_report")
    assert call_node.status == "success"
    assert "Exported 3 rows." in call_node.data["output"]["tool_response"]
    round_1 = nodes(result, "ROUND 1")[0]
    assert round_1.status == "success"
    assert round_1.data["output"]["tool_responses"][0]["tool_call_id"] == "c1"
    assert_no_open_logs(result)
    assert result.execution_metadata["total_tokens"] >= 48, "usage of the finished round is reported"


# --- 2. the model returns nothing ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_empty_reply_is_re_prompted_then_answered(run, strategy):
    result = run([{"text": ""}, answer_turn(strategy, "Hello!")], strategy=strategy, tools=[echo_tool()])
    assert_clean_end(result)
    assert result.text == "Hello!"
    first, second = result.llm_requests
    assert len(prompt_text(second)) > len(prompt_text(first)), "the retry tells the model what was wrong"
    told = prompts.EMPTY_REPLY if strategy == "function_calling" else prompts.PROBLEM_EMPTY
    assert told in prompt_text(second) and told not in prompt_text(first)
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_empty_replies_are_bounded_and_end_in_a_clear_error(run, strategy):
    result = run([{"text": ""}] * MAX_PARSE_RETRIES, strategy=strategy, tools=[echo_tool()])
    assert not result.ok
    assert f"no answer and no tool call {MAX_PARSE_RETRIES} times in a row" in result.error_text
    assert "Your last reply" not in result.error_text, "words meant for the model are not shown to the user"
    assert len(result.llm_requests) == MAX_PARSE_RETRIES
    assert result.text == ""
    assert_no_open_logs(result)
    run.backend.assert_complete()
    for request in result.llm_requests:  # Gemma, Mistral and Llama 2 templates refuse two user turns in a row
        roles = [message["role"] for message in request["prompt_messages"] if message["role"] != "system"]
        assert all(a != b for a, b in itertools.pairwise(roles)), roles


# --- 3. a tool fails -----------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tool_raising_after_partial_output_is_an_observation_and_the_run_goes_on(run, strategy):
    lookup = ScriptedTool(name="lookup", description="Look up rows", parameters=[ToolParam("table")],
                          responses=[text_message("row 1: Ada")], error="database connection lost")
    turns = [tool_turn(strategy, "c1", "lookup", table="users"), answer_turn(strategy, "I found Ada only.")]
    result = run(turns, tools=[lookup], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "I found Ada only."
    (seen,) = observations(result.llm_requests[1])
    assert "'lookup' failed" in seen and "database connection lost" in seen
    assert "row 1: Ada" in seen, "output received before the failure is kept"
    assert "Traceback" not in seen
    (node,) = nodes(result, "CALL lookup")
    assert node.status == "error" and "database connection lost" in node.error
    assert "row 1: Ada" in node.data["output"]["tool_response"]


def _nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("json_text", [False, True], ids=["object", "text"])
def test_arguments_nested_past_what_the_sdk_can_write_are_refused_not_a_crash(run, strategy, json_text):
    """pydantic-core, which writes every line, stops at 255 levels: such arguments would end the
    run with 'Maximum serialization depth exceeded' when the CALL log or the tool request goes out."""
    lookup = ScriptedTool(name="lookup", description="Look up rows", parameters=[ToolParam("table")],
                          responses=[text_message("row 1: Ada")])
    deep = _nested(400)
    if strategy == "ReAct":  # an object in the action blob, or its input given as a JSON string
        action_input = json.dumps({"table": "users", "filter": deep}) if json_text else {"table": "users", "filter": deep}
        first = {"text": "Thought: look.\nAction:\n```json\n" + json.dumps({"action": "lookup", "action_input": action_input}) + "\n```"}
    else:  # arguments as text (OpenAI) or as an already parsed object (Ollama)
        arguments = {"table": "users", "filter": deep}
        first = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": json.dumps(arguments) if json_text else arguments}]}
    result = run([first, answer_turn(strategy, "No rows.")], tools=[lookup], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "No rows."
    assert run.toolbox.calls == [], "never run"
    (seen,) = observations(result.llm_requests[1])
    assert "nested more than 64 levels" in seen
    (node,) = nodes(result, "CALL lookup")
    assert node.status == "error"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_half_a_surrogate_pair_in_arguments_or_an_answer_does_not_end_the_run(run, strategy):
    """'\\ud800' decodes to a character UTF-8 cannot hold: the SDK's encoder would fail on the
    CALL line (or the answer) and the run would end with UnicodeEncodeError, nodes left open."""
    if strategy == "ReAct":
        first = {"text": 'Thought: x\nAction:\n```json\n{"action": "echo", "action_input": {"value": "a\\ud800b"}}\n```'}
        last = {"text": 'Thought: done\nAction:\n```json\n{"action": "Final Answer", "action_input": "ok \\udfff"}\n```'}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "echo", "arguments": '{"value": "a\\ud800b"}'}]}
        last = {"text": "ok \ufffd"}
    result = run([first, last], tools=[echo_tool()], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "ok \ufffd"
    assert [call.request["tool_parameters"]["value"] for call in run.toolbox.calls] == ["a\ufffdb"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("model", [None, "gpt-4o", {"provider": "openai"}], ids=repr)
def test_node_settings_that_cannot_be_read_end_with_a_clear_error(run, strategy, model):
    result = run([], strategy=strategy, params={"model": model})
    assert not result.ok and result.error["error_type"] == "AgentRunError"
    assert result.error["message"].startswith("The Agent node's settings could not be read (model")
    assert "pydantic" not in result.error["message"]


def test_tool_error_event_without_output_is_an_observation(run):
    broken = ScriptedTool(name="broken", description="Always fails", parameters=[ToolParam("q")],
                          error="HTTP 401: invalid token")
    result = run([tool_turn("function_calling", "c1", "broken", q="x"), {"text": "The tool is unavailable."}],
                 tools=[broken])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert seen.startswith("Error: the tool 'broken' failed") and "HTTP 401: invalid token" in seen
    assert result.text == "The tool is unavailable."


def test_tool_stream_ending_in_the_middle_of_a_file_is_reported_not_forwarded(run):
    chunk = {"type": "blob_chunk", "meta": {"filename": "big.bin", "mime_type": "application/octet-stream"},
             "message": {"id": "f1", "sequence": 0, "total_length": 10, "blob": base64.b64encode(b"12345").decode(),
                         "end": False}}
    exporter = ScriptedTool(name="export", description="Export a file", parameters=[ToolParam("what")],
                            responses=[text_message("Export started."), chunk])
    result = run([tool_turn("function_calling", "c1", "export", what="all"), {"text": "The export broke off."}],
                 tools=[exporter])
    assert_clean_end(result)
    (seen,) = observations(result.llm_requests[1])
    assert "Export started." in seen
    assert "arrived incomplete" in seen and "5 of 10 bytes" in seen
    assert result.files == [], "a truncated file is not sent to the user"


def test_file_forwarded_before_a_tool_fails_reaches_the_user(run):
    exporter = ScriptedTool(name="export", description="Export a file", parameters=[ToolParam("what")],
                            responses=[blob(b"x,y\n", "part.csv")], error="disk full")
    result = run([tool_turn("function_calling", "c1", "export", what="all"), {"text": "Partly exported."}],
                 tools=[exporter])
    assert_clean_end(result)
    assert [f["meta"]["filename"] for f in result.files] == ["part.csv"]
    (seen,) = observations(result.llm_requests[1])
    assert "disk full" in seen and "part.csv" in seen


# --- 4. a tool that never answers ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_hanging_tool_times_out_into_an_observation_and_the_run_goes_on(run, strategy):
    stuck = ScriptedTool(name="slow_search", description="Search", parameters=[ToolParam("q")],
                         responses=[text_message("first hit")], hang=True)
    turns = [tool_turn(strategy, "c1", "slow_search", q="rover"), answer_turn(strategy, "The search timed out.")]
    started = time.monotonic()
    result = run(turns, tools=[stuck], strategy=strategy, tool_timeout=1)
    elapsed = time.monotonic() - started
    assert_clean_end(result)
    assert result.text == "The search timed out."
    (seen,) = observations(result.llm_requests[1])
    assert "timed out after 1 seconds" in seen and "first hit" in seen
    (node,) = nodes(result, "CALL slow_search")
    assert node.status == "error" and "timed out" in node.error
    assert 0.9 <= node.elapsed < 2.0
    assert elapsed < 4.0, f"the run waited {elapsed:.1f} s for a 1 s tool timeout"


def test_hanging_tool_does_not_hold_back_a_parallel_call(run):
    stuck = ScriptedTool(name="stuck", description="Never answers", parameters=[ToolParam("q")], hang=True)
    turns = [{"tool_calls": [call("a", "stuck", q="x"), call("b", "echo", value="fast")]}, {"text": "Partial."}]
    result = run(turns, tools=[stuck, echo_tool()], tool_timeout=1)
    assert_clean_end(result)
    timed_out, fast = observations(result.llm_requests[1])
    assert "timed out" in timed_out and fast == "echo:fast"
    (echo_node,) = nodes(result, "CALL echo")
    assert echo_node.status == "success" and echo_node.elapsed < 0.9


# --- 6. duplicated tool call ids -----------------------------------------------------------------


def _calls_and_results(request: dict) -> list[tuple[str, str, dict, str]]:
    """``(id, name, arguments, observation)`` per call, matched by id as a provider would."""
    calls = [c for m in request["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    results = {m["tool_call_id"]: m["content"] for m in request["prompt_messages"] if m["role"] == "tool"}
    return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]), results[c["id"]]) for c in calls]


def test_duplicate_call_ids_in_one_turn_both_run_with_unique_ids(run):
    turns = [{"tool_calls": [call("dup", "echo", value="A"), call("dup", "echo", value="B")]}, {"text": "A and B."}]
    result = run(turns, tools=[echo_tool()])
    assert_clean_end(result)
    assert sorted(r["tool_parameters"]["value"] for r in result.tool_requests) == ["A", "B"]
    matched = _calls_and_results(result.llm_requests[1])
    assert len(matched) == 2 and len({call_id for call_id, *_ in matched}) == 2
    for _, _, arguments, seen in matched:
        assert seen == f"echo:{arguments['value']}"
    tool_ids = [m["tool_call_id"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert len(tool_ids) == len(set(tool_ids)) == 2


def test_duplicate_call_ids_across_different_tools(run):
    turns = [{"tool_calls": [call("x", "echo", value="A"), call("x", "shout", value="B")]}, {"text": "Done."}]
    result = run(turns, tools=[echo_tool(), echo_tool("shout")])
    assert_clean_end(result)
    matched = _calls_and_results(result.llm_requests[1])
    assert sorted((name, seen) for _, name, _, seen in matched) == [("echo", "echo:A"), ("shout", "shout:B")]
    assert len({call_id for call_id, *_ in matched}) == 2


def test_exact_resend_of_a_call_runs_once_but_two_ids_with_equal_arguments_run_twice(run):
    """Same id, name and arguments twice is a proxy resending the call (elizaOS#16973): one run,
    not a side effect done twice. Two ids with equal arguments are two calls the model asked for."""
    resend = [{"tool_calls": [call("dup", "echo", value="A"), call("dup", "echo", value="A")]}, {"text": "A."}]
    result = run(resend, tools=[echo_tool()])
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert [(call_id, seen) for call_id, _, _, seen in _calls_and_results(result.llm_requests[1])] == [("dup", "echo:A")]
    twice = [{"tool_calls": [call("a", "echo", value="A"), call("b", "echo", value="A")]}, {"text": "A twice."}]
    result = run(twice, tools=[echo_tool()])
    assert_clean_end(result)
    assert len(result.tool_requests) == 2
    assert [(call_id, seen) for call_id, _, _, seen in _calls_and_results(result.llm_requests[1])] == [
        ("a", "echo:A"), ("b", "echo:A")]


# --- 7. the same call round after round ----------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_repeated_call_is_refused_then_the_model_must_answer(run, strategy):
    repeat = tool_turn(strategy, "c", "echo", value="same")
    turns = [repeat] * (REPEAT_LIMIT + 1) + [answer_turn(strategy, "I keep getting the same result: same.")]
    result = run(turns, tools=[echo_tool()], strategy=strategy, maximum_iterations=10)
    assert_clean_end(result)
    assert result.text == "I keep getting the same result: same."
    assert len(result.tool_requests) == REPEAT_LIMIT
    final_request = result.llm_requests[REPEAT_LIMIT + 1]
    refused = observations(final_request)[-1]
    assert "not run again" in refused and f"{REPEAT_LIMIT} times" in refused
    assert "You are repeating yourself" in prompt_text(final_request), "the model is told it is looping"
    labels = [n.label for n in result.root_logs()]
    assert labels[-3:] == [f"ROUND {REPEAT_LIMIT + 1}", "REPEATED CALLS", "FINAL ANSWER"]
    (refused_node,) = [n for n in nodes(result, "CALL echo") if n.status == "error"]
    assert "not run again" in refused_node.error
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_that_keeps_repeating_is_stopped_with_an_explanation(run, strategy):
    repeat = tool_turn(strategy, "c", "echo", value="same")
    result = run([repeat] * (REPEAT_LIMIT + 2), tools=[echo_tool()], strategy=strategy, maximum_iterations=10)
    assert_clean_end(result)
    assert result.text == prompts.STOPPED_REPEATING.format(names="echo")
    assert len(result.tool_requests) == REPEAT_LIMIT
    assert len(result.llm_requests) == REPEAT_LIMIT + 2, "the run ends instead of refusing until the limit"
    run.backend.assert_complete()


def test_text_streamed_with_the_last_repeat_is_followed_by_the_explanation(run):
    repeat = {"tool_calls": [call("c", "echo", value="same")]}
    last = {"text": "Let me try once more.", "tool_calls": [call("c", "echo", value="same")]}
    result = run([repeat] * (REPEAT_LIMIT + 1) + [last], tools=[echo_tool()], maximum_iterations=10)
    assert_clean_end(result)
    assert result.text == "Let me try once more.\n\n" + prompts.STOPPED_REPEATING.format(names="echo")


# --- parallel tool calls -------------------------------------------------------------------------


def test_parallel_calls_overlap_and_results_keep_call_order(run):
    slow = ScriptedTool(name="fetch", description="Fetch", parameters=[ToolParam("n")],
                        responses=[text_message("fetched")], latency=0.5)
    calls = [call(f"c{n}", "fetch", n=str(n)) for n in range(1, 5)]
    result = run([{"tool_calls": calls}, {"text": "All fetched."}], tools=[slow])
    assert_clean_end(result)
    records = run.toolbox.calls
    assert len(records) == 4
    phase = max(r.finished for r in records) - min(r.started for r in records)
    assert phase < 1.5, f"4 calls of 0.5 s took {phase:.2f} s: they did not run in parallel"
    tool_ids = [m["tool_call_id"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert tool_ids == ["c1", "c2", "c3", "c4"]
    call_logs = [e for e in result.log_history if str(e.get("label", "")).startswith("CALL ")]
    statuses = [e["status"] for e in call_logs]
    assert statuses[:4] == ["start"] * 4, "every call starts before the first one finishes"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_calls_that_cannot_run_keep_their_place_among_the_others(run, strategy):
    """Malformed arguments, a good call, an unknown tool: the results go back in that order,
    the order of the reply that made the calls (a model plugin rebuilding the reply from its
    opaque_body pairs each result with its call by position)."""
    if strategy == "ReAct":
        steps = (("echo", '{"value": 37 * 91}'), ("echo", '{"value": "b"}'), ("nope", "{}"))
        first = {"text": "Thought: three\n" + "\n".join(f"Action: {name}\nAction Input: {args}" for name, args in steps)}
    else:
        first = {"tool_calls": [{"id": "A", "name": "echo", "arguments": '{"value": 37 * 91}'},
                                call("B", "echo", value="b"),
                                {"id": "C", "name": "nope", "arguments": "{}"}]}
    result = run([first, answer_turn(strategy, "done")], tools=[echo_tool()], strategy=strategy)
    assert_clean_end(result)
    told = observations(result.llm_requests[1])
    assert len(told) == 3 and told[0].startswith("Error: the call to 'echo' was not run"), told
    assert told[1] == "echo:b" and "no tool named 'nope'" in told[2]
    if strategy != "ReAct":
        assistant = next(m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant")
        assert [c["id"] for c in assistant["tool_calls"]] == ["A", "B", "C"]
    labels = [n.label for n in result.logs.values() if n.label.startswith("CALL")]
    assert labels == ["CALL echo", "CALL echo", "CALL nope"]


def test_results_go_back_in_call_order_even_when_they_finish_in_reverse(run):
    delays = {"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0}
    calls = [call(f"c{n}", "echo", value=n) for n in "1234"]
    result = run([{"tool_calls": calls}, {"text": "ok"}], tools=[echo_tool(delay_by_value=delays)])
    assert_clean_end(result)
    assert observations(result.llm_requests[1]) == ["echo:1", "echo:2", "echo:3", "echo:4"]
    assert [m["tool_call_id"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"] == [
        "c1", "c2", "c3", "c4"]
    ids = {n.id: n for n in nodes(result, "CALL echo")}
    finished = [ids[e["id"]].data["output"]["tool_call_id"] for e in result.log_history
                if e["id"] in ids and e["status"] != "start"]
    assert finished == ["c4", "c3", "c2", "c1"], "the fastest call's log node finishes first"
    round_1 = nodes(result, "ROUND 1")[0]
    assert [r["tool_call_id"] for r in round_1.data["output"]["tool_responses"]] == ["c1", "c2", "c3", "c4"]


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_silent_model_is_stopped_by_model_timeout(run, strategy):
    """A model call that stops sending mid-reply ends the run after model_timeout, text kept."""
    started = time.monotonic()
    result = run([{"text": "Partial", "hang": True}], strategy=strategy, params={"model_timeout": 10})
    elapsed = time.monotonic() - started
    assert not result.ok
    assert "no reply from the model for 10 seconds" in result.error_text
    assert result.unfinished_logs() == []
    assert 9 < elapsed < 20


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_a_tool_that_does_not_validate_is_named_in_the_log_and_never_logged_whole(run, plugin, strategy):
    secret = "DROPPED-TOOL-SECRET-5521"
    broken = {"identity": {"name": "crm", "provider": "x"}, "parameters": "not a list",
              "runtime_parameters": {"api_key": secret}, "provider_type": "builtin"}
    turns = [{"text": "Thought: none needed.\nFinal Answer: Hi." if strategy == "ReAct" else "Hi."}]
    result = run(turns, strategy=strategy, params={"tools": [broken]})
    assert result.ok and result.text == "Hi."
    (node,) = [n for n in result.logs.values() if n.label == "TOOL DROPPED crm"]
    assert node.status == "error" and "parameters" in node.error
    assert secret not in json.dumps([n.to_dict() for n in result.logs.values()])
    assert secret not in "\n".join(plugin.stderr_tail(400))
