"""Function Calling through the real plugin process: two calls of one tool under one id (or none),
the first cut (``{"q": "rov``), the second whole (``{"q": "battery"}``): the case the wave-34
fuzz campaign left open (docs/fuzzing.md). Before, both were joined and the tool ran with
``q = 'rov{"q": "battery"'``, a value the model never wrote. Now the whole call runs alone and
the model is told the other was cut; joined pieces that only a repair could split run nothing.
A megabyte of single-quoted text holding commas is refused at once, not read for seconds."""

import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean_end

CUT, WHOLE = '{"q": "rov', '{"q": "battery"}'


def lookup() -> ScriptedTool:
    return ScriptedTool(name="lookup", description="Looks a word up", parameters=[ToolParam("q", description="word")],
                        responses=[text_message("battery: a cell that stores energy")])


def _second_request(result) -> tuple[list[dict], list[dict]]:
    """The calls the model is shown it made, and the tool results it reads, in its second request."""
    messages = result.llm_requests[1]["prompt_messages"]
    calls = [c for m in messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    return calls, [m for m in messages if m.get("role") == "tool"]


@pytest.mark.parametrize("call_id", ["same", "", "lookup"], ids=["shared-id", "no-id", "name-as-id"])
def test_a_whole_call_after_a_cut_one_under_its_id_runs_alone(run, call_id):
    calls = [{"id": call_id, "name": "lookup", "arguments": CUT}, {"id": call_id, "name": "lookup", "arguments": WHOLE}]
    result = run([{"tool_calls": calls}, {"text": "A battery stores energy."}], tools=[lookup()])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("lookup", {"q": "battery"})]
    shown, results = _second_request(result)
    assert len(shown) == 2 and len({c["id"] for c in shown}) == 2  # each call answered under its own id
    assert [m["tool_call_id"] for m in results] == [c["id"] for c in shown]
    cut, whole = results
    assert "unterminated string" in cut["content"] and "battery: a cell" not in cut["content"]
    assert whole["content"].startswith("battery: a cell")
    assert {json.loads(c["function"]["arguments"]) == {"q": "battery"} for c in shown} == {True, False}
    assert result.text == "A battery stores energy."


def test_pieces_of_two_calls_under_one_head_run_nothing(run):
    # An OpenAI-style stream whose second head brings no arguments: the pieces cannot be told from
    # the first call's rest while streaming; joined, only a repair could read them, and it is refused.
    head = {"tool_calls": [{"index": 0, "id": "same", "type": "function", "function": {"name": "lookup", "arguments": ""}}]}
    piece = lambda text: {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}  # noqa: E731
    chunks = [head, piece('{"q": '), piece('"rov'), head, piece('{"q": "batt'), piece('ery"}')]
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Sorry."}], tools=[lookup()])
    assert_clean_end(result)
    assert result.tool_requests == []
    _, (told,) = _second_request(result)
    assert "was not run" in told["content"] and "unterminated string" in told["content"]


def test_a_megabyte_of_single_quoted_text_with_commas_is_refused_at_once(run):
    arguments = "{'q': '" + "x," * 500_000 + "'}"
    result = run([{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": arguments}]}, {"text": "Sorry."}],
                 tools=[lookup()])
    assert_clean_end(result)
    assert result.tool_requests == []
    _, (told,) = _second_request(result)
    assert "not valid JSON" in told["content"]
