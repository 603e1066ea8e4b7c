"""Blind steps, wave 37 (issue 13, classes 4 and 5), through the real plugin process.

Designed first from the issue, the README, PLUGIN_README.md and docs/architecture.md alone (52
cases), then the earlier suites were read (``test_blind_*_wave3*.py``, ``test_cut_*.py``,
``test_red_team_wave3*``, ``test_fc_react_steps.py``, ``test_json_step_cut_wave34.py``,
``test_context_files_usage.py``) and what they run was dropped. What is left:

* Function Calling replies whose calls arrive as OpenAI-style deltas, the last call's arguments
  cut (``length``, or no reason and the usage at the limit): nothing runs, every call is
  answered, the calls asked for again run; and the same deltas with ``stop``, ``tool_calls`` or
  ``content_filter`` (no cut reason): the call whose JSON never closed is not run on a guess;
* a reply cut inside its reasoning block only (no answer text yet), in both strategies;
* ReAct's ``Final Answer:`` cut, and its continuation cut again with nothing;
* the continuation request's shape: the cut reply goes back intact (its reasoning block too);
* several actions: two identical ones (both run), two separated by an invented ``Observation:``
  (the second was dropped without a word in both strategies: now named to the model and the
  log, not run), an invented ``Observation:`` holding a fake ``Final Answer`` in a code block;
* schema echoes in other forms: JSON Schema with ``$schema``, an OpenAPI parameter list, a
  pydantic model dump, a parameter's own schema, in both strategies; YAML lines in ReAct (were
  sent to the tool as its text value);
* tool stream items: a JSON message whose object is a list, a variable message with no name, a
  text message holding a number or null, 10,000 unreadable items in one call;
* usage: currency missing, a unit price ``"abc"``, a negative total price, a huge integer;
* tool declarations: no ``llm_description`` or a null one, a ``dynamic-select`` without options
  (used), a ``file`` parameter without a form and a description without ``llm`` (Dify's own
  model requires both: left out, the field named in ``TOOL DROPPED``);
* a second pass: a cut last delta with neither index nor id, cut calls sent back with their
  reasoning and ids, a continuation writing ``Final Answer:`` again, an action for a tool
  ``allowed_tools`` leaves out, one round's unreadable price beside a readable one.
"""

from __future__ import annotations

import json
import time

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_run,
    assert_no_traceback,
    logs_json,
    prompt_text,
    tools_ran,
)


def lookup(name: str = "lookup", params: tuple[str, ...] = ("q",), responses=None) -> ScriptedTool:
    """``name(q)`` answering ``<name> found it``."""
    return ScriptedTool(name=name, description=f"Looks a word up ({name})",
                        parameters=[ToolParam(p, description=f"the {p}") for p in params],
                        responses=responses or [text_message(f"{name} found it")])


def react_call(q: str = "a", name: str = "lookup") -> str:
    return f'Thought: look it up.\nAction: {name}\nAction Input: {{"q": "{q}"}}'


def call_turn(strategy: str, q: str, call_id: str = "c9") -> dict:
    if strategy == "ReAct":
        return {"text": react_call(q)}
    return {"tool_calls": [{"id": call_id, "name": "lookup", "arguments": {"q": q}}]}


# --- Function Calling: calls as OpenAI-style deltas, the last one's arguments cut ------------------------


