"""Blind cuts and steps, wave 39 (issue 13, classes 4 and 5), through the real plugin process.

The cases were written from the issue, the README and the docs before any existing test was
read; then the earlier suites (``test_blind_cuts_steps_wave38.py``, ``test_blind_cuts_wave35.py``,
``test_blind_steps_wave3*.py``, ``test_red_team_wave3*_cut.py``, ``test_cut_replies.py``,
``test_cut_by_usage.py``) were read and the cases they run were dropped: the per-item-type
unreadable stream data, a tool with one broken parameter, price strings that are no finite
number, a good call beside a schema echo and an unknown tool, two invented observations, a cut
answer in a code fence. What is left goes sideways and in combination:

* a cut reply whose re-ask is cut too, in the other place (a call, then an answer; an answer,
  then a call), in both strategies;
* a cut in the last round ``maximum_iterations`` allows, and a cut of the answer it asks for;
* a Function Calling answer cut after a round of parallel calls (its rest asked with the calls'
  ids intact), and a round of whole parallel calls cut by its usage (tokens equal to the limit);
* ReAct turns of several actions written as a JSON list, as numbered Markdown steps, as
  ``Action 1:``/``Action 2:`` labels, the same call twice, a ``Final Answer`` between two
  actions, and an ``Action:`` inside an input's string;
* schema echoes that are partly values, an array parameter's item schema, a whole JSON Schema
  document with ``$schema`` in a native call; parameters named ``type`` and ``description``
  holding values that are type names;
* an invented ``Observation:`` in bold that quotes the tool, ``Observation:`` lines in a code
  block of a final answer (the answer's own content), and an input value that begins
  ``Observation:``;
* a price that is a decimal of 400 digits (Go's decimal passes it; a float of it is infinite)
  on the last chunk of a cut answer;
* tool stream items whose data is an object of the wrong shape (a log's label null, a retriever
  resource that is no object, a text message's text a number).

Of the first 52 cases, 40 passed before the fixes; the seven cut-at-a-limit cases added after the
first fault was read, and the four of the second pass, found more. Faults found and fixed (each
with a unit test beside its module):

* a reply the output limit cut in the round that asks for the answer at the iteration limit (a
  cut call, or a cut ReAct Thought) ended the run "without a final answer", never asked again
  (``AgentLoop._cut_asked_again``);
* an array parameter's schema, or its item schema alone or listed, reached the tool as the value
  (``tool_schema.schema_echo``'s ``lists``);
* ReAct steps numbered as an ordered list (``1. **Action:** lookup``) ran nothing;
* ReAct actions after a ``Final Answer`` written before any result (labelled, or a JSON list's calls
  after its "Final Answer" item) were dropped without a word to the model;
* an object of the same parameters glued after an ``Action Input`` on its line went to the thought;
* an answer cut inside a code block showing a ReAct trace lost lines: Function Calling took an
  ``Action:`` line there for a cut call, ReAct read the rest's ``Action Input:`` as a step.
"""

from __future__ import annotations

import json
import math
import time

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_run,
    logs_json,
    plugin_lines,
    prompt_text,
    tools_ran,
)

CUT = "output limit"


class Lookup(ScriptedTool):
    """``lookup(q)`` answering ``<name> found <q>`` (unless ``responses`` are scripted)."""

    def run(self, parameters, released):
        if self.responses:
            yield from super().run(parameters, released)
            return
        if self.latency:
            time.sleep(self.latency)
        yield text_message(f"{self.name} found {parameters.get('q')}")


def lookup(name: str = "lookup", responses: list[dict] | None = None) -> ScriptedTool:
    return Lookup(name=name, description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                  responses=responses or [])


def react_action(q: str, name: str = "lookup") -> str:
    return f'Thought: look it up.\nAction: {name}\nAction Input: {{"q": "{q}"}}'


def good_call(strategy: str, q: str, call_id: str = "c9") -> dict:
    if strategy == "ReAct":
        return {"text": react_action(q)}
    return {"tool_calls": [{"id": call_id, "name": "lookup", "arguments": {"q": q}}]}


