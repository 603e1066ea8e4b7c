"""Red-team wave 32, replies cut by the model's output limit, through the real plugin process.

A cut reply is never run as a call and never shown as a complete answer: the model is asked once
for the rest (an answer) or again (calls), then the run ends with a notice that the model hit its
output limit. ``test_cut_replies.py`` holds the first cases; these are the shapes real model
plugins send that it did not try: Anthropic's last chunk holding a tool call whose input the limit
cut (``max_tokens``), a cut inside the reasoning with no content, inside a JSON step or a fenced
action, an empty continuation, a cut at the iteration limit and at the run's deadline, and where
the finish reason comes (a usage-only last chunk, a middle chunk, DashScope's ``"null"``).
"""

from __future__ import annotations

import json

import pytest

from agent_core import prompts
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text

ADD = {"name": "calculator", "arguments": {"expression": "2 + 2"}}
STRUCTURED = {"features": ["structured-output"]}


def cut(turn: dict, reason: str = "length") -> dict:
    return {**turn, "finish_reason": reason}


def react_call(expression: str = "2 + 2") -> str:
    action = json.dumps({"action": "calculator", "action_input": {"expression": expression}})
    return f"Thought: add.\nAction:\n```json\n{action}\n```"


def complete_call_turn(strategy: str, call_id: str = "c") -> dict:
    if strategy == "ReAct":
        return {"text": react_call()}
    return {"tool_calls": [{"id": call_id, **ADD}]}


def thoughts(result) -> list:
    return [n for n in result.logs.values() if n.label.endswith("Thought")]


def tool_messages(request: dict) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in request["prompt_messages"] if m["role"] == "tool"}


# --- Function Calling: calls the limit cut -------------------------------------------------------


