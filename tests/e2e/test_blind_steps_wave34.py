"""Wave 34, issue 13's classes 4 and 5 as an independent harness would try them, through the real
plugin process, in both strategies.

The cases were written from the issue, the README and docs/architecture.md before reading the
code; those the wave 32 and 33 suites already run (``test_red_team_wave3*_cut.py``,
``test_red_team_wave33_steps.py``, ``test_red_team_wave32_promises.py``,
``test_red_team_wave32_inputs.py``) were dropped. What is left: the other spellings official model
plugins use for a cut, a Function Calling reply cut inside an unclosed ``<think>``, a call's
arguments cut across streamed deltas, a blocking answer cut (known from its usage), three actions
of which the middle one names no tool, arguments that are a list of parameter schemas, an invented
``Observation:`` followed by another step or a final answer, a final answer followed by an action,
an action repeated in one reply, prices a model plugin sends in odd shapes, a tool stream with
items whose data is null or of the wrong type, and the run's deadline reached while one of three
parallel calls is still running.
"""

from __future__ import annotations

import base64
import json

import pytest

from agent_core import prompts
from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, observations, prompt_text

LIMIT = 64
NO_STREAMED_CALLS = ["tool-call", "multi-tool-call"]  # Function Calling then asks for a blocking reply


def cut(turn: dict, reason: str = "length") -> dict:
    return {**turn, "finish_reason": reason}


def lookup(name: str = "lookup", latency: float = 0.0, **kwargs) -> ScriptedTool:
    """``lookup(q)`` answering ``looked up`` after ``latency`` seconds."""
    return ScriptedTool(name=name, description="Looks a word up", parameters=[ToolParam("q", description="the word")],
                        responses=[text_message(f"{name} found it")], latency=latency, **kwargs)


def fenced(name: str, arguments) -> str:
    return "Action:\n```json\n" + json.dumps({"action": name, "action_input": arguments}) + "\n```"


def labelled(name: str, arguments) -> str:
    return f"Action: {name}\nAction Input: {json.dumps(arguments)}"


def call_turn(strategy: str, name: str, arguments, call_id: str = "c1") -> dict:
    if strategy == "ReAct":
        return {"text": "Thought: look it up.\n" + labelled(name, arguments)}
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith("Thought")]


def call_nodes(result, name: str) -> list:
    return [n for n in result.logs.values() if n.label == f"CALL {name}"]


def dumped(node) -> str:
    return json.dumps({"data": node.data, "error": node.error, "metadata": node.metadata}, ensure_ascii=False, default=str)


# --- class 4: each spelling of a cut --------------------------------------------------------------

SPELLINGS = ["max_tokens", "MAX_TOKENS", "FinishReason.MAX_TOKENS", "model_context_window_exceeded", "LENGTH",
             "Length"]


