"""Red-team wave 33, replies cut by the model's output limit, through the real plugin process.

The paths ``test_cut_replies.py``, ``test_cut_by_usage.py`` and ``test_red_team_wave32_cut.py`` did
not try: a stream that says ``length`` on one chunk and another reason on a later one (the last
reason used to win: the cut answer was shown as complete, the cut plan's calls were run); the
Vertex AI plugin's ``"2"`` (``str()`` of its protobuf ``MAX_TOKENS`` under Python 3.12); a cut
answer in the run's last allowed round; a ReAct reply whose final answer is whole and whose
invented ``Observation:`` after it the limit cut; a blocking reply cut inside a call's arguments;
and a cut known only from a usage-only last chunk.
"""

from __future__ import annotations

import json

import pytest

from agent_core import prompts
from agent_core.tool_calls import LENGTH_BY_USAGE
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_end, prompt_text

LIMIT = 64
ADD = {"name": "calculator", "arguments": {"expression": "2 + 2"}}
NO_STREAMED_CALLS = ["tool-call", "multi-tool-call"]  # Function Calling then asks for a blocking reply
VERTEX = {"provider": "langgenius/vertex_ai/vertex_ai", "model": "gemini-2.5-flash",
          "completion_params": {"temperature": 0.2, "max_output_tokens": LIMIT}}


def cut(turn: dict, reason: str = "length") -> dict:
    return {**turn, "finish_reason": reason}


def limited(**fields) -> dict:
    return {"completion_params": {"temperature": 0.2, "max_tokens": LIMIT}, **fields}


def react_call(expression: str = "2 + 2") -> str:
    action = json.dumps({"action": "calculator", "action_input": {"expression": expression}})
    return f"Thought: add.\nAction:\n```json\n{action}\n```"


def call_turn(strategy: str, call_id: str = "c") -> dict:
    if strategy == "ReAct":
        return {"text": react_call()}
    return {"tool_calls": [{"id": call_id, **ADD}]}


def thought_reasons(result) -> list:
    return [n.data.get("finish_reason") for n in result.logs.values() if n.label.endswith("Thought")]


# --- a cut said on one chunk, another reason on a later one ---------------------------------------


