"""A JSON list whose "Final Answer" object comes before calls (ReAct): the answer is shown and
no call runs, as before, and the calls after it are now named for the log
(``ModelTurn.calls_after_answer``, the Thought node's ``calls_not_run_after_answer``), as a step
written after a labelled answer is. Read whole and in pieces of 1 and 7 characters."""

import pytest

from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.test_real_world_2026 import Case, read, tool

TOOLS = (tool("search", "query"), tool("get_weather", "city"), tool("finish", "summary"))
ANSWER = '{"action": "Final Answer", "action_input": "Paris is the capital."}'
SEARCH = '{"action": "search", "action_input": {"query": "x"}}'
WEATHER = '{"action": "get_weather", "action_input": {"city": "Paris"}}'

LISTS = {
    # the answer first, two calls after it (the second repeated: each is counted)
    "fenced-after-label": (f"Thought: done.\nAction:\n```json\n[{ANSWER}, {SEARCH}, {WEATHER}, {SEARCH}]\n```",
                           ("search", "get_weather", "search")),
    "bare-fence": (f"```json\n[{ANSWER}, {WEATHER}]\n```", ("get_weather",)),
    # Action: None and a second answer object are no calls; a node tool named finish is one
    "none-and-finish": (f'Action:\n```json\n[{ANSWER}, {{"action": "None", "action_input": ""}}, '
                        f'{{"action": "Final Answer", "action_input": "again"}}, '
                        f'{{"action": "finish", "action_input": {{"summary": "s"}}}}]\n```', ("finish",)),
    "answer-alone": (f"Action:\n```json\n[{ANSWER}]\n```", ()),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(LISTS))
def test_calls_after_a_final_answer_object_are_named_not_run(name, size):
    text, named = LISTS[name]
    streamed, turn = read("react", Case(TOOLS, text), size)
    assert turn.decision == FinalAnswer("Paris is the capital.")
    assert streamed == "Paris is the capital."
    assert turn.calls_after_answer == named


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_call_before_the_answer_object_still_runs_alone(size):
    """The call before the answer object runs alone; the call after it is named to the model as
    not run (the answer came before any result: wave 39, ``ReactTurn.calls_after_answer``)."""
    text = f"Action:\n```json\n[{SEARCH}, {ANSWER}, {WEATHER}]\n```"
    streamed, turn = read("react", Case(TOOLS, text), size)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "x"})]
    assert streamed == "" and turn.calls_after_answer == ("get_weather",)


def test_a_long_name_after_the_answer_object_is_cut_in_the_log_as_a_call_s_label_is():
    """Names taken from a JSON list may be any size: each is cut to ``LABEL_CHARS`` as a CALL
    node's label is, so the Thought node's field cannot grow with what the model wrote."""
    from agent_core.line_budget import LABEL_CHARS
    from agent_core.loop import _turn_log_data

    long_name = "x" * 100_000
    text = f'Action:\n```json\n[{ANSWER}, {{"action": "{long_name}", "action_input": {{}}}}, {SEARCH}]\n```'
    _, turn = read("react", Case(TOOLS, text), None)
    assert turn.calls_after_answer == (long_name, "search")
    field = _turn_log_data(turn)["calls_not_run_after_answer"]
    assert field == f"2: {'x' * (LABEL_CHARS - 1)}…, search"