def delta_calls(*arguments: str) -> list[dict]:
    """Chunks of an OpenAI-style stream: call ``i`` opens with its id and name in one delta, its
    arguments follow in two more."""
    chunks = []
    for i, args in enumerate(arguments):
        chunks.append({"tool_calls": [{"index": i, "id": f"call_{i}", "type": "function",
                                       "function": {"name": "lookup", "arguments": ""}}]})
        half = len(args) // 2
        for piece in (args[:half], args[half:]):
            chunks.append({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    return chunks


CUT_SPELLINGS = {
    "openai length": {"finish_reason": "length"},
    "none, usage at the limit": {"finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": 1024}},
}


@pytest.mark.parametrize("spelling", list(CUT_SPELLINGS))
def test_fc_deltas_whose_last_call_is_cut_run_nothing_and_the_calls_asked_again_run(run, spelling):
    first = {"chunks": delta_calls('{"q": "a"}', '{"q": "b"}', '{"q": "Pari'), **CUT_SPELLINGS[spelling]}
    again = {"tool_calls": [{"id": "c3", "name": "lookup", "arguments": {"q": "a"}},
                            {"id": "c4", "name": "lookup", "arguments": {"q": "Paris"}}]}
    result = run([first, again, {"text": "Found."}], query="Look up a, b and Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "a"}), ("lookup", {"q": "Paris"})]
    answered = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["call_0", "call_1", "call_2"]
    assert all("cut off by the output limit" in m["content"] for m in answered)
    run.backend.assert_complete()


@pytest.mark.parametrize("reason", ["stop", "content_filter", "tool_calls"])
def test_fc_a_call_whose_json_never_closed_is_not_run_on_a_guess_whatever_the_reason(run, reason):
    first = {"chunks": delta_calls('{"q": "a"}', '{"q": "Pari'), "finish_reason": reason}
    again = {"tool_calls": [{"id": "c4", "name": "lookup", "arguments": {"q": "Paris"}}]}
    result = run([first, again, {"text": "Found."}], query="Look up a and Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "Found."
    assert ("lookup", {"q": "Pari"}) not in tools_ran(result)
    assert tools_ran(result)[-1] == ("lookup", {"q": "Paris"})
    run.backend.assert_complete()


# --- a cut inside the reasoning block, before any answer ---------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("reasoning", ["<think>\n\n", "<think>Plan: answer.</think>\n"],
                         ids=["just opened", "closed, no text"])
def test_a_reply_cut_in_its_reasoning_is_asked_again_and_the_reasoning_never_shown(run, strategy, reasoning):
    result = run([{"text": reasoning, "finish_reason": "length", "split": 7}, answer_turn(strategy, "Paris.")],
                 query="Capital of France?", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Paris."
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])
    run.backend.assert_complete()


# --- ReAct: Final Answer: and nothing after it -------------------------------------------------------------


def test_react_final_answer_label_cut_and_no_rest_ends_with_a_clear_message(run):
    result = run([{"text": "Thought: I know it.\nFinal Answer:", "finish_reason": "length"},
                  {"text": "", "finish_reason": "length"}], query="Capital of France?", strategy="ReAct")
    assert_no_traceback(result)
    shown = (result.text or "") + (result.error_text or "")
    assert "output limit" in shown
    assert "Final Answer" not in (result.text or "")


# --- the continuation request: the cut reply goes back intact ----------------------------------------------


def test_fc_continuation_sends_the_cut_reply_back_intact_with_its_reasoning(run):
    cut_content = "<think>They want the capital.</think>The capital of France is"
    result = run([{"text": cut_content, "finish_reason": "length", "split": 6}, {"text": " Paris."}],
                 query="Capital of France?")
    assert_clean_run(result)
    assert result.text == "The capital of France is Paris."
    second = result.llm_requests[1]["prompt_messages"]
    assistants = [m for m in second if m["role"] == "assistant"]
    assert assistants and assistants[-1]["content"] == cut_content
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    assert second.index(assistants[-1]) < len(second) - 1, "the request ends with the cut reply, no instruction"


def test_react_continuation_keeps_the_cut_answers_text_in_the_request(run):
    start = "Thought: I know it.\nFinal Answer: The three laws are: one, two"
    result = run([{"text": start, "finish_reason": "length"}, {"text": ", and three."}],
                 query="List the laws.", strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "The three laws are: one, two, and three."
    assert "The three laws are: one, two" in prompt_text(result.llm_requests[1])


# --- ReAct: several actions of one reply ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_identical_calls_of_one_reply_both_run_in_order_each_answered(run, strategy):
    # decided: both run (a die rolled twice, a counter bumped twice are meant twice); a loop across
    # rounds is the repeat guard's, after three identical results
    if strategy == "ReAct":
        first = {"text": react_call("a") + "\n\n" + react_call("a")}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": {"q": "a"}} for n in (1, 2)]}
    result = run([first, answer_turn(strategy, "Found.")], query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "a"})] * 2
    assert prompt_text(result.llm_requests[1]).count("lookup found it") == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_react_actions_separated_by_an_invented_observation_run_the_first_and_name_the_rest(run, strategy):
    # the second action acts on a result the model made up: not run, but the model and the log are told
    # (was dropped without a word: not in the prompt, not in the log)
    text = react_call("a") + "\nObservation: INVENTED-RESULT-7\nThought: now b.\nAction: lookup\nAction Input: {\"q\": \"b\"}"
    result = run([{"text": text}, answer_turn(strategy, "Found.")], query="Look up a then b.",
                 tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result)[0] == ("lookup", {"q": "a"})
    told = prompt_text(result.llm_requests[1])
    assert "lookup found it" in told
    if strategy == "ReAct":  # Function Calling sends the reply back as it came (the call's own message)
        assert "INVENTED-RESULT-7" not in told
    if len(tools_ran(result)) == 1:
        assert "1 action(s) written there were not run (lookup)" in told
        thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
        assert thought.data.get("calls_not_run_after_action") == "1: lookup"


