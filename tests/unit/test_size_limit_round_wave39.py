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


def loop_after(*sizes: int) -> AgentLoop:
    """A loop whose last three requests were ``sizes`` bytes (the last one last)."""
    model = ModelSettings(features=["tool-call", "stream-tool-call"], completion_params={})
    params = StrategyParams.model_validate({"model": model.selector([]), "query": "q"})
    loop = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params)
    loop._request_sizes = sizes
    return loop


@pytest.mark.parametrize("sizes", [
    (0, 0, 0),  # no request yet
    (REQUEST_BYTES - 1_800 * KB, REQUEST_BYTES - 900 * KB, REQUEST_BYTES),  # within the trimming budget
    (REQUEST_BYTES, REQUEST_LINE_MAX_BYTES - 900 * KB, REQUEST_LINE_MAX_BYTES - 600 * KB),  # the last one shrank: trimmed
    (REQUEST_BYTES - 100 * KB, REQUEST_BYTES + 100 * KB, REQUEST_BYTES + 300 * KB),  # two more rounds of 200 KB fit
    (1 * KB, 2 * KB, REQUEST_BYTES + 500 * KB),  # one large reply (a file written once) is no trend
    (2 * KB, REQUEST_BYTES + 500 * KB, REQUEST_BYTES + 510 * KB),  # ... nor after it, rounds of 10 KB
])
def test_room_for_another_round(sizes):
    assert loop_after(*sizes)._room_for_another_round()


@pytest.mark.parametrize("sizes", [
    # 240 KB a round: the next fits, not the one after
    (REQUEST_LINE_MAX_BYTES - 840 * KB, REQUEST_LINE_MAX_BYTES - 600 * KB, REQUEST_LINE_MAX_BYTES - 360 * KB),
    (REQUEST_BYTES - 700 * KB, REQUEST_BYTES, REQUEST_BYTES + 700 * KB),
])
def test_no_room_after_the_next_round(sizes):
    assert not loop_after(*sizes)._room_for_another_round()


def test_the_limit_note_and_the_stop_say_why():
    loop = loop_after(REQUEST_BYTES - 700 * KB, REQUEST_BYTES, REQUEST_BYTES + 700 * KB)
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