def cut_call(strategy: str) -> dict:
    """A reply the output limit cut inside a call's arguments."""
    if strategy == "ReAct":
        return {"text": 'Thought: look it up.\nAction: lookup\nAction Input: {"q": "Par', "finish_reason": "length"}
    return {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": '{"q": "Par'}], "finish_reason": "length"}


def cut_answer(strategy: str, text: str) -> dict:
    return {**answer_turn(strategy, text), "finish_reason": "length"}


def shown_or_error(result) -> str:
    return (result.text or "") + (result.error_text or "")


# --- class 4: a cut re-ask cut again, in the other place ---------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_call_whose_re_ask_is_a_cut_answer_runs_nothing_and_never_passes_it_off(run, strategy):
    """Round 1 cut inside a call, round 2 (asked again, shorter) cut inside its answer. No tool may
    run; the answer's start is continued once (``MAX_CONTINUATIONS``: the cut call before it is no
    continuation) and the user reads it whole."""
    turns = [cut_call(strategy), cut_answer(strategy, "The capital of France is"), {"text": " Paris."}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1]) or "cut off" in prompt_text(result.llm_requests[1])
    assert "Action" not in result.text and '"q"' not in result.text, result.text
    assert len(result.llm_requests) == 3  # its rest was asked for: the answer is whole
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[2])
    assert result.text == "The capital of France is Paris.", result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_whose_rest_is_a_cut_call_shows_the_start_with_a_notice(run, strategy):
    """The answer is cut; the continuation the plugin asks for is a call the limit cut again.
    That call never runs and is never shown; the run ends with the start and the notice."""
    rest = cut_call(strategy)
    if strategy == "ReAct":
        rest = {**rest, "text": 'Action: lookup\nAction Input: {"q": "Par'}
    turns = [cut_answer(strategy, "The capital of France is"), rest, answer_turn(strategy, "unused")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert result.text.startswith("The capital of France is"), result.text
    assert "Par" not in result.text.replace("Paris", "") and "lookup" not in result.text, result.text
    assert CUT in result.text, result.text
    assert "unused" not in result.text


# --- class 4: the last round maximum_iterations allows ------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_in_the_only_round_allowed_is_never_run_and_the_run_still_answers(run, strategy):
    turns = [cut_call(strategy), answer_turn(strategy, "Paris, from memory."), answer_turn(strategy, "spare")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert "cut off" in prompt_text(result.llm_requests[1]), prompt_text(result.llm_requests[1])[-1500:]
    assert result.text == "Paris, from memory.", result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_answer_asked_at_the_iteration_limit_cut_is_continued(run, strategy):
    turns = [good_call(strategy, "France"), cut_answer(strategy, "lookup says the capital is"), {"text": " Paris."}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "France"})]
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[2])
    assert result.text == "lookup says the capital is Paris.", result.text
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_in_the_answer_asked_at_the_iteration_limit_is_never_run(run, strategy):
    turns = [good_call(strategy, "France"), cut_call(strategy), answer_turn(strategy, "Paris."),
             answer_turn(strategy, "spare")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "France"})]
    assert "Par" not in result.text.replace("Paris", ""), result.text
    assert result.text == "Paris." or CUT in result.text, result.text


# --- class 4: Function Calling, parallel calls and a cut --------------------------------------------------


def test_fc_answer_cut_after_parallel_calls_is_continued_with_the_calls_replayed_intact(run):
    calls = {"tool_calls": [{"id": "call_A1", "name": "lookup", "arguments": {"q": "a"}},
                            {"id": "call_B2", "name": "lookup", "arguments": {"q": "b"}}]}
    turns = [calls, {"text": "Both were", "finish_reason": "length"}, {"text": " found."}]
    result = run(turns, query="Look up a and b.", tools=[lookup()])
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]
    assert result.text == "Both were found.", result.text
    rest_request = result.llm_requests[2]
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(rest_request)
    messages = rest_request["prompt_messages"]
    asked = [c["id"] for m in messages if m["role"] == "assistant" for c in (m.get("tool_calls") or [])]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert asked == ["call_A1", "call_B2"] and answered == ["call_A1", "call_B2"], (asked, answered)
    run.backend.assert_complete()


