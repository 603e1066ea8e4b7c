"""``ModelTurn.with_usage``: the turn the loop keeps once it knows the call's time is the turn
``dataclasses.replace`` would give, field for field, and the turn read stays as it was."""

import dataclasses

import pytest
from dify_plugin.entities.model.llm import LLMUsage

from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls


def _turns() -> list[ModelTurn]:
    usage = LLMUsage.empty_usage()
    calls = ToolCalls((ToolCall(id="c1", name="search", arguments={"q": "x"}),),
                      (InvalidToolCall(id="c2", name="calc", raw_arguments="{", error="cut"),), order=("c1", "c2"))
    return [
        ModelTurn(thought="It is 42.", decision=FinalAnswer("It is 42."), usage=usage),
        ModelTurn(thought="Looking.", decision=calls, usage=usage, reasoning="think", finish_reason="length",
                  raw="Thought: Looking.", content=[{"type": "text", "data": "x", "opaque_body": {"k": 1}}],
                  opaque_body={"id": "r1"}, read_as="text", answer_whole=True, after_answer="Action: x",
                  calls_after_answer=("search",)),
        ModelTurn(thought="", decision=ParseFailure("no label"), usage=usage, finish_reason="stop"),
    ]


@pytest.mark.parametrize("turn", _turns())
def test_with_usage_is_replace_with_that_usage(turn):
    timed = turn.usage.model_copy(update={"latency": 0.25})
    got = turn.with_usage(timed)
    assert got == dataclasses.replace(turn, usage=timed)
    assert type(got) is ModelTurn and got.usage is timed
    assert got.content is turn.content and got.opaque_body is turn.opaque_body  # the model's message, intact
    assert (got.cut, got.at_limit) == (turn.cut, turn.at_limit)
    assert turn.usage.latency == 0  # the turn read is not changed


def test_with_usage_gives_a_turn_as_frozen_as_any():
    turn = _turns()[0].with_usage(LLMUsage.empty_usage())
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.thought = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(("finish_reason", "answer_whole", "cut"), [
    ("length", False, True), ("LENGTH", False, True), ("length", True, False), ("stop", False, False), (None, False, False),
])
def test_cut_worked_out_once_is_each_turns_own(finish_reason, answer_whole, cut):
    """``cut`` is kept on the turn once asked; a turn made from it with other fields (``replace``,
    ``with_usage``) has its own."""
    first = ModelTurn(thought="", decision=FinalAnswer("It is"), usage=LLMUsage.empty_usage(), finish_reason="length")
    assert first.cut  # worked out and kept before the others are made from it
    turn = dataclasses.replace(first, finish_reason=finish_reason, answer_whole=answer_whole)
    assert (turn.cut, turn.cut) == (cut, cut)
    assert turn.with_usage(LLMUsage.empty_usage()).cut is cut
    assert first.cut
