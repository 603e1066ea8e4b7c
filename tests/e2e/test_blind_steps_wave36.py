"""Blind steps, wave 36 (issue 13, classes 4 and 5), through the real plugin process.

Cases designed first from the issue, the README, PLUGIN_README.md and docs/architecture.md alone
(56 of them: finish-reason spellings as the SDK's ``LLMResultChunkDelta`` carries them from the
official model plugins, a cut inside each part of a ReAct step, continuations cut again or begun
anew, a model cut on every request, several actions of one reply, schema echoes, JSON steps,
Function Calling replies with text and calls, multi-round sessions with memory); then those the
earlier suites run (``test_blind_*_wave3*.py``, ``test_cut_*.py``, ``test_red_team_wave3*_cut.py``,
``test_json_step_cut_wave34.py``, ``test_fc_react_steps.py``, ``test_red_team_wave33_steps.py``)
were dropped. What is left:

* a finish reason sent as a list or padded with spaces, the Gemini plugin's enum number, and a
  ``content_filter`` stop that is no cut;
* a ReAct reply cut inside a label (``Act``, ``Final Ans``), inside the thought, inside a tool's
  name that starts another tool's name, inside a JSON key, a number, an escape, right before the
  closing fence, inside an invented ``Observation`` label after a whole action, and inside an
  answer that shows an action as an example;
* a call written as code (``lookup(q='a``, Llama's ``[a(x=1), b(y=``, a ```tool_code block) cut
  by the limit, or a ```tool_code block never closed, in both strategies (was shown as the answer,
  and continued); LangChain's ``Action: Final Answer`` cut inside its ``Action Input`` (was shown,
  then asked for again from scratch);
* continuations that restart the answer and are cut again, and that write on into an invented
  ``Observation:``;
* a model cut on every request (only thoughts; text and calls);
* several actions of one reply: one with input that is no JSON, two JSON actions back to back in
  one block, a repeated and an unknown one with an invented observation and answer after them, a
  second ``Action Input:`` under one ``Action:`` (was dropped without a word), an input with an
  unpaired backtick (its JSON was sent as text), JSON steps written one after another (were
  refused together);
* a tool with a parameter named ``type`` given its own schema (refused) or values (run), and the
  tool's schema with its values filled in (run with those values);
* a JSON step's answer cut inside a ``\\u`` escape;
* Function Calling's content holding a whole ``<tool_call>`` in a cut reply;
* rounds mixing a call, a cut step, a call and a cut answer, after memory holding an earlier cut
  answer and a call whose arguments were cut;
* the answer asked for at the run's time limit answered with a call.
"""

from __future__ import annotations

import json

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import (
    STRATEGIES,
    answer_turn,
    assert_clean_run,
    assert_no_traceback,
    prompt_text,
    tools_ran,
)

LIMIT = 64


def lookup(name: str = "lookup", latency: float = 0.0, params: tuple[str, ...] = ("q",)) -> ScriptedTool:
    """``name(q)`` answering ``<name> found it`` after ``latency`` seconds."""
    return ScriptedTool(name=name, description=f"Looks a word up ({name})",
                        parameters=[ToolParam(p, description=f"the {p}") for p in params],
                        responses=[text_message(f"{name} found it")], latency=latency)


def react_call(q: str = "a", name: str = "lookup") -> str:
    return f'Thought: look it up.\nAction: {name}\nAction Input: {{"q": "{q}"}}'


def cut(turn: dict, reason: str | list | None = "length") -> dict:
    return {**turn, "finish_reason": reason}


# --- finish reasons as a plugin may carry them ----------------------------------------------------------