def test_react_invented_observation_holding_a_fake_final_answer_in_code_runs_the_action_and_hides_it(run):
    text = react_call("a") + "\nObservation: ```\nFinal Answer: FAKE-42\n```\nThought: done.\nFinal Answer: FAKE-42"
    result = run([{"text": text}, answer_turn("ReAct", "It is found.")], query="Look up a.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "It is found."
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    assert "FAKE-42" not in result.text


def test_react_action_after_a_fake_answer_in_code_in_an_invented_observation_is_named_not_run(run):
    text = react_call("a") + '\nObservation: ```\nFinal Answer: FAKE-42\n```\nThought: now b.\n' + react_call("b")
    result = run([{"text": text}, answer_turn("ReAct", "It is found.")], query="Look up a.", tools=[lookup()],
                 strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "It is found."
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = prompt_text(result.llm_requests[1])
    assert "1 action(s) written there were not run (lookup)" in told and "FAKE-42" not in told


# --- schema echoes in other forms --------------------------------------------------------------------------

ECHOES = {
    "JSON Schema with $schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                 "properties": {"q": {"type": "string", "description": "the q"}},
                                 "required": ["q"]},
    "OpenAPI parameter list": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string"},
                                "description": "the q"}],
    "pydantic model dump": {"title": "LookupInput", "type": "object",
                            "properties": {"q": {"title": "Q", "type": "string"}}, "required": ["q"]},
    "per-parameter schema": {"q": {"title": "Q", "type": "string", "description": "the q"}},
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("form", list(ECHOES))
def test_a_schema_echo_in_other_forms_is_refused_with_the_reason(run, strategy, form):
    echo = ECHOES[form]
    if strategy == "ReAct":
        first = {"text": f"Thought: look it up.\nAction: lookup\nAction Input: {json.dumps(echo)}"}
    else:
        first = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": json.dumps(echo)}]}
    result = run([first, call_turn(strategy, "Paris"), answer_turn(strategy, "Found.")],
                 query="Look up Paris.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    assert "schema" in prompt_text(result.llm_requests[1])
    run.backend.assert_complete()


def test_react_a_yaml_schema_echo_is_not_run(run):
    first = {"text": "Thought: look it up.\nAction: lookup\nAction Input:\nq:\n  type: string\n  description: the q\n"}
    result = run([first, call_turn("ReAct", "Paris"), answer_turn("ReAct", "Found.")],
                 query="Look up Paris.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Found."
    assert all(isinstance(p.get("q"), str) and "type" not in p["q"] for _, p in tools_ran(result)), tools_ran(result)


# --- tool stream items of odd shapes -----------------------------------------------------------------------

ODD_ITEMS = {
    "json object a list": json_message([{"city": "Paris"}, {"city": "Lyon"}]),
    "variable without a name": {"type": "variable", "message": {"variable_value": "v", "stream": False},
                                "meta": None},
    "variable name null": {"type": "variable", "message": {"variable_name": None, "variable_value": "v",
                                                            "stream": True}, "meta": None},
    "text a number": {"type": "text", "message": {"text": 12345}, "meta": None},
    "text null": {"type": "text", "message": {"text": None}, "meta": None},
}


@pytest.mark.parametrize("kind", list(ODD_ITEMS))
def test_an_odd_tool_stream_item_keeps_the_rest_of_the_stream(run, kind):
    responses = [text_message("first part"), ODD_ITEMS[kind], text_message("second part")]
    tool = lookup("report", responses=responses)
    turns = [{"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}, {"text": "Done."}]
    result = run(turns, query="Report.", tools=[tool])
    assert_clean_run(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    shown = json.dumps([node.data, node.error], default=str)
    if kind == "json object a list":  # a list is a JSON message's object too (the SDK's Mapping | list)
        assert "Lyon" in seen and "Lyon" in shown
    else:  # reported in the CALL node with the field at fault, and to the model
        field = "variable_name" if kind.startswith("variable") else "text is"
        assert field in shown and field in seen


def test_ten_thousand_unreadable_items_are_reported_in_bounded_lines_and_the_text_kept(run):
    bad = [{"type": "blob", "message": {"blob": None}, "meta": None}] * 5000 + \
          [{"type": "nonsense", "message": {"x": 1}, "meta": None}] * 5000
    tool = lookup("report", responses=[text_message("first part"), *bad, text_message("second part")])
    turns = [{"tool_calls": [{"id": "c1", "name": "report", "arguments": {"q": "a"}}]}, {"text": "Done."}]
    started = time.monotonic()
    result = run(turns, query="Report.", tools=[tool], timeout=90)
    assert_clean_run(result)
    assert result.text == "Done."
    seen = prompt_text(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen
    assert len(seen) < 200_000, "the model read every unreadable item"
    (node,) = [n for n in result.logs.values() if n.label == "CALL report"]
    assert "blob" in json.dumps([node.data, node.error, node.metadata], default=str)
    assert time.monotonic() - started < 30


# --- usage and prices ---------------------------------------------------------------------------------------

BASE_USAGE = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": "0.001", "completion_price": "0.002",
              "total_price": "0.003", "currency": "USD"}


def _json_numbers_ok(value) -> bool:
    text = json.dumps(value, allow_nan=False)
    return "Infinity" not in text


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("kind", "usage"), [
    ("currency missing", {k: v for k, v in BASE_USAGE.items() if k != "currency"}),
    ("currency null", {**BASE_USAGE, "currency": None}),
    ("unit price abc", {**BASE_USAGE, "completion_unit_price": "abc"}),
    ("total price negative", {**BASE_USAGE, "total_price": "-5"}),
    ("total price a huge integer", {**BASE_USAGE, "total_price": 10 ** 40}),
    ("prompt price a huge integer string", {**BASE_USAGE, "prompt_price": "9" * 400}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_odd_prices_keep_the_answer_and_name_what_cannot_be_read(run, strategy, kind, usage):
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Hi."
    metadata = result.execution_metadata or {}
    assert _json_numbers_ok(metadata), metadata
    if kind == "unit price abc":
        assert "completion_unit_price" in logs_json(result)
    if kind == "currency missing":
        assert metadata.get("currency") in ("USD", "", None)


# --- tool declarations as Dify sends them ------------------------------------------------------------------


def declared(tool: ScriptedTool, change) -> ScriptedTool:
    entity_of = tool.entity

    def entity():
        entity = entity_of()
        change(entity)
        return entity

    object.__setattr__(tool, "entity", entity)
    return tool


def _param(**changes):
    def change(entity):
        entity["parameters"][0].update(changes)
        for key, value in changes.items():
            if value is _DROP:
                del entity["parameters"][0][key]
    return change


_DROP = object()

DECLARATIONS = {  # change, None when the tool must stay offered, else the field its TOOL DROPPED node names
    "no llm_description": (_param(llm_description=_DROP), None),
    "llm_description null": (_param(llm_description=None), None),
    "file parameter without a form": (lambda e: e["parameters"].append(
        {**e["parameters"][0], "name": "doc", "type": "file", "required": False, "form": None}), "form"),
    "dynamic-select without options": (lambda e: e["parameters"].append(
        {**e["parameters"][0], "name": "mode", "type": "dynamic-select", "required": False, "options": None}), None),
    # a missing text for the model is mended from the human description (agent_core/tool_texts.py)
    "description without llm": (lambda e: e["description"].pop("llm"), None),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", list(DECLARATIONS))
def test_a_declaration_as_dify_sends_it_is_used_or_named_in_the_log(run, strategy, kind):
    change, field = DECLARATIONS[kind]
    result = run([call_turn(strategy, "Paris"), answer_turn(strategy, "Found.")], query="Look up Paris.",
                 tools=[declared(lookup(), change)], strategy=strategy)
    assert_clean_run(result)
    dropped = [n for n in result.logs.values() if n.label == "TOOL DROPPED lookup"]
    if field is None:
        assert not dropped, logs_json(result)
        assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    else:  # Dify's own model requires the field: never sent so by Dify; left out, named with the field at fault
        (node,) = dropped
        assert field in str(node.error)
        assert tools_ran(result) == []


# --- second pass: more angles ---------------------------------------------------------------------------


def test_fc_deltas_whose_cut_last_call_has_no_index_nor_id_run_nothing(run):
    chunks = [*delta_calls('{"q": "a"}'), {"tool_calls": [{"function": {"name": "lookup", "arguments": '{"q": "Pa'}}]}]
    again = {"tool_calls": [{"id": "c4", "name": "lookup", "arguments": {"q": "Paris"}}]}
    result = run([{"chunks": chunks, "finish_reason": "length"}, again, {"text": "Found."}],
                 query="Look up a and Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]
    assert result.text == "Found."


def test_fc_cut_calls_go_back_with_their_reasoning_and_ids_intact(run):
    content = "<think>Two look-ups are needed.</think>"
    first = {"chunks": [{"content": content}, *delta_calls('{"q": "a"}', '{"q": "Pa')], "finish_reason": "length"}
    again = {"tool_calls": [{"id": "c4", "name": "lookup", "arguments": {"q": "a"}}]}
    result = run([first, again, {"text": "Found."}], query="Look up a and Paris.", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "Found."
    messages = result.llm_requests[1]["prompt_messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant"]
    assert assistant["content"] == content
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_0", "call_1"]
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["call_0", "call_1"]


def test_react_continuation_that_writes_the_final_answer_label_again_shows_only_the_answer(run):
    result = run([{"text": "Thought: I know it.\nFinal Answer:", "finish_reason": "length"},
                  {"text": "Final Answer: Paris."}], query="Capital of France?", strategy="ReAct")
    assert_clean_run(result)
    assert result.text.strip() == "Paris."


def test_react_action_naming_a_node_tool_left_out_by_allowed_tools_is_not_run(run):
    text = react_call("a") + "\n\n" + react_call("b", name="other")
    result = run([{"text": text}, answer_turn("ReAct", "Found.")], query="Look up a.",
                 tools=[lookup(), lookup("other")], strategy="ReAct", params={"allowed_tools": ["lookup"]})
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = prompt_text(result.llm_requests[1])
    assert "lookup found it" in told and "'other'" in told


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_unreadable_price_in_one_round_keeps_the_runs_sums_finite_and_the_other_rounds(run, strategy):
    bad = {**BASE_USAGE, "completion_unit_price": "abc", "total_price": "abc"}
    good = {**BASE_USAGE, "total_price": "0.5"}
    turns = [{**call_turn(strategy, "a"), "usage": bad}, {**answer_turn(strategy, "Found."), "usage": good}]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    metadata = result.execution_metadata or {}
    assert _json_numbers_ok(metadata)
    assert float(metadata.get("total_price", 0)) >= 0.5 - 1e-9
    assert "total_price" in logs_json(result)