def test_fc_parallel_whole_calls_at_exactly_the_output_limit_are_not_run(run):
    """No finish reason (as a blocking reply has), completion tokens equal to ``max_tokens``: the
    reply is read as cut, so its calls, whole as they read, are answered and asked again."""
    calls = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}},
                            {"id": "c2", "name": "lookup", "arguments": {"q": "b"}}],
             "finish_reason": None, "usage": {"prompt_tokens": 50, "completion_tokens": 64}}
    again = {"tool_calls": [{"id": "c3", "name": "lookup", "arguments": {"q": "a"}}]}
    result = run([calls, again, {"text": "Found."}], query="Look up a and b.", tools=[lookup()],
                 model={"completion_params": {"max_tokens": 64}})
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert set(told) == {"c1", "c2"} and all(CUT in t for t in told.values()), told
    assert result.text == "Found."


def test_react_two_whole_actions_with_length_then_stop_are_not_run(run):
    """A proxy adds its own ``stop`` after the model's ``length``: the reply is still cut, and
    two actions that read whole are not run."""
    text = react_action("a") + "\n" + react_action("b")
    chunks = [{"content": text, "finish_reason": "length"}, {"content": "", "finish_reason": "stop"}]
    result = run([{"chunks": chunks}, {"text": react_action("a")}, answer_turn("ReAct", "Found.")],
                 query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    assert result.text == "Found."


def test_react_action_then_invented_observation_cut_inside_the_invented_answer(run):
    """The limit fell inside the made-up part after a whole action. Whether the action runs or is
    asked again, the made-up answer is never shown and the tool never runs twice on one reply."""
    text = react_action("a") + "\nObservation: lookup found 42\nThought: done.\nFinal Answer: It is 4"
    turns = [{"text": text, "finish_reason": "length"}, {"text": react_action("a")}, answer_turn("ReAct", "Found."),
             answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert "It is 4" not in result.text and "42" not in result.text, result.text
    assert result.text == "Found."
    assert 1 <= len(tools_ran(result)) <= 2 and set(p["q"] for _, p in tools_ran(result)) == {"a"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_with_a_price_of_400_digits_on_its_last_chunk_stays_finite(run, plugin, strategy):
    """Go's decimal passes a price of any precision; a float of ``1`` and 400 zeros is infinite."""
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "prompt_price": "0.001",
             "completion_price": "1" + "0" * 400, "total_price": "1" + "0" * 400, "currency": "USD"}
    turns = [{**cut_answer(strategy, "The sum is"), "usage": usage}, {"text": " four."}]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "The sum is four."
    for value in (result.execution_metadata or {}).values():
        assert not (isinstance(value, float) and not math.isfinite(value)), result.execution_metadata
    for entry, _ in plugin_lines(plugin, result):
        line = json.dumps(entry.get("json"))
        assert "Infinity" not in line and "NaN" not in line, line[:500]
    assert "completion_price" in logs_json(result) or "total_price" in logs_json(result)


# --- class 5: several actions in one ReAct turn, in other shapes -------------------------------------------


def _two_actions(shape: str) -> str:
    if shape == "json list":
        actions = [{"action": "lookup", "action_input": {"q": "a"}}, {"action": "lookup", "action_input": {"q": "b"}}]
        return "Thought: two.\nAction:\n```json\n" + json.dumps(actions) + "\n```"
    if shape == "numbered markdown":
        return ('Thought: two.\n1. **Action:** lookup\n   **Action Input:** {"q": "a"}\n'
                '2. **Action:** lookup\n   **Action Input:** {"q": "b"}')
    if shape == "numbered labels":
        return ('Thought: two.\nAction 1: lookup\nAction Input 1: {"q": "a"}\n'
                'Action 2: lookup\nAction Input 2: {"q": "b"}')
    if shape == "steps with headings":
        return ('Thought: two.\n### Step 1\nAction: lookup\nAction Input: {"q": "a"}\n\n'
                '### Step 2\nAction: lookup\nAction Input: {"q": "b"}')
    raise AssertionError(shape)


@pytest.mark.parametrize("shape", ["json list", "numbered markdown", "numbered labels", "steps with headings"])
def test_react_two_actions_in_another_shape_run_in_order_or_the_second_is_named(run, shape):
    result = run([{"text": _two_actions(shape)}, answer_turn("ReAct", "Done."), answer_turn("ReAct", "Done.")],
                 query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Done."
    ran = tools_ran(result)
    assert ran[:1] == [("lookup", {"q": "a"})], ran
    if ran != [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]:
        told = prompt_text(result.llm_requests[1])
        assert "not run" in told and "lookup" in told, told[-2000:]


def test_react_the_same_action_twice_in_one_turn_is_never_dropped_silently(run):
    text = react_action("a") + "\n" + react_action("a")
    result = run([{"text": text}, answer_turn("ReAct", "Done.")], query="Look up a.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Done."
    ran = tools_ran(result)
    assert ran in ([("lookup", {"q": "a"})], [("lookup", {"q": "a"})] * 2), ran
    told = prompt_text(result.llm_requests[1])
    assert "lookup found a" in told
    if len(ran) == 1:  # run once: the model reads that the repeat got the same result
        assert told.count("lookup found a") == 2 or "same" in told or "not run" in told, told[-2000:]


def test_fc_the_same_call_twice_gets_an_answer_for_each_id(run):
    """Two native calls of one tool with one input and two ids: a provider refuses a request
    whose assistant message holds a call id without its tool message."""
    calls = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}},
                            {"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]}
    result = run([calls, {"text": "Done."}], query="Look up a.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "Done."
    assert 1 <= len(tools_ran(result)) <= 2
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert set(told) == {"c1", "c2"} and all(told.values()), told


@pytest.mark.parametrize("json_list", [False, True], ids=["labelled", "json list"])
def test_react_a_final_answer_between_two_actions(run, json_list):
    """The answer was written before any result came: the first action runs, the answer is not the
    run's, and the action after it is run or named to the model, never dropped silently."""
    if json_list:
        steps = [{"action": "lookup", "action_input": {"q": "a"}}, {"action": "Final Answer", "action_input": "a is 7"},
                 {"action": "lookup", "action_input": {"q": "b"}}]
        text = "Thought: x.\nAction:\n```json\n" + json.dumps(steps) + "\n```"
    else:
        text = react_action("a") + "\nFinal Answer: a is 7\n" + react_action("b")
    result = run([{"text": text}, answer_turn("ReAct", "a is 1."), answer_turn("ReAct", "a is 1.")],
                 query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert "a is 7" not in result.text, result.text
    ran = tools_ran(result)
    assert ran[:1] == [("lookup", {"q": "a"})], ran
    if ("lookup", {"q": "b"}) not in ran:
        told = prompt_text(result.llm_requests[1])
        assert "not run" in told or "not read" in told, told[-2000:]


def test_react_an_action_label_inside_an_input_string_is_the_value(run):
    text = 'Thought: two.\nAction: lookup\nAction Input: {"q": "Action: lookup"}\n' + react_action("b")
    result = run([{"text": text}, answer_turn("ReAct", "Done.")], query="Look up both.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "Action: lookup"}), ("lookup", {"q": "b"})], tools_ran(result)


def test_react_an_input_value_that_begins_with_observation_is_the_value(run):
    text = 'Thought: x.\nAction: lookup\nAction Input: {"q": "Observation: the word"}'
    result = run([{"text": text}, answer_turn("ReAct", "Done.")], query="Look it up.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "Observation: the word"})], tools_ran(result)


def test_react_two_objects_glued_on_one_input_line_never_run_half_silently(run):
    text = 'Thought: two.\nAction: lookup\nAction Input: {"q": "a"}{"q": "b"}'
    result = run([{"text": text}, {"text": react_action("b")}, answer_turn("ReAct", "Done."),
                  answer_turn("ReAct", "Done.")], query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    ran = tools_ran(result)
    # the glued object is the same tool called again (``ReactStreamParser._same_tool_again``): both run
    # in round 1 and the model reads both results
    assert ran[:2] == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})], ran
    told = prompt_text(result.llm_requests[1])
    assert "lookup found a" in told and "lookup found b" in told, told[-2000:]


def test_react_last_allowed_round_of_a_json_list_runs_both_then_asks_for_the_answer(run):
    turns = [{"text": react_action("x")}, {"text": _two_actions("json list")}, answer_turn("ReAct", "Done.")]
    result = run(turns, query="Look up x, a and b.", tools=[lookup()], strategy="ReAct", maximum_iterations=2)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "x"}), ("lookup", {"q": "a"}), ("lookup", {"q": "b"})]
    assert "Do not call any more tools" in prompt_text(result.llm_requests[2])
    assert result.text == "Done."
    run.backend.assert_complete()


# --- class 5: schema echoes, and values that look like them -------------------------------------------------


def weather() -> ScriptedTool:
    return ScriptedTool(name="get_weather", description="Weather for a city",
                        parameters=[ToolParam("city", description="City name"),
                                    ToolParam("units", description="metric or imperial", required=False)],
                        responses=[text_message("Sunny"), text_message("Sunny"), text_message("Sunny")])


def tagger() -> ScriptedTool:
    return ScriptedTool(name="tag_it", description="Tags a note",
                        parameters=[ToolParam("note", description="the note"),
                                    ToolParam("tags", type="array", description="tags to add", required=False)],
                        responses=[text_message("tagged"), text_message("tagged")])


def _as_call(strategy: str, name: str, arguments: dict, call_id: str) -> dict:
    if strategy == "ReAct":
        return {"text": f"Thought: x.\nAction: {name}\nAction Input: {json.dumps(arguments)}"}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def _schema_left_in(params: dict) -> bool:
    return any(isinstance(v, dict) and ("type" in v or "items" in v) for v in params.values()) or any(
        isinstance(v, list) and any(isinstance(i, dict) and "type" in i for i in v) for v in params.values())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_partly_filled_echo_never_reaches_the_tool_as_a_value(run, strategy):
    echo = {"city": "Paris", "units": {"type": "string", "description": "metric or imperial"}}
    turns = [_as_call(strategy, "get_weather", echo, "c1"), _as_call(strategy, "get_weather", {"city": "Paris"}, "c2"),
             answer_turn(strategy, "Sunny."), answer_turn(strategy, "Sunny.")]
    result = run(turns, query="Weather in Paris?", tools=[weather()], strategy=strategy)
    assert_clean_run(result)
    ran = tools_ran(result)
    assert ran and all(not _schema_left_in(p) for _, p in ran), ran
    assert result.text == "Sunny."
    if ran[0][1] != {"city": "Paris"}:
        raise AssertionError(ran)
    if len(ran) == 1:  # refused first: the model read why
        assert "schema" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("echo", [{"tags": [{"type": "string"}]}, {"tags": {"type": "string"}},
                                  {"tags": {"type": "array", "items": {"type": "string"}}}],
                         ids=["item schema in a list", "item schema alone", "array schema"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_array_parameters_schema_echo_is_refused_with_the_reason(run, strategy, echo):
    arguments = {"note": "buy milk", **echo}
    turns = [_as_call(strategy, "tag_it", arguments, "c1"),
             _as_call(strategy, "tag_it", {"note": "buy milk", "tags": ["home"]}, "c2"),
             answer_turn(strategy, "Tagged."), answer_turn(strategy, "Tagged.")]
    result = run(turns, query="Tag my note.", tools=[tagger()], strategy=strategy)
    assert_clean_run(result)
    ran = tools_ran(result)
    assert all(not _schema_left_in(p) for _, p in ran), ran
    assert ran and ran[-1][1].get("tags") == ["home"], ran
    if len(ran) == 1:
        assert "schema" in prompt_text(result.llm_requests[1]), prompt_text(result.llm_requests[1])[-1500:]


def test_fc_a_whole_json_schema_document_in_native_arguments_is_refused(run):
    document = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"q": {"type": "string", "description": "the word"}}, "required": ["q"],
                "additionalProperties": False}
    turns = [{"tool_calls": [{"id": "c1", "name": "lookup", "arguments": document}]},
             {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]}, {"text": "Found."}]
    result = run(turns, query="Look up a.", tools=[lookup()])
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert "schema" in told["c1"], told
    assert result.text == "Found."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_parameters_named_type_and_description_holding_type_names_are_values(run, strategy):
    """A field-definition tool: ``type`` is ``string``, ``description`` a text. Its arguments look
    exactly like a schema, and are the user's values."""
    tool = ScriptedTool(name="add_field", description="Adds a field to a form",
                        parameters=[ToolParam("type", description="the field's type: string, number or boolean"),
                                    ToolParam("description", description="the field's description")],
                        responses=[text_message("field added")])
    arguments = {"type": "string", "description": "The customer's name"}
    result = run([_as_call(strategy, "add_field", arguments, "c1"), answer_turn(strategy, "Added.")],
                 query="Add a string field for the customer's name.", tools=[tool], strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == [("add_field", arguments)]
    assert result.text == "Added."


# --- class 5: invented observations, and Observation lines that are content --------------------------------


def test_react_a_bold_invented_observation_quoting_the_tool_is_discarded(run):
    text = (react_action("a") + "\n**Observation:** lookup returned \"a means 99\"\n"
            "**Thought:** I know it.\n**Final Answer:** a means 99")
    result = run([{"text": text}, answer_turn("ReAct", "a means 1.")], query="Look up a.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    assert result.text == "a means 1.", result.text
    assert "99" not in prompt_text(result.llm_requests[1]).split("lookup found a", 1)[-1]


ANSWER_WITH_LOG = ("Here is the format:\n\n```text\nThought: I should search.\nAction: lookup\n"
                   "Action Input: {\"q\": \"a\"}\nObservation: lookup found 1\n```\n\nThat is all.")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_observation_lines_in_a_code_block_of_a_final_answer_are_its_content(run, strategy):
    result = run([answer_turn(strategy, ANSWER_WITH_LOG)], query="Show me a ReAct trace.", tools=[lookup()],
                 strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert result.text == ANSWER_WITH_LOG, result.text
    run.backend.assert_complete()


# --- class 5: tool stream items of the wrong shape -----------------------------------------------------------

ODD_ITEMS = {
    "log label null": {"type": "log", "message": {"id": "x", "label": None, "parent_id": None, "error": None,
                                                  "status": "weird", "data": "text", "metadata": None}, "meta": None},
    "retriever resource no object": {"type": "retriever_resources",
                                     "message": {"retriever_resources": ["a", 1, None], "context": 5}, "meta": None},
    "text a number": {"type": "text", "message": {"text": 5}, "meta": None},
    "json object a string": {"type": "json", "message": {"json_object": "not an object"}, "meta": None},
    "variable name null": {"type": "variable", "message": {"variable_name": None, "variable_value": "v",
                                                           "stream": False}, "meta": None},
}

SKIPPED = {
    "log label null": "log message: label is null",
    "text a number": "text message: text is not a string",
    "variable name null": "variable message: variable_name is null",
}
"""What the tool's log says of each item it could not read (``prompts.INVALID_RESPONSE``)."""


@pytest.mark.parametrize("kind", list(ODD_ITEMS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_item_of_the_wrong_shape_keeps_the_rest_of_the_stream(run, strategy, kind):
    tool = lookup("report", responses=[text_message("first part"), ODD_ITEMS[kind], text_message("second part")])
    first = _as_call(strategy, "report", {"q": "a"}, "c1")
    result = run([first, answer_turn(strategy, "Done.")], query="Report.", tools=[tool], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen, seen[-1500:]
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    shown = json.dumps({"data": node.data, "error": node.error, "metadata": node.metadata}, default=str)
    assert "first part" in shown and "second part" in shown
    reason = SKIPPED.get(kind)
    if reason:  # the log names what was skipped and why
        assert "unreadable" in shown and reason in shown, shown[:2000]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_at_the_limit_is_asked_again_once_with_the_limit_still_said(run, strategy):
    turns = [good_call(strategy, "France"), cut_call(strategy), answer_turn(strategy, "Paris.")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "France"})]
    asked = prompt_text(result.llm_requests[2])
    assert "cut off" in asked and "Do not call any more tools" in asked, asked[-2500:]
    assert result.text == "Paris.", result.text
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_cut_replies_at_the_limit_end_with_the_output_limit_notice(run, strategy):
    turns = [good_call(strategy, "France"), cut_call(strategy), cut_call(strategy), answer_turn(strategy, "spare")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "France"})]
    assert CUT in result.text and "spare" not in result.text, result.text
    assert len(result.llm_requests) == 3


def test_react_a_thought_cut_at_the_limit_is_never_the_answer(run):
    turns = [good_call("ReAct", "France"), {"text": "Thought: lookup says the capital of France is", "finish_reason": "length"},
             answer_turn("ReAct", "Paris."), answer_turn("ReAct", "spare")]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy="ReAct", maximum_iterations=1)
    assert_clean_run(result)
    # the cut thought is asked again once (``AgentLoop._cut_asked_again``) and the answer is the reply's
    assert result.text == "Paris.", result.text
    assert len(result.llm_requests) == 3


# --- second pass: cuts beside the limit, a continuation's content -------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_the_only_round_allowed_is_still_continued(run, strategy):
    turns = [cut_answer(strategy, "The capital of France is"), {"text": " Paris."}]
    result = run(turns, query="Capital of France?", tools=[lookup()], strategy=strategy, maximum_iterations=1)
    assert_clean_run(result)
    assert result.text == "The capital of France is Paris.", result.text
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_observation_lines_in_the_code_block_a_cut_answers_rest_closes_are_content(run, strategy):
    start = "A trace:\n\n```text\nThought: I should search.\nAction: lookup"
    rest = '\nAction Input: {"q": "a"}\nObservation: lookup found a\n```\n\nThat is all.'
    result = run([cut_answer(strategy, start), {"text": rest}], query="Show a trace.", tools=[lookup()],
                 strategy=strategy)
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert result.text == start + rest, result.text


def test_fc_a_native_call_in_a_cut_answers_rest_is_not_run(run):
    calls = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}},
                            {"id": "c2", "name": "lookup", "arguments": {"q": "b"}}]}
    rest = {"text": " found.", "tool_calls": [{"id": "c3", "name": "lookup", "arguments": {"q": "c"}}]}
    result = run([calls, {"text": "Both were", "finish_reason": "length"}, rest, {"text": "spare"}],
                 query="Look up a and b.", tools=[lookup()])
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"}), ("lookup", {"q": "b"})]
    assert result.text.startswith("Both were found."), result.text
    assert "spare" not in result.text
    assert "lookup" in logs_json(result).split("calls_not_run_after_answer", 1)[-1][:200], logs_json(result)[-1500:]


def test_react_a_json_list_of_actions_cut_in_its_second_runs_neither(run):
    text = ('Thought: two.\nAction:\n```json\n[{"action": "lookup", "action_input": {"q": "a"}}, '
            '{"action": "lookup", "action_input": {"q": "b')
    turns = [{"text": text, "finish_reason": "length"}, {"text": react_action("a")}, answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up a and b.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    assert "cut off" in prompt_text(result.llm_requests[1])
    assert result.text == "Found."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_in_the_answer_asked_at_the_time_limit_is_asked_again_in_time(run, strategy):
    """A 3.5 s tool leaves no room for another round of a 10 s run: the answer is asked for, and
    the reply is a cut call. With time left for a reply, it is asked again, and the run answers."""
    slow = Lookup(name="lookup", description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                  latency=3.5)
    turns = [good_call(strategy, "France"), cut_call(strategy), answer_turn(strategy, "Paris."),
             answer_turn(strategy, "spare")]
    result = run(turns, query="Capital of France?", tools=[slow], strategy=strategy, params={"run_timeout": 10},
                 maximum_iterations=10)
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "France"})]
    assert any(n.label == "TIME LIMIT" for n in result.logs.values())
    assert result.text == "Paris.", result.text
