"""agent_core.fairness: long CPU work lets the other sessions of the process run."""

import time

import gevent

from agent_core import fairness
from agent_core.budget import history_turns
from agent_core.line_budget import fit


def _ticks_during(work) -> int:
    """How many times another greenlet (a session streaming) ran while ``work`` computed."""
    ticks = []

    def other_session() -> None:
        while True:
            ticks.append(time.perf_counter())
            gevent.sleep(0)

    other = gevent.spawn(other_session)
    gevent.sleep(0)  # it starts, then waits for its turn
    ticks.clear()
    try:
        work()
        return len(ticks)
    finally:
        other.kill()


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_a_loop_that_gives_way_lets_another_greenlet_run_every_slice():
    def work() -> None:
        for _ in range(30):
            _busy(fairness.SLICE_SECONDS / 3)
            fairness.give_way()

    assert _ticks_during(work) >= 5  # 30 items of a third of a slice: about 10 slices


def test_a_short_loop_does_not_switch_at_all():
    fairness._last = time.perf_counter()  # a fresh slice
    assert _ticks_during(lambda: [fairness.give_way() for _ in range(100)]) == 0


def test_the_long_walks_give_way():
    # the loops found holding the process for seconds: memory of 60,000 messages split into
    # turns, a log payload of hundreds of thousands of parts cut to fit one line
    from dify_plugin.entities.model.message import AssistantPromptMessage, UserPromptMessage

    history = [UserPromptMessage(content="q"), AssistantPromptMessage(content="a")] * 30_000
    assert _ticks_during(lambda: history_turns(history)) >= 1
    parts = {"resources": [{"position": i, "content": "c", "title": "t"} for i in range(300_000)]}
    assert _ticks_during(lambda: fit(parts, 1024)) >= 1


def test_a_payload_of_too_many_parts_becomes_a_note_without_cutting_each_part():
    parts = [{"position": i, "content": "c"} for i in range(100_000)]
    fitted = fit(parts, 10_000)
    assert isinstance(fitted, dict) and set(fitted) == {"note"}
