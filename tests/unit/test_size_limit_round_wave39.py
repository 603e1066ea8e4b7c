"""A run whose own rounds (the model's replies and calls, which go back to it intact and are never
trimmed) grow toward what one daemon line holds asks the model for its answer one round before the
request would no longer fit (``AgentLoop._room_for_another_round``, a ``SIZE LIMIT`` note), as it
does before its deadline, instead of ending with ``prompts.REQUEST_TOO_LARGE`` a round later."""

from types import SimpleNamespace

import pytest

from agent_core import prompts
from agent_core.line_budget import REQUEST_BYTES, REQUEST_LINE_MAX_BYTES
from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps

KB = 1024


def loop_after(previous: int, last: int) -> AgentLoop:
    """A loop whose last two requests were ``previous`` and ``last`` bytes."""
    model = ModelSettings(features=["tool-call", "stream-tool-call"], completion_params={})
    params = StrategyParams.model_validate({"model": model.selector([]), "query": "q"})
    loop = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params)
    loop._request_sizes = (previous, last)
    return loop


@pytest.mark.parametrize(("previous", "last"), [
    (0, 0),  # no request yet
    (REQUEST_BYTES - 900 * KB, REQUEST_BYTES),  # within the trimming budget: trimming still has room
    (REQUEST_LINE_MAX_BYTES - 900 * KB, REQUEST_LINE_MAX_BYTES - 600 * KB),  # shrank: trimmed
    (REQUEST_BYTES + 100 * KB, REQUEST_BYTES + 300 * KB),  # two more rounds of 200 KB fit
])
def test_room_for_another_round(previous, last):
    assert loop_after(previous, last)._room_for_another_round()


@pytest.mark.parametrize(("previous", "last"), [
    (REQUEST_LINE_MAX_BYTES - 600 * KB, REQUEST_LINE_MAX_BYTES - 360 * KB),  # 240 KB a round: the next fits, not the one after
    (REQUEST_BYTES, REQUEST_BYTES + 700 * KB),
])
def test_no_room_after_the_next_round(previous, last):
    assert not loop_after(previous, last)._room_for_another_round()


def test_the_limit_note_and_the_stop_say_why():
    loop = loop_after(REQUEST_BYTES, REQUEST_BYTES + 700 * KB)
    loop.state.rounds.append(object())  # a round ran
    labels = [m.message.label for m in loop._note_limits() if hasattr(m.message, "label")]
    assert labels == ["SIZE LIMIT", "SIZE LIMIT"]  # started and finished
    assert loop.state.limit_reached and loop.state.out_of_room and not loop.state.out_of_time
    assert "too large to send" in loop.state.limit_note()
    turn = SimpleNamespace(decision=None, reply=None)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agent_core.loop.unlabelled_answer", lambda turn, names: "")
        text = "".join(m.message.text for m in loop._end_without_answer(turn))
    assert text.endswith(prompts.STOPPED_AT_SIZE_LIMIT)
