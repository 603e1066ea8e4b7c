"""A ReAct reply that continues an answer the output limit cut (``continues_answer``): the
parser's HEAD state reads it as the answer's rest unless it opens with a label or a call."""

import pytest

from agent_core.model_call import ModelChunk
from agent_core.react.parser import ActionFound, AnswerDelta, ReactStreamParser, parse_react
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

REST_THEN_ACTION = ' nothing.\nAction: vault\nAction Input: {"q": "x"}'


def continued(text: str, **kw):
    return parse_react(text, continues_answer=True, tool_names=["vault"], **kw)


def read(text: str, finish_reason: str = "stop"):
    """The continuation ``text`` read by ``read_react_turn``: (text streamed, turn)."""
    chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason=finish_reason)])
    return drain(read_react_turn(chunks, ToolRegistry([tool("vault", "q")]), 2, continues_answer=True))


def test_the_rest_of_the_answer_streams_as_it_comes():
    """Read as a fresh turn, unlabelled text was a thought until the reply ended: the rest of a
    long answer reached the user only once the model had written all of it."""
    parser = ReactStreamParser(continues_answer=True)
    events = parser.feed(" nothing, and the key is")
    assert [e.text for e in events if isinstance(e, AnswerDelta)] == ["nothing, and the key is"]
    parser.feed(" kept.")
    parser.finish()
    assert parser.result().final_answer == "nothing, and the key is kept."


def test_an_action_written_after_the_rest_is_not_a_call_nor_part_of_the_answer():
    """The user was shown the answer's start and its rest: the Action the model wrote on is not
    run, and its lines are not shown, as after any Final Answer."""
    turn = continued(REST_THEN_ACTION)
    assert turn.actions == ()
    assert turn.final_answer == "nothing."
    streamed, read_turn = read(REST_THEN_ACTION)
    assert streamed == "nothing."
    assert read_turn.decision == FinalAnswer("nothing.")


def test_read_as_a_fresh_turn_the_same_text_is_a_thought_and_a_call():
    """What ``continues_answer`` changes: without it the reading of a reply is as before."""
    turn = parse_react(REST_THEN_ACTION, tool_names=["vault"])
    assert [a.name for a in turn.actions] == ["vault"]
    assert turn.thought == "nothing."


@pytest.mark.parametrize(("text", "thought", "answer"), [
    ("Final Answer: The vault says nothing.", "", "The vault says nothing."),
    ("**Final Answer:** The vault says nothing.", "", "The vault says nothing."),
    ("\n Answer: nothing.", "", "nothing."),
    ("Thought: I go on with my answer.\nFinal Answer: The vault says nothing.", "I go on with my answer.",
     "The vault says nothing."),
])
def test_a_continuation_that_writes_the_format_again_is_read_as_a_turn(text, thought, answer):
    """The model restarted its answer: the label is not shown, nor a thought before it."""
    turn = continued(text)
    assert (turn.thought, turn.final_answer) == (thought, answer)
    assert turn.actions == ()


@pytest.mark.parametrize("text", [
    'Action: vault\nAction Input: {"q": "x"}',
    'Thought: I need the vault after all.\nAction: vault\nAction Input: {"q": "x"}',
    '```json\n{"action": "vault", "action_input": {"q": "x"}}\n```',
    '<tool_call>{"name": "vault", "arguments": {"q": "x"}}</tool_call>',
])
def test_a_continuation_that_is_only_a_call_is_that_call(text):
    """No text of the answer came first: the model changed its mind and calls a tool; the loop
    runs it (``AgentLoop._answer_rest``)."""
    streamed, turn = read(text)
    assert streamed == ""
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("vault", {"q": "x"})]


def test_call_markup_after_the_rest_is_streamed_text_then_a_call_the_loop_does_not_run():
    """The reader reports what it read (a call after answer text); the loop, which knows what the
    user saw, keeps the answer (tests/e2e/test_cut_replies.py runs it through the plugin)."""
    streamed, turn = read(' nothing.\n<tool_call>{"name": "vault", "arguments": {"q": "x"}}</tool_call>')
    assert streamed == "nothing."
    assert isinstance(turn.decision, ToolCalls)


def test_a_reasoning_block_first_goes_to_the_log_and_the_rest_is_the_answer():
    streamed, turn = read("<think>Where did I stop? At 'says'.</think> nothing.")
    assert streamed == "nothing."
    assert turn.decision == FinalAnswer("nothing.")
    assert "Where did I stop" in turn.reasoning and "Where did I stop" not in streamed


def test_a_closing_fence_first_is_the_answer_s_code_block_ending():
    """An answer cut inside a code block goes on with the block's end: not a call candidate."""
    streamed, turn = read("print(2)\n```\nThat prints 2.")
    assert streamed == "print(2)\n```\nThat prints 2."
    assert turn.decision == FinalAnswer(streamed)


def test_a_continuation_cut_again_inside_an_action_written_after_its_text_keeps_its_text():
    """Cut again (the loop then ends the run with a notice): the answer shown stands; the step
    the model began after it is neither shown nor a call asked for again."""
    streamed, turn = read(' nothing more.\nAction: vault\nAction Input: {"q": "x', finish_reason="length")
    assert streamed == "nothing more."
    assert turn.decision == FinalAnswer("nothing more.") and turn.cut


@pytest.mark.parametrize("text", ["", "  \n ", "<think>only this</think>"])
def test_a_continuation_with_no_text_is_no_answer(text):
    _, turn = read(text)
    assert isinstance(turn.decision, ParseFailure)


def test_the_head_is_decided_once_a_label_can_be_told_from_text():
    """A reply streamed a character at a time: ``Fin`` may open ``Final Answer:`` and is held."""
    parser = ReactStreamParser(continues_answer=True)
    events = [e for ch in "Final Answer: The vault says nothing." for e in parser.feed(ch)] + parser.finish()
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == "The vault says nothing."
    assert not [e for e in events if isinstance(e, ActionFound)]