@pytest.mark.parametrize("later", ["stop", "end_turn", "tool_calls"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_length_then_another_reason_on_a_later_chunk_is_still_cut(run, strategy, later):
    """A proxy that adds its own reason at the end, or a usage-only chunk with ``stop``: the
    answer was cut, and is continued, not shown as complete."""
    chunks = [{"content": answer_turn(strategy, "The sum")["text"], "finish_reason": "length"},
              {"content": " is", "finish_reason": later}]
    result = run([{"chunks": chunks}, {"text": " four."}], query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    assert thought_reasons(result)[0] == "length"  # the log says the plugin's own cut reason


def test_a_call_of_a_reply_cut_then_said_tool_calls_is_not_run(run):
    """The call reads whole, but the limit cut the reply after it (the plan's next call may be
    lost): it is answered "not run" and asked for again, as after any ``length``."""
    call = {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "2"}'}}
    chunks = [{"content": "", "tool_calls": [call], "finish_reason": "max_tokens"},
              {"content": "", "finish_reason": "tool_calls"}]
    turns = [{"chunks": chunks}, {"tool_calls": [{"id": "c2", **ADD}]}, {"text": "4."}]
    result = run(turns, query="2+2?", tools=["calculator"])
    assert_clean_end(result)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"expression": "2 + 2"}]
    assert "cut off by the output limit" in prompt_text(result.llm_requests[1])
    assert result.text == "4."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_action_cut_then_said_stop_is_not_run(run, strategy):
    chunks = [{"content": call_turn(strategy)["text"] if strategy == "ReAct" else "",
               "tool_calls": [] if strategy == "ReAct" else [
                   {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "2"}'}}],
               "finish_reason": "length"},
              {"content": "", "finish_reason": "stop"}]
    turns = [{"chunks": chunks}, call_turn(strategy, "c2"), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1  # only round 2's call ran
    assert result.text == "4."


# --- the Vertex AI plugin's enum number -----------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_vertex_ai_s_max_tokens_number_is_read_as_a_cut(run, strategy):
    """Vertex AI sends ``str(candidate.finish_reason)``: ``"2"`` for ``MAX_TOKENS`` under Python
    3.12, with a usage that is a GPT-2 estimate of the last part (not the limit)."""
    first = {**cut(answer_turn(strategy, "The sum is"), "2"), "usage": {"prompt_tokens": 30, "completion_tokens": 3}}
    result = run([first, cut({"text": " four."}, "1")], query="2+2?", strategy=strategy, model=VERTEX)
    assert_clean_end(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[1])
    assert thought_reasons(result)[0] == "MAX_TOKENS"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_vertex_ai_s_stop_number_ends_the_answer(run, strategy):
    result = run([cut(answer_turn(strategy, "Paris."), "1")], query="Capital?", strategy=strategy, model=VERTEX)
    assert_clean_end(result)
    assert result.text == "Paris." and len(result.llm_requests) == 1


def test_another_plugin_s_number_is_not_a_cut(run):
    result = run([cut({"text": "Paris."}, "2")], query="Capital?")
    assert_clean_end(result)
    assert result.text == "Paris." and len(result.llm_requests) == 1


# --- a cut answer in the run's last allowed round -------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_the_last_allowed_round_is_continued(run, strategy):
    """Round 2 of 2 answers, cut: the rest is asked for (past the iteration limit), and the
    answer shown is the start and the rest, once."""
    turns = [call_turn(strategy), cut(answer_turn(strategy, "The sum is")), {"text": " four."}]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=2)
    assert_clean_end(result)
    assert result.text == "The sum is four."
    assert prompts.CONTINUE_CUT_ANSWER in prompt_text(result.llm_requests[2])
    assert len(result.tool_requests) == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_first_answer_cut_with_one_round_allowed_is_continued(run, strategy):
    turns = [cut(answer_turn(strategy, "The sum is")), {"text": " four."}]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == "The sum is four."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_cut_in_the_last_allowed_round_and_again_ends_with_the_notice(run, strategy):
    turns = [call_turn(strategy), cut(answer_turn(strategy, "The sum is")), cut({"text": " fo"})]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=2)
    assert_clean_end(result)
    assert result.text.startswith("The sum is fo") and result.text.endswith(prompts.ANSWER_CUT_OFF)
    assert len(result.llm_requests) == 3


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_continuation_past_the_last_round_that_calls_a_tool_does_not_run_it(run, strategy):
    """Past the iteration limit no tool runs: a continuation that is only a call gets no call run."""
    turns = [call_turn(strategy), cut(answer_turn(strategy, "The sum is")), call_turn(strategy, "c2"),
             answer_turn(strategy, "four.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, maximum_iterations=2)
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text.startswith("The sum is")


# --- ReAct: a whole final answer, then an invented observation the limit cut -----------------------


@pytest.mark.parametrize("tail", ["\nObservation: The user se", "\nObservation: ok.\nThought: Now I sh"])
def test_react_whole_answer_then_a_cut_invented_observation_is_the_answer(run, tail):
    """The parser ends the answer at the invented ``Observation:``; the limit cut only what it
    drops. The run used to ask for the answer's "rest", and the model's continuation of the
    dropped observation was shown as the end of the answer."""
    text = "Thought: I know it.\nFinal Answer: Paris is the capital of France." + tail
    result = run([cut({"text": text})], query="Capital?", strategy="ReAct")
    assert_clean_end(result)
    assert result.text == "Paris is the capital of France."
    assert len(result.llm_requests) == 1
    assert thought_reasons(result) == ["length"]  # the log still says where the reply stopped


def test_react_answer_cut_before_an_observation_label_in_its_code_is_continued(run):
    """A label inside the answer's code block is the answer's own text: cut there, it is cut."""
    text = "Thought: I know it.\nFinal Answer: The log reads:\n```\nObservation: disk"
    result = run([cut({"text": text}), {"text": " full\n```"}], query="Log?", strategy="ReAct")
    assert_clean_end(result)
    assert len(result.llm_requests) == 2
    assert "Observation: disk full" in result.text


# --- a blocking reply cut inside a call's arguments -----------------------------------------------


def test_a_blocking_reply_cut_inside_a_call_s_arguments_is_not_run(run):
    """A blocking reply: one chunk with text, a call whose arguments the limit cut, the usage at
    the limit, no finish reason (the SDK's ``LLMResult`` has none)."""
    call = {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "2 +'}}
    first = {"chunks": [{"content": "Let me add.", "tool_calls": [call]}], "finish_reason": None,
             "usage": {"prompt_tokens": 40, "completion_tokens": LIMIT}}
    second = {"tool_calls": [{"id": "c2", **ADD}], "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": 9}}
    turns = [first, second, {"text": "4.", "finish_reason": None}]
    result = run(turns, query="2+2?", tools=["calculator"], model=limited(features=NO_STREAMED_CALLS))
    assert_clean_end(result)
    assert [request["stream"] for request in result.llm_requests] == [False, False, False]
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"expression": "2 + 2"}]
    assert "cut off by the output limit" in prompt_text(result.llm_requests[1])
    assert thought_reasons(result)[0] == LENGTH_BY_USAGE
    assert result.text.endswith("4.")


def test_a_blocking_reply_cut_inside_a_call_s_arguments_with_no_limit_set_is_not_run(run):
    """No limit known: the call is unreadable, and asked again; it never runs with half its input."""
    call = {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": '{"expression": "2 +'}}
    first = {"chunks": [{"content": "", "tool_calls": [call]}], "finish_reason": None}
    turns = [first, {"tool_calls": [{"id": "c2", **ADD}], "finish_reason": None}, {"text": "4.", "finish_reason": None}]
    result = run(turns, query="2+2?", tools=["calculator"],
                 model={"completion_params": {"temperature": 0.2}, "features": NO_STREAMED_CALLS})
    assert_clean_end(result)
    assert [request["tool_parameters"] for request in result.tool_requests] == [{"expression": "2 + 2"}]
    assert result.text.endswith("4.")


# --- usage only on a usage-only last chunk ---------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_answer_whose_limit_usage_comes_on_a_usage_only_last_chunk_is_continued(run, strategy):
    """``stop`` on the text's chunk, then a chunk with only the usage (a server that sends
    ``stream_options.include_usage``'s chunk apart): the usage at the limit is read."""
    chunks = [{"content": answer_turn(strategy, "The three laws are: one, two")["text"], "finish_reason": "stop"},
              {"content": ""}]
    first = {"chunks": chunks, "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": LIMIT}}
    result = run([first, {"text": ", and three."}], query="List the laws.", strategy=strategy, model=limited())
    assert_clean_end(result)
    assert result.text == "The three laws are: one, two, and three."
    assert thought_reasons(result)[0] == LENGTH_BY_USAGE


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_call_whose_limit_usage_comes_on_a_usage_only_last_chunk_is_not_run(run, strategy):
    text = react_call() if strategy == "ReAct" else ""
    calls = [] if strategy == "ReAct" else [
        {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": json.dumps(ADD["arguments"])}}]
    chunks = [{"content": text, "tool_calls": calls, "finish_reason": "stop"}, {"content": ""}]
    first = {"chunks": chunks, "finish_reason": None, "usage": {"prompt_tokens": 40, "completion_tokens": LIMIT}}
    turns = [first, call_turn(strategy, "c2"), answer_turn(strategy, "4.")]
    result = run(turns, query="2+2?", tools=["calculator"], strategy=strategy, model=limited())
    assert_clean_end(result)
    assert len(result.tool_requests) == 1
    assert result.text == "4."


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_length_on_the_text_then_a_usage_only_chunk_saying_stop_is_cut(run, strategy):
    chunks = [{"content": answer_turn(strategy, "The sum is")["text"], "finish_reason": "length"},
              {"content": "", "finish_reason": "stop", "usage": None}]
    result = run([{"chunks": chunks, "usage": {"prompt_tokens": 40, "completion_tokens": 5}}, {"text": " four."}],
                 query="2+2?", strategy=strategy)
    assert_clean_end(result)
    assert result.text == "The sum is four."