@pytest.mark.parametrize("reason", SPELLINGS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_under_each_spelling_is_continued(run, strategy, reason):
    """Anthropic and Bedrock send ``max_tokens`` (and ``model_context_window_exceeded``), Gemini
    ``MAX_TOKENS``, an older Vertex AI runner ``FinishReason.MAX_TOKENS``: each is a cut."""
    result = run([cut(answer_turn(strategy, "The sum is"), reason), {"text": " four."}], query="2+2?",
                 strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("reason", ["max_tokens", "MAX_TOKENS", "model_context_window_exceeded"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_under_each_spelling_is_not_run(run, strategy, reason):
    turns = [cut(call_turn(strategy, "lookup", {"q": "a"}), reason), call_turn(strategy, "lookup", {"q": "b"}, "c2"),
             answer_turn(strategy, "Done.")]
    result = run(turns, query="Look up b.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "b"}]
    assert "output limit" in prompt_text(result.llm_requests[1])
    assert result.text == "Done."


def test_function_calling_reply_cut_inside_an_unclosed_think_is_not_an_answer(run):
    reply = cut({"text": "<think>\nFirst I should look up the"})
    result = run([reply, reply], query="Weather?", tools=[lookup()])
    assert_clean_end(result)
    assert "First I should" not in result.text
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    assert result.tool_requests == [] and len(result.llm_requests) == 2


def test_a_call_whose_streamed_argument_deltas_the_limit_cut_is_not_run(run):
    """OpenAI-style deltas: the id and name first, the arguments in pieces, ``length`` on the
    piece that stops mid-string."""
    chunks = [
        {"content": "", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                        "function": {"name": "lookup", "arguments": ""}}]},
        {"content": "", "tool_calls": [{"index": 0, "function": {"arguments": '{"q": "al'}}]},
        {"content": "", "tool_calls": [{"index": 0, "function": {"arguments": "pha"}}], "finish_reason": "length"},
    ]
    turns = [{"chunks": chunks}, call_turn("function_calling", "lookup", {"q": "alphabet"}, "call_2"), {"text": "Done."}]
    result = run(turns, query="Look up alphabet.", tools=[lookup()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "alphabet"}]
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert "output limit" in told["call_1"]


def test_a_blocking_answer_cut_at_the_limit_is_continued(run):
    """Function Calling on a model without streamed calls asks for a blocking reply: no finish
    reason at all, the usage at the node's ``max_tokens``."""
    first = {"text": "The sum is", "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": LIMIT}}
    second = {"text": " four.", "finish_reason": None, "usage": {"prompt_tokens": 50, "completion_tokens": 3}}
    result = run([first, second], query="2+2?", tools=[lookup()],
                 model={"completion_params": {"temperature": 0.2, "max_tokens": LIMIT}, "features": NO_STREAMED_CALLS})
    assert_clean_end(result)
    assert [r["stream"] for r in result.llm_requests] == [False, False]
    assert result.text == "The sum is four."


# --- class 5: several actions in one reply -----------------------------------------------------------


@pytest.mark.parametrize("form", [fenced, labelled], ids=["fenced", "labelled"])
def test_react_three_actions_the_middle_one_unknown_none_dropped_silently(run, form):
    text = "Thought: three at once.\n" + "\n".join(
        [form("lookup", {"q": "a"}), form("teleport", {"to": "Mars"}), form("lookup", {"q": "c"})])
    turns = [{"text": text}, answer_turn("ReAct", "Done.")]
    result = run(turns, query="Look up a and c.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    ran = [r["tool_parameters"] for r in result.tool_requests]
    seen = prompt_text(result.llm_requests[1])
    assert "teleport" in seen  # the unknown one is answered
    if ran == [{"q": "a"}]:
        assert "not run" in seen.lower() or "not been run" in seen.lower()
    else:
        assert ran == [{"q": "a"}, {"q": "c"}]
    assert result.text == "Done."


def test_function_calling_three_calls_the_middle_one_unknown(run):
    calls = [{"id": "a", "name": "lookup", "arguments": {"q": "a"}},
             {"id": "b", "name": "teleport", "arguments": {"to": "Mars"}},
             {"id": "c", "name": "lookup", "arguments": {"q": "c"}}]
    result = run([{"tool_calls": calls}, {"text": "Done."}], query="Look up a and c.", tools=[lookup()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}, {"q": "c"}]
    told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
    assert set(told) == {"a", "b", "c"} and "teleport" in told["b"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_same_action_twice_in_one_reply_is_not_dropped_silently(run, strategy):
    if strategy == "ReAct":
        first = {"text": "Thought: look.\n" + fenced("lookup", {"q": "a"}) + "\n" + fenced("lookup", {"q": "a"})}
    else:
        first = {"tool_calls": [{"id": "a1", "name": "lookup", "arguments": {"q": "a"}},
                                {"id": "a2", "name": "lookup", "arguments": {"q": "a"}}]}
    result = run([first, answer_turn(strategy, "Done.")], query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert 1 <= len(result.tool_requests) <= 2
    if strategy == "function_calling":
        told = {m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"}
        assert set(told) == {"a1", "a2"} and all(text.strip() for text in told.values())
    assert result.text == "Done."


# --- class 5: arguments that are the schema -------------------------------------------------------

SCHEMA_LISTS = {
    "parameter list": [{"name": "q", "type": "string", "required": True, "description": "the word"}],
    "two parameter declarations": [{"name": "q", "type": "string", "description": "the word"},
                                   {"name": "limit", "type": "number", "description": "how many"}],
    "list of object schemas": [{"type": "object", "properties": {"q": {"type": "string", "description": "the word"}},
                                "required": ["q"]}],
}


@pytest.mark.parametrize("kind", list(SCHEMA_LISTS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_arguments_that_are_a_list_of_schemas_are_refused_with_the_reason(run, strategy, kind):
    turns = [call_turn(strategy, "lookup", SCHEMA_LISTS[kind]), call_turn(strategy, "lookup", {"q": "a"}, "c2"),
             answer_turn(strategy, "Done.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy=strategy)
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}], "the schema was sent as arguments"
    (told,) = observations(result.llm_requests[1])
    assert "schema" in told, told
    assert result.text == "Done."


# --- class 5: what a ReAct model writes after its step ----------------------------------------------


def test_react_invented_observation_then_final_answer_runs_the_action(run):
    text = ('Thought: look.\nAction: lookup\nAction Input: {"q": "a"}\nObservation: lookup says 42\n'
            "Thought: I know it now.\nFinal Answer: It is 42.")
    turns = [{"text": text}, answer_turn("ReAct", "lookup found it.")]
    result = run(turns, query="Look up a.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}]
    assert result.text == "lookup found it."
    assert "lookup found it" in prompt_text(result.llm_requests[1])


def test_react_invented_observation_then_another_action_runs_only_the_first(run):
    text = ('Thought: look.\nAction: lookup\nAction Input: {"q": "a"}\nObservation: lookup says 42\n'
            'Thought: now b.\nAction: lookup\nAction Input: {"q": "b"}')
    turns = [{"text": text}, answer_turn("ReAct", "Done.")]
    result = run(turns, query="Look up a then b.", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "a"}]
    assert "lookup says 42" not in result.text
    assert result.text == "Done."


def test_react_final_answer_then_an_action_keeps_the_answer_and_runs_nothing(run):
    text = 'Thought: I know.\nFinal Answer: Paris.\nThought: let me check.\nAction: lookup\nAction Input: {"q": "Paris"}'
    result = run([{"text": text}], query="Capital of France?", tools=[lookup()], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Paris."
    assert result.tool_requests == [] and len(result.llm_requests) == 1
    assert any("lookup" in dumped(node) for node in thoughts(result))  # the log says what was not run


# --- class 5: prices ---------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_price_given_as_a_decimal_string_is_counted(run, strategy):
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": "0.001", "completion_price": "0.0005",
             "total_price": "0.0015", "currency": "USD"}
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Hi."
    assert float(result.execution_metadata["total_price"]) == pytest.approx(0.0015)


@pytest.mark.parametrize("price", [None, "free", {}], ids=["null", "free", "object"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_unreadable_price_is_named_and_the_answer_kept(run, strategy, price):
    """``null`` is no price (counted as 0, as Dify does); ``"free"`` and ``{}`` are named in the
    model's Thought node (``usage_error``), counted as 0, and the run answers."""
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "prompt_price": price, "completion_price": "0.0005",
             "currency": "USD"}
    result = run([{**answer_turn(strategy, "Hi."), "usage": usage}], query="Hi", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Hi."
    (thought,) = thoughts(result)
    problem = thought.data.get("usage_error")
    if price is None:
        assert problem is None
    else:
        assert problem.startswith("usage field 'prompt_price' cannot be read"), problem
    assert result.execution_metadata["prompt_price"] == 0 and result.execution_metadata["completion_tokens"] == 2


# --- class 5: a tool stream with items the plugin cannot read ----------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tool_stream_items_with_null_or_wrong_data_are_reported_and_the_rest_kept(run, strategy):
    data = b"day,temp\nmon,21\n"
    responses = [
        text_message("first part"),
        {"type": "text", "message": None, "meta": None},
        {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
         "meta": {"filename": "temps.csv", "mime_type": "text/csv"}},
        {"type": "json", "message": 12345, "meta": None},
        {"type": "image", "message": {"text": 5}, "meta": None},
        text_message("second part"),
    ]
    tool = ScriptedTool(name="report", description="Reports", parameters=[ToolParam("q", description="q")],
                        responses=responses)
    turns = [call_turn(strategy, "report", {"q": "a"}), answer_turn(strategy, "Done.")]
    result = run(turns, query="Report.", tools=[tool], strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Done."
    (seen,) = observations(result.llm_requests[1])
    assert "first part" in seen and "second part" in seen and "temps.csv" in seen
    assert [(f.get("meta") or {}).get("filename") for f in result.files] == ["temps.csv"]
    (node,) = call_nodes(result, "report")
    logged = dumped(node)
    assert "first part" in logged and "second part" in logged
    assert "3 unreadable message(s)" in logged and "message is null" in logged, logged[:3000]


# --- class 5: the run's deadline while calls run in parallel -----------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_deadline_reached_while_one_of_three_parallel_calls_runs_asks_for_the_answer(run, strategy):
    slow = ScriptedTool(name="slow", description="Never answers", parameters=[ToolParam("q", description="q")], hang=True)
    tools = [lookup("fast_a", 0.1), slow, lookup("fast_b", 0.1)]
    if strategy == "ReAct":
        first = {"text": "Thought: all three.\n" + "\n".join(fenced(t.name, {"q": "x"}) for t in tools)}
    else:
        first = {"tool_calls": [{"id": f"c{n}", "name": t.name, "arguments": {"q": "x"}} for n, t in enumerate(tools)]}
    turns = [first, answer_turn(strategy, "fast_a and fast_b answered; slow did not.")]
    result = run(turns, query="Ask all three.", tools=tools, strategy=strategy, params={"run_timeout": 12})
    assert_clean_end(result)
    assert result.text == "fast_a and fast_b answered; slow did not."
    assert result.duration < 12, result.duration
    seen = prompt_text(result.llm_requests[1])
    assert "fast_a found it" in seen and "fast_b found it" in seen
    assert "slow found it" not in seen
    (node,) = call_nodes(result, "slow")
    assert node.status == "error"


# --- the same steps written as text to Function Calling ----------------------------------------------

INVENTED_TAILS = {
    "final answer": "Observation: lookup says 42\nThought: I know it now.\nFinal Answer: It is 42.",
    "another action": 'Observation: lookup says 42\nThought: now b.\nAction: lookup\nAction Input: {"q": "b"}',
}


@pytest.mark.parametrize("tail", list(INVENTED_TAILS))
def test_function_calling_text_step_with_an_invented_observation_runs_the_action_not_the_invention(run, tail):
    """A model offered native tools writes a ReAct step as text, then invents the result and goes
    on: the action runs, and the invented result or answer is never shown as the answer."""
    text = 'Thought: look.\nAction: lookup\nAction Input: {"q": "a"}\n' + INVENTED_TAILS[tail]
    result = run([{"text": text}, {"text": "lookup found it."}], query="Look up a.", tools=[lookup()])
    assert_clean_end(result)
    assert "42" not in result.text
    assert [r["tool_parameters"] for r in result.tool_requests][:1] == [{"q": "a"}]
    assert result.text == "lookup found it."


@pytest.mark.parametrize("content", [
    '```json\n{"name": "lookup", "arguments": {"q": "al',
    '{"name": "lookup", "arguments": {"q": "al',
    '<tool_call>\n{"name": "lookup", "arguments": {"q": "alphabet"}}\n</tool_call>',
], ids=["fenced-cut", "bare-cut", "whole-tagged"])
def test_function_calling_call_written_in_the_content_of_a_cut_reply_is_neither_run_nor_shown(run, content):
    turns = [cut({"text": content}), call_turn("function_calling", "lookup", {"q": "alphabet"}, "c2"), {"text": "Done."}]
    result = run(turns, query="Look up alphabet.", tools=[lookup()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"q": "alphabet"}]
    assert result.text == "Done."
    assert "output limit" in prompt_text(result.llm_requests[1])
