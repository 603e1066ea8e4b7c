"""agent_core.fairness: long CPU work lets the other sessions of the process run.

Only the first test reads the real clock, and only for a lower bound that a loaded machine
raises (a preempted item lasts longer, never shorter); the others set the clock or the slice,
so a slow or busy CI machine cannot change what they see."""

import random
import time
from types import SimpleNamespace

import gevent

from agent_core import fairness
from agent_core.budget import history_turns
from agent_core.line_budget import fit


def ticks_during(work) -> int:
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

    # 30 items of at least a third of a slice each (wall clock): a switch at least every 4th
    assert ticks_during(work) >= 5


def test_give_way_switches_only_once_a_slice_has_passed(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(fairness, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    monkeypatch.setattr(fairness, "_last", now[0])  # a fresh slice, on a clock that moves when told

    def within_the_slice() -> None:
        for _ in range(100):
            fairness.give_way()
        now[0] += fairness.SLICE_SECONDS * 0.9
        fairness.give_way()

    def past_it() -> None:
        now[0] += fairness.SLICE_SECONDS * 0.2
        fairness.give_way()

    assert ticks_during(within_the_slice) == 0
    assert ticks_during(past_it) >= 1
    # the slice starts again where it gave way
    assert ticks_during(lambda: [fairness.give_way() for _ in range(100)]) == 0


def test_the_long_walks_give_way_between_items(monkeypatch):
    # the loops found holding the process for seconds: memory of 60,000 messages split into
    # turns, a log payload of hundreds of thousands of parts cut to fit one line. With no slice
    # at all each give_way switches, so the ticks count how often the walk offers to: once an
    # item, not once a walk
    from dify_plugin.entities.model.message import AssistantPromptMessage, UserPromptMessage

    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)
    history = [UserPromptMessage(content="q"), AssistantPromptMessage(content="a")] * 1_000
    assert ticks_during(lambda: history_turns(history)) >= len(history)
    parts = {"resources": [{"position": i, "content": "c", "title": "t"} for i in range(2_000)]}
    assert ticks_during(lambda: fit(parts, 1024)) >= len(parts["resources"])


def test_a_payload_of_too_many_parts_becomes_a_note_without_cutting_each_part():
    parts = [{"position": i, "content": "c"} for i in range(100_000)]
    fitted = fit(parts, 10_000)
    assert isinstance(fitted, dict) and set(fitted) == {"note"}


def test_a_loop_that_gives_way_lets_a_greenlet_waiting_for_a_timer_or_a_line_run():
    """A session waits for the daemon's next line (the event loop's poll) or a timer (the SDK's
    heartbeat), not for a callback: ``gevent.sleep(0)`` let the hub run 50 queued callbacks, half
    a second of slices, before it polled or fired a timer. Real clock, lower bound only."""
    ticks = []

    def waiting_session() -> None:
        while True:
            gevent.sleep(0.001)  # a timer, as a read of the daemon's pipe is an IO watcher
            ticks.append(time.perf_counter())

    other = gevent.spawn(waiting_session)
    gevent.sleep(0.01)
    ticks.clear()
    try:
        for _ in range(30):
            _busy(fairness.SLICE_SECONDS / 3)
            fairness.give_way()
    finally:
        other.kill()
    # 30 items of at least a third of a slice each: at least 7 slices, a tick after each
    assert len(ticks) >= 5


def test_a_model_reply_sent_whole_is_read_in_slices_that_give_way(monkeypatch):
    """A blocking call's one chunk of megabytes (50,000 ReAct actions, 300,000 ``<tool_call>``
    tokens) was read in one stretch: another session on the process waited 1.7 s and 19 s. Each
    strategy's reader takes it in ``SLICE_CHARS`` pieces, offering to give way between them."""
    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.model_call import ModelChunk
    from agent_core.react.turn import read_react_turn
    from agent_core.tool_schema import ToolRegistry

    text = "x" * 3 + "y" * (fairness.SLICE_CHARS * 2)
    assert "".join(fairness.slices(text)) == text
    assert [len(piece) for piece in fairness.slices(text)] == [fairness.SLICE_CHARS, fairness.SLICE_CHARS, 3]
    monkeypatch.setattr(fairness, "SLICE_SECONDS", 0.0)

    def drained(generator) -> None:
        for _ in generator:
            pass

    reply = "Thought: x\n" + 'Action: t\nAction Input: {"q": "a"}\n' * 5_000  # 180,000 characters
    pieces = -(-len(reply) // fairness.SLICE_CHARS)
    react = lambda: drained(read_react_turn(iter([ModelChunk(text=reply)]), ToolRegistry([]), 1))  # noqa: E731
    fc = lambda: drained(read_function_calling_turn(iter([ModelChunk(text="<tool_call>" * 20_000)]), []))  # noqa: E731
    assert ticks_during(react) >= pieces - 1
    assert ticks_during(fc) >= (20_000 * len("<tool_call>")) // fairness.SLICE_CHARS - 1


def test_redacting_a_long_text_gives_way_between_the_needles_of_many_secrets(monkeypatch):
    # 20 secrets are some 800 forms, looked for with one str.find over the whole text for each
    # group sharing a start (5 MB: 2 ms a find; each form once took its own find, 0.4-0.9 s with
    # no switch while no form was found); a switch may come between two finds
    from agent_core import redaction
    from agent_core.redaction import _FIND_EACH_FORM_MAX, REDACTED, _Secrets

    secrets = _Secrets([f"sk-{n:04d}-secretvalue-{n * 7919:08d}" for n in range(20)])
    assert len(secrets._forms) > 500 and len(secrets._needles) <= _FIND_EACH_FORM_MAX  # one find a needle
    every = " ".join(needle for needle, *_ in secrets._needles)  # no needle skipped: all their characters stand in it
    text = ("record 1 value abc; " + every) * 50 + "key sk-0007-secretvalue-00055433 end"
    offers = []
    monkeypatch.setattr(redaction, "give_way", lambda: offers.append(1))
    redacted = secrets.redact(text)
    assert len(offers) >= len(secrets._needles)
    assert redacted.endswith(f"key {REDACTED} end") and "secretvalue" not in redacted


def test_redacting_a_long_text_for_more_secrets_gives_way_as_it_goes(monkeypatch):
    # past _FIND_EACH_NEEDLE_MAX needles (secrets that share no start) the text is read once, by
    # its blocks: a switch may come every _BLOCKS_AT_ONCE blocks
    from agent_core import redaction
    from agent_core.redaction import _BLOCKS_AT_ONCE, _FIND_EACH_NEEDLE_MAX, REDACTED, _Secrets

    rng = random.Random(3)
    keys = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24)) for _ in range(80)]
    secrets = _Secrets(keys)
    assert len(secrets._needles) > _FIND_EACH_NEEDLE_MAX and secrets._blocks  # read by blocks
    text = "record 1 value abc; " * 40_000 + f"key {keys[7]} end"
    compact = "".join(redaction._fold(text).split())
    offers = []
    monkeypatch.setattr(redaction, "give_way", lambda: offers.append(1))
    assert len(secrets._candidates(compact)) == 1
    assert len(offers) >= len(compact) // (8 * _BLOCKS_AT_ONCE) > 5
    redacted = secrets.redact(text)
    assert redacted.endswith(f"key {REDACTED} end") and keys[7] not in redacted


def test_a_long_almost_json_text_is_repaired_while_other_sessions_run():
    # json_repair reads 3-4 microseconds a character and cannot give way: 1.8 MB held every
    # other session 6.5 s. A text over REPAIR_ON_HUB_CHARS is repaired in a native thread, and
    # its value and the trust rule are the same as on the hub
    from agent_core import json_args

    text = "{" + ", ".join(f"k{n}: 'v{n}'" for n in range(20_000)) + ",}"
    assert len(text) > json_args.REPAIR_ON_HUB_CHARS
    values = []
    assert ticks_during(lambda: values.append(json_args.loads_lenient(text))) >= 10
    assert values[0] == {f"k{n}": f"v{n}" for n in range(20_000)}
    refused = "{" + ", ".join(f"k{n}: 'v{n}'" for n in range(2_000)) + ", total: 37 * 91}"
    try:
        json_args.loads_lenient(refused)
    except json_args.ArgumentsError as error:
        assert "37" in str(error) or "91" in str(error)
    else:
        raise AssertionError("a repair losing a word the model wrote must be refused off the hub too")