@pytest.mark.parametrize("reason", [["length"], "  MAX_TOKENS  ", "max_tokens\r\n"], ids=["list", "padded", "crlf"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_reason_sent_as_a_list_or_padded_is_a_cut(run, strategy, reason):
    first = cut(answer_turn(strategy, "The three laws are: one, two"), reason)
    result = run([first, {"text": ", and three."}], query="List the laws.", strategy=strategy)
    assert_clean_run(result)
    assert result.text == "The three laws are: one, two, and three."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_gemini_plugins_enum_number_for_max_tokens_is_a_cut(run, strategy):
    gemini = {"provider": "langgenius/gemini/google", "model": "gemini-3-flash-preview"}
    first = cut(answer_turn(strategy, "The three laws are: one, two"), "2")
    result = run([first, {"text": ", and three."}], query="List the laws.", strategy=strategy, model=gemini)
    assert_clean_run(result)
    assert result.text == "The three laws are: one, two, and three."


@pytest.mark.parametrize("reason", ["content_filter", "SAFETY", "end_turn"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_stop_that_is_no_cut_is_not_continued(run, strategy, reason):
    """Not asked for again; since the forty-fourth real-world pass an answer the provider's content
    filter stopped (``content_filter``, Google's ``SAFETY``) ends with a notice that says so."""
    result = run([cut(answer_turn(strategy, "Here is what I can say."), reason)], query="Tell me.", strategy=strategy)
    assert_clean_run(result)
    notice = "" if reason == "end_turn" else "\n\n" + prompts.ANSWER_FILTERED.format(reason=reason)
    assert result.text == "Here is what I can say." + notice
    assert len(result.llm_requests) == 1
    run.backend.assert_complete()


# --- ReAct: a cut inside each part of a step ------------------------------------------------------------

STEP_CUTS = {
    "inside the Action label": "Thought: I will look it up.\nAct",
    "inside the thought": "Thought: I will look it up, because the user wants",
    "inside a tool name that starts another": "Thought: I will look it up.\nAction: look",
    "inside a JSON key": 'Thought: I will look it up.\nAction: lookup\nAction Input: {"q',
    "inside a number": 'Thought: I will look it up.\nAction: lookup\nAction Input: {"q": "a", "limit": 12',
    "inside an escape": 'Thought: I will look it up.\nAction: lookup\nAction Input: {"q": "caf\\u00',
    "after a backslash": 'Thought: I will look it up.\nAction: lookup\nAction Input: {"q": "a\\',
    "before the closing fence": 'Thought: I will look it up.\nAction:\n```json\n{"action": "look", "action_input": {"q": "a"}}\n``',
    "inside the input's backticks": 'Thought: I will look it up.\nAction: look\nAction Input: `{"q": "a"}',
    "inside an invented Observation label": 'Thought: I will look it up.\nAction: look\nAction Input: {"q": "a"}\nObserv',
    "inside a think block": '<think>The user wants a; I should call look with',
    "inside the Final Answer label": "Thought: I know it.\nFinal Ans",
}


@pytest.mark.parametrize("text", list(STEP_CUTS.values()), ids=list(STEP_CUTS))
def test_react_step_cut_anywhere_runs_nothing_shows_nothing_and_asks_again(run, text):
    tools = [lookup("look"), lookup("lookup", params=("q", "limit"))]
    turns = [cut({"text": text, "split": 5}), {"text": react_call("a", "look")}, answer_turn("ReAct", "Found.")]
    result = run(turns, query="Look up a.", tools=tools, strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("look", {"q": "a"})]
    told = prompt_text(result.llm_requests[1])  # asked again (REPLY_CUT), or the whole action answered "not run"
    assert prompts.REPLY_CUT in told or "cut off by the output limit" in told
    run.backend.assert_complete()


@pytest.mark.parametrize(("start", "rest"), [('"The three laws are: one, two', ', and three."'),
                                             ("The three laws are: one, two", ", and three.")],
                         ids=["quoted", "bare"])
def test_react_langchain_final_answer_action_cut_inside_its_input_is_continued(run, start, rest):
    """LangChain's answer written as an action (``Action: Final Answer`` / ``Action Input: ...``)
    cut inside its text: that text was the answer shown, so its rest is asked for, not a new
    reply (which would show the answer twice); the quote the rest closes is not the answer's."""
    first = cut({"text": f"Thought: I know it.\nAction: Final Answer\nAction Input: {start}"})
    result = run([first, {"text": rest}], query="List the laws.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "The three laws are: one, two, and three."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    run.backend.assert_complete()


CODE_CALLS = {
    "tool_code block": "```tool_code\nlookup(q='a",
    "tool_code block after a sentence": "Let me check.\n```tool_code\nprint(default_api.lookup(q='a",
    "code call": "lookup(q='a",
    "list of code calls": "[lookup(q='a'), lookup(q='b",
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("text", list(CODE_CALLS.values()), ids=list(CODE_CALLS))
def test_a_call_written_as_code_cut_is_neither_shown_nor_run_nor_continued(run, strategy, text):
    again = ({"text": react_call("a")} if strategy == "ReAct"
             else {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]})
    turns = [cut({"text": text, "split": 4}), again, answer_turn(strategy, "Found.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert "lookup(" not in result.text and "tool_code" not in result.text, result.text
    assert result.text.endswith("Found.")
    assert tools_ran(result) == [("lookup", {"q": "a"})]
    told = prompt_text(result.llm_requests[1])
    assert prompts.REPLY_CUT in told and prompts.CONTINUE_CUT_ANSWER not in told
    run.backend.assert_complete()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_code_block_that_never_closes_is_asked_again_not_shown(run, strategy):
    """Not cut (``stop``): a ```tool_code block naming a tool, never closed, is a broken call."""
    again = ({"text": react_call("a")} if strategy == "ReAct"
             else {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]})
    turns = [{"text": "```tool_code\nlookup(q='a"}, again, answer_turn(strategy, "Found.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "a"})]


def test_react_answer_showing_an_action_example_cut_inside_it_is_continued_and_runs_nothing(run):
    start = 'Final Answer: Write the step as:\n```json\n{"action": "lookup", "action_input": {"q": "a'
    rest = '"}}\n```\nThat is all.'
    result = run([cut({"text": "Thought: I can explain.\n" + start}), {"text": rest}],
                 query="How do I write a step?", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == []
    assert result.text == start.removeprefix("Final Answer: ") + rest
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])


# --- continuations --------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_restarts_and_is_cut_again_shows_the_answer_once_with_the_notice(run, strategy):
    first = cut(answer_turn(strategy, "The three laws are: one"))
    again = cut({"text": ("Final Answer: " if strategy == "ReAct" else "") + "The three laws are: one, two, thr"})
    result = run([first, again], query="List the laws.", strategy=strategy)
    assert_clean_run(result)
    assert result.text.count("The three laws") == 1, result.text
    assert result.text.startswith("The three laws are: one, two, thr")
    assert prompts.ANSWER_CUT_OFF in result.text
    run.backend.assert_complete()


def test_a_react_continuation_writing_on_into_an_invented_observation_ends_before_it(run):
    """(Function Calling's answer is plain text: an "Observation:" there is the answer's own.)"""
    first = cut(answer_turn("ReAct", "The three laws are: one, two"))
    rest = {"text": ", and three.\nObservation: the user thanks you.\nThought: done.\nFinal Answer: bye"}
    result = run([first, rest], query="List the laws.", strategy="ReAct", tools=[lookup()])
    assert_clean_run(result)
    assert result.text == "The three laws are: one, two, and three."
    assert tools_ran(result) == []


# --- a model cut on every request -----------------------------------------------------------------------


def test_react_model_cut_on_every_request_inside_its_thought_ends_with_the_notice(run):
    turns = [cut({"text": "Thought: I need to check the"}) for _ in range(6)]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy="ReAct")
    assert_no_traceback(result)
    assert result.unfinished_logs() == []
    assert len(result.llm_requests) <= 3
    assert tools_ran(result) == []
    shown = (result.text or "") + (result.error_text or "")
    assert "output limit" in shown, shown
    assert "I need to check the" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_model_cut_on_every_request_with_text_and_calls_runs_nothing_and_ends_clearly(run, strategy):
    if strategy == "ReAct":
        turn = cut({"text": "I will check.\n" + react_call()})
    else:
        turn = cut({"text": "I will check.", "tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "a"}}]})
    result = run([turn] * 6, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_no_traceback(result)
    assert result.unfinished_logs() == []
    assert tools_ran(result) == []
    assert len(result.llm_requests) <= 3
    shown = (result.text or "") + (result.error_text or "")
    assert "output limit" in shown, shown


# --- several actions in one ReAct reply ----------------------------------------------------------------


def test_react_two_good_actions_and_one_whose_input_is_no_json(run):
    reply = (react_call("a") + '\nAction: lookup\nAction Input: {"q": b c ]]}\n'
             + 'Action: lookup\nAction Input: {"q": "c"}')
    turns = [{"text": reply}, answer_turn("ReAct", "Done.")]
    result = run(turns, query="Look up a, b and c.", tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Done."
    params = [p for _, p in tools_ran(result)]
    assert {"q": "a"} in params and params[0] == {"q": "a"}
    told = prompt_text(result.llm_requests[1])
    if {"q": "c"} not in params:
        assert "not run" in told or "was not run" in told, told[-800:]
    assert "b c" in told or "JSON" in told or "json" in told, told[-800:]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_second_action_input_under_one_action_runs_too(run, strategy):
    """``Action: lookup`` then two ``Action Input:`` lines: two calls of that tool, in order; the
    second was dropped without a word (ReAct) or the step shown as the answer (Function Calling)."""
    reply = 'Thought: both.\nAction: lookup\nAction Input: {"q": "a"}\nAction Input: {"q": "b"}'
    result = run([{"text": reply}, answer_turn(strategy, "Both.")], query="Look up a and b.",
                 tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Both."
    assert [p for _, p in tools_ran(result)] == [{"q": "a"}, {"q": "b"}]


def test_react_action_input_with_an_unpaired_backtick_reads_its_json(run):
    reply = 'Thought: look.\nAction: lookup\nAction Input: `{"q": "Paris"}'
    result = run([{"text": reply}, answer_turn("ReAct", "Found.")], query="Look up Paris.",
                 tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]


def test_json_steps_written_one_after_another_run_in_order(run):
    one = json.dumps({"action": "lookup", "action_input": {"q": "a"}})
    two = json.dumps({"action": "lookup", "action_input": {"q": "b"}})
    turns = [{"text": one + "\n" + two}, {"text": json.dumps({"action": "Final Answer", "action_input": "Both."})}]
    result = run(turns, query="Look up a and b.", tools=[lookup()], strategy="ReAct",
                 model={"features": ["structured-output"]})
    assert_clean_run(result)
    assert result.text == "Both."
    assert [p for _, p in tools_ran(result)] == [{"q": "a"}, {"q": "b"}]


@pytest.mark.parametrize("joiner", ["\n", "", "\n\n"], ids=["newline", "glued", "blank-line"])
def test_react_two_json_actions_back_to_back_in_one_block_run_both_in_order(run, joiner):
    one = json.dumps({"action": "lookup", "action_input": {"q": "a"}})
    two = json.dumps({"action": "lookup", "action_input": {"q": "b"}})
    reply = f"Thought: both.\nAction:\n```json\n{one}{joiner}{two}\n```"
    result = run([{"text": reply}, answer_turn("ReAct", "Both.")], query="Look up a and b.",
                 tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Both."
    assert [p for _, p in tools_ran(result)] == [{"q": "a"}, {"q": "b"}]


def test_react_repeated_and_unknown_actions_then_an_invented_answer(run):
    reply = (react_call("a") + "\n" + react_call("a") + "\n" + react_call("z", "nosuch")
             + "\nObservation: found both.\nThought: done.\nFinal Answer: Invented.")
    result = run([{"text": reply}, answer_turn("ReAct", "Real.")], query="Look up a.",
                 tools=[lookup()], strategy="ReAct")
    assert_clean_run(result)
    assert result.text == "Real."
    assert "Invented" not in result.text
    assert ("lookup", {"q": "a"}) in tools_ran(result)
    told = prompt_text(result.llm_requests[1])
    assert "nosuch" in told
    assert "found both" not in told.split("Observation:", 1)[-1] or "lookup found it" in told


# --- a parameter named like a schema key ----------------------------------------------------------------


def ticket() -> ScriptedTool:
    return ScriptedTool(name="file_ticket", description="Files a ticket",
                        parameters=[ToolParam("type", description="bug or feature"),
                                    ToolParam("description", description="what happened")],
                        responses=[text_message("ticket 7 filed")])


SCHEMA_ITSELF = {"type": "object", "properties": {"type": {"type": "string", "description": "bug or feature"},
                                                  "description": {"type": "string", "description": "what happened"}},
                 "required": ["type", "description"]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_tool_with_a_type_parameter_given_its_own_schema_is_refused_then_values_run(run, strategy):
    values = {"type": "bug", "description": "the app crashes"}

    def call(arguments, n):
        if strategy == "ReAct":
            return {"text": f"Thought: file it.\nAction: file_ticket\nAction Input: {json.dumps(arguments)}"}
        return {"tool_calls": [{"id": f"c{n}", "name": "file_ticket", "arguments": arguments}]}

    turns = [call(SCHEMA_ITSELF, 1), call(values, 2), answer_turn(strategy, "Filed.")]
    result = run(turns, query="File a bug: the app crashes.", tools=[ticket()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Filed."
    assert [p for _, p in tools_ran(result)] == [values]
    assert "schema" in prompt_text(result.llm_requests[1]).lower()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_tools_schema_with_its_values_filled_in_runs_with_those_values(run, strategy):
    """``{"type": "object", "properties": {"q": "Paris"}}``: every value given, in the schema's
    shape; the schema itself (``{"q": {"type": "string"}}`` under ``properties``) stays refused."""
    filled = {"type": "object", "properties": {"q": "Paris"}, "required": ["q"]}
    if strategy == "ReAct":
        turn = {"text": f"Thought: look.\nAction: lookup\nAction Input: {json.dumps(filled)}"}
    else:
        turn = {"tool_calls": [{"id": "c1", "name": "lookup", "arguments": filled}]}
    result = run([turn, answer_turn(strategy, "Found.")], query="Look up Paris.", tools=[lookup()], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Found."
    assert tools_ran(result) == [("lookup", {"q": "Paris"})]


# --- JSON steps -----------------------------------------------------------------------------------------


def test_a_json_step_answer_cut_inside_an_escape_shows_no_half_escape(run):
    start = '{"action": "Final Answer", "action_input": "Caf\\u00'
    result = run([cut({"text": start}), {"text": "e9 au lait."}], query="Name a drink.",
                 strategy="ReAct", model={"features": ["structured-output"]})
    assert_no_traceback(result)
    assert result.unfinished_logs() == []
    assert "\\u00" not in (result.text or "")
    assert (result.text or "").startswith("Caf")


# --- Function Calling: a whole call in the content of a cut reply ---------------------------------------


def test_function_calling_whole_tool_call_tag_in_a_cut_reply_is_neither_run_nor_shown(run):
    content = 'Let me check.\n<tool_call>\n{"name": "lookup", "arguments": {"q": "a"}}\n</tool_call>'
    turns = [cut({"text": content}), {"tool_calls": [{"id": "c2", "name": "lookup", "arguments": {"q": "a"}}]},
             {"text": "Found."}]
    result = run(turns, query="Look up a.", tools=[lookup()])
    assert_clean_run(result)
    assert "<tool_call>" not in result.text
    assert result.text.endswith("Found.")
    assert tools_ran(result) == [("lookup", {"q": "a"})]


# --- multi-round sessions with memory -------------------------------------------------------------------


def memory(strategy: str) -> list[dict]:
    """An earlier turn whose answer ended with the cut notice, and one whose call's arguments were cut."""
    earlier = [{"role": "user", "content": "List the laws."},
               {"role": "assistant", "content": "The three laws are: one, two\n\n" + prompts.ANSWER_CUT_OFF}]
    if strategy == "function_calling":
        earlier += [{"role": "user", "content": "Look up Paris."},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"id": "old1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "Par'}}]},
                    {"role": "tool", "content": "lookup found it", "tool_call_id": "old1", "name": "lookup"},
                    {"role": "assistant", "content": "Paris found."}]
    return earlier


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rounds_of_a_call_a_cut_step_a_call_and_a_cut_answer_after_cut_memory(run, strategy):
    def call(q, n):
        if strategy == "ReAct":
            return {"text": react_call(q)}
        return {"tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": {"q": q}}]}

    if strategy == "ReAct":
        cut_step = cut({"text": 'Thought: and b.\nAction: lookup\nAction Input: {"q": "b'})
    else:
        cut_step = cut({"chunks": [{"tool_calls": [{"index": 0, "id": "c9", "type": "function",
                                                    "function": {"name": "lookup", "arguments": '{"q": "b'}}]}]})
    turns = [call("a", 1), cut_step, call("b", 3), cut(answer_turn(strategy, "Both words are")), {"text": " found."}]
    result = run(turns, query="Look up a and b.", tools=[lookup()], strategy=strategy,
                 history=memory(strategy), maximum_iterations=6)
    assert_clean_run(result)
    assert [p for _, p in tools_ran(result)] == [{"q": "a"}, {"q": "b"}]
    assert result.text == "Both words are found."
    assert "The three laws are: one, two" in prompt_text(result.llm_requests[0])
    run.backend.assert_complete()


# --- the answer asked for at the run's time limit -------------------------------------------------------


@pytest.mark.parametrize("steps", ["function_calling", "ReAct", "ReAct JSON steps"])
def test_the_time_limit_answer_answered_with_a_call_runs_nothing_and_ends_clearly(run, steps):
    def call(q, n):
        if steps == "ReAct JSON steps":
            return {"text": json.dumps({"action": "lookup", "action_input": {"q": q}})}
        if steps == "ReAct":
            return {"text": react_call(q)}
        return {"tool_calls": [{"id": f"c{n}", "name": "lookup", "arguments": {"q": q}}]}

    turns = [call("a", 1), call("b", 2), call("c", 3), call("d", 4)]
    json_steps = {"model": {"features": ["structured-output"]}} if steps == "ReAct JSON steps" else {}
    result = run(turns, query="Look up a.", tools=[lookup(latency=5.5)], strategy=steps.split()[0],
                 params={"run_timeout": 10}, timeout=30, **json_steps)
    assert_no_traceback(result)
    assert result.unfinished_logs() == []
    assert [p for _, p in tools_ran(result)] == [{"q": "a"}]
    assert result.duration < 10.5
    shown = (result.text or "") + (result.error_text or "")
    assert shown.strip(), "neither an answer nor an error"