def test_anthropic_last_chunk_with_a_cut_tool_input_is_not_run(run):
    """Anthropic's plugin sends its tool calls on the last chunk with the raw ``stop_reason``:
    a call whose ``input_json_delta`` the limit cut comes with its partial JSON and
    ``max_tokens``; thinking before it, closed by the plugin at ``message_stop``."""
    chunks = [
        {"content": "<think>\nI add them.\n</think>\n\n"},
        {"content": "", "tool_calls": [{"id": "toolu_1", "type": "function",
                                        "function": {"name": "calculator", "arguments": '{"expression": "2 +'}}],
         "finish_reason": "max_tokens"},
    ]
    turns = [{"chunks": chunks}, complete_call_turn("function_calling", "toolu_2"), {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"])
    assert_clean_end(result)
    assert result.text == "4."
    assert [r["tool_parameters"]["expression"] for r in result.tool_requests] == ["2 + 2"]
    told = tool_messages(result.llm_requests[1])
    assert "output limit" in told["toolu_1"]  # the cut call is answered, as every provider needs


def test_anthropic_call_cut_before_any_input_is_not_run_with_empty_arguments(run):
    """The limit came right after ``content_block_start``: the plugin fills the missing input
    with ``"{}"``, which reads as a complete call of no arguments. It must not run."""
    chunks = [{"content": "", "tool_calls": [{"id": "toolu_1", "type": "function",
                                              "function": {"name": "calculator", "arguments": "{}"}}],
               "finish_reason": "max_tokens"}]
    turns = [{"chunks": chunks}, complete_call_turn("function_calling", "toolu_2"), {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"expression": "2 + 2"}]


def test_two_calls_the_second_cut_run_neither_and_both_are_answered(run):
    calls = [{"id": "a", **ADD}, {"id": "b", "name": "calculator", "arguments": '{"expression": "3 *'}]
    turns = [cut({"tool_calls": calls}), {"tool_calls": [{"id": "c", **ADD}]}, {"text": "4."}]
    result = run(turns, query="2+2 and 3*3?", tools=["calculator"])
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    told = tool_messages(result.llm_requests[1])
    assert set(told) == {"a", "b"} and all("output limit" in text for text in told.values())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_two_complete_calls_in_a_cut_reply_run_neither(run, strategy):
    """Both calls read whole, but the reply hit the limit: a third may be missing, and the model
    may have meant them as one plan. None runs; the model is told and calls again."""
    if strategy == "ReAct":
        first = {"text": react_call() + "\n" + react_call("3 * 3")}
    else:
        first = {"tool_calls": [{"id": "a", **ADD}, {"id": "b", "name": "calculator", "arguments": {"expression": "3 * 3"}}]}
    turns = [cut(first), complete_call_turn(strategy), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text == "4."


# --- cut inside the reasoning ---------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_reply_cut_inside_a_closed_reasoning_block_is_asked_again_then_stops(run, strategy):
    """Anthropic's and Gemini's plugins close the thinking block themselves when the stream ends:
    the reply is a whole ``<think>`` block and nothing else, cut. The reasoning is not the answer."""
    reply = cut({"text": "<think>\nFirst I should look up the numbers and then\n</think>\n\n"}, "max_tokens")
    result = run([reply, reply], query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert "look up the numbers" not in result.text
    assert result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    assert result.tool_requests == [] and len(result.llm_requests) == 2
    assert "output limit" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_reply_with_nothing_in_it_is_told_it_was_cut(run, strategy):
    """Gemini's thinking models spend the whole output on hidden thoughts and send MAX_TOKENS
    with no part: the model was told its reply was empty (write something), not cut (write less)."""
    reply = {"text": "", "finish_reason": "MAX_TOKENS"}
    result = run([reply, reply], query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert result.text == prompts.STOPPED_AT_OUTPUT_LIMIT
    assert prompts.REPLY_CUT in prompt_text(result.llm_requests[1])


def test_react_cut_inside_an_unclosed_think_is_not_an_answer(run):
    reply = cut({"text": "<think>\nFirst I should look up the"})
    result = run([reply, reply], query="weather?", strategy="ReAct")
    assert_clean_end(result)
    assert "First I should" not in result.text and result.text.endswith(prompts.STOPPED_AT_OUTPUT_LIMIT)
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_reasoning_then_an_answer_cut_continues_only_the_answer(run, strategy):
    first = cut({"text": "<think>\nEasy.\n</think>\n\n" + answer_turn(strategy, "The sum is")["text"]})
    result = run([first, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


# --- ReAct: a step the limit cut ------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Thought: add.\nAction:\n```json\n" + json.dumps({"action": "calculator", "action_input": {"expression": "2 + 2"}}),
    "Thought: add.\nAction: calculator\nAction Input: 2 + 2",
    'Thought: add.\nAction: calculator\nAction Input: {"expression": "2 + 2"}',
    '```json\n{"action": "calculator", "action_input": {"expression": "2 +',
])
def test_react_action_cut_anywhere_is_not_run(run, text):
    turns = [cut({"text": text}), {"text": react_call()}, answer_turn("ReAct", "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1
    assert "output limit" in prompt_text(result.llm_requests[1])


def test_react_json_step_cut_is_not_run(run):
    """Constrained JSON steps: the object the limit cut is no step, and never a call."""
    partial = '{"action": "calculator", "action_input": {"expression": "2 +'
    step = json.dumps({"action": "calculator", "action_input": {"expression": "2 + 2"}})
    final = json.dumps({"action": "final_answer", "action_input": {"answer": "4."}})
    turns = [cut({"text": partial}), {"text": step}, {"text": final}]
    result = run(turns, query="2+2?", tools=["calculator"], strategy="ReAct", model=STRUCTURED)
    assert_clean_end(result)
    assert result.text == "4."
    assert len(result.tool_requests) == 1
    assert "output limit" in prompt_text(result.llm_requests[1])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_inside_its_code_block_is_joined_with_its_rest(run, strategy):
    first = cut(answer_turn(strategy, "Run this:\n```python\nprint(1"))
    result = run([first, {"text": " + 1)\n```"}], query="code?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "Run this:\n```python\nprint(1 + 1)\n```"


# --- continuations --------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("reason", "notice"), [("stop", prompts.ANSWER_REST_MISSING), ("length", prompts.ANSWER_CUT_OFF)])
def test_an_empty_continuation_ends_with_the_notice(run, strategy, reason, notice):
    """The model sent nothing more: the answer shown is still cut, and the user is told, rather
    than the model being asked a third time (and writing a second answer under the cut one)."""
    turns = [cut(answer_turn(strategy, "The sum is")), cut({"text": ""}, reason)]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is\n\n" + notice
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_that_is_only_reasoning_ends_with_the_notice(run, strategy):
    """The reasoning the continuation wrote is not the answer's rest."""
    turns = [cut(answer_turn(strategy, "The sum is")), {"text": "<think>\nWhere did I stop? The sum.\n</think>"}]
    result = run(turns, query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is\n\n" + prompts.ANSWER_REST_MISSING
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_thrice_asks_only_once(run, strategy):
    turns = [cut(answer_turn(strategy, "One")), cut({"text": " two"}), cut({"text": " three"})]
    result = run(turns, query="Count.", strategy=strategy)
    assert_clean_end(result)
    assert result.text.startswith("One two") and "three" not in result.text
    assert result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert len(result.llm_requests) == 2


# --- at the limits --------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_cut_on_the_last_allowed_round_is_not_run_and_the_answer_follows(run, strategy):
    turns = [cut(complete_call_turn(strategy)), answer_turn(strategy, "I could not compute it.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=1)
    assert_clean_end(result)
    assert result.tool_requests == []
    assert result.text == "I could not compute it."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_the_answer_round_at_the_limit_is_continued(run, strategy):
    turns = [complete_call_turn(strategy), cut(answer_turn(strategy, "The sum is")), {"text": " four."}]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[2])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_the_answer_round_and_again_ends_with_the_notice(run, strategy):
    turns = [complete_call_turn(strategy), cut(answer_turn(strategy, "The sum is")), cut({"text": " fo"})]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.startswith("The sum is fo") and result.text.endswith(prompts.ANSWER_CUT_OFF)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cut_answer_with_no_time_left_for_its_rest_ends_with_the_notice(run, strategy):
    """run_timeout 10 s keeps 5 s for the run; the cut reply took 4 s: asking for the rest
    would outlive the run. The answer shown ends with a notice that it is incomplete."""
    turns = [{**cut(answer_turn(strategy, "The sum is")), "delay": 4}, {"text": " four.", "delay": 4}]
    result = run(turns, query="2+2?", strategy=strategy, params={"run_timeout": 10})
    assert_clean_end(result)
    assert result.text == "The sum is\n\n" + prompts.ANSWER_CUT_NO_TIME
    assert len(result.llm_requests) == 1


# --- where the finish reason comes ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_finish_reason_on_a_usage_only_last_chunk(run, strategy):
    chunks = [{"content": answer_turn(strategy, "The sum")["text"]}, {"content": " is"},
              {"content": "", "finish_reason": "length", "usage": None}]
    result = run([{"chunks": chunks}, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_length_on_a_middle_chunk_then_no_reason_is_still_cut(run, strategy):
    chunks = [{"content": answer_turn(strategy, "The sum")["text"], "finish_reason": "length"}, {"content": " is"}]
    result = run([{"chunks": chunks, "finish_reason": None}, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("later", ["null", "None", ""])
def test_length_then_a_null_reason_on_the_last_chunk_is_still_cut(run, strategy, later):
    """DashScope's native stream writes ``"finish_reason": "null"`` (a string) while it is
    generating, and a plugin that prints ``str()`` of a missing reason writes ``"None"``."""
    chunks = [{"content": answer_turn(strategy, "The sum is")["text"], "finish_reason": "length"},
              {"content": "", "finish_reason": later}]
    result = run([{"chunks": chunks}, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."
