"""agent_core.sdk_speedups.read_polling_with_one_timer (``FilterReader.read`` once ``main.py``
applied ``read_replies_with_one_timer``): a backwards call's lines come as the SDK's own reader
gives them, the same lines in the same order, a ``None`` poll for each ``timeout_for_round`` of
silence, the end at the reader's close, and an exception thrown into the waiting greenlet (the
strategy's own silence limit) goes through it."""

from __future__ import annotations

import random

import gevent
import pytest
from dify_plugin.core.server.__base.filter_reader import FilterReader

import main  # noqa: F401  (the plugin as the daemon starts it: the SDK changes applied)
from agent_core import sdk_speedups

ROUND = 0.04
"""Seconds between two polls of the tests' readers."""


def _sdk_read(reader: FilterReader, timeout_for_round: float | None = None):
    return sdk_speedups._SDK_FILTER_READ[0](reader, timeout_for_round)


def _played(read, batches: list[list[object]], gaps: list[float]) -> list[object]:
    """What ``read`` gives while a producer puts ``batches`` (each at once), ``gaps[i]`` seconds
    before batch ``i``, then closes the reader."""
    reader = FilterReader(lambda data: True)

    def produce() -> None:
        for gap, batch in zip(gaps, batches, strict=True):
            gevent.sleep(gap)
            for item in batch:
                reader.write(item)
        reader.close()

    producer = gevent.spawn(produce)
    got = list(read(reader, ROUND))
    producer.join()
    return got


def _shape(got: list[object]) -> tuple[list[object], list[int]]:
    """The lines in order, and the polls counted between two lines (and before the first)."""
    lines, polls, run = [], [], 0
    for item in got:
        if item is None:
            run += 1
        else:
            lines.append(item)
            polls.append(run)
            run = 0
    return lines, polls


def test_the_sdks_reader_is_replaced():
    assert FilterReader.read is sdk_speedups.read_polling_with_one_timer
    assert sdk_speedups.read_replies_with_one_timer() is True  # a second time changes nothing
    assert sdk_speedups._SDK_FILTER_READ[0] is not sdk_speedups.read_polling_with_one_timer


@pytest.mark.parametrize("seed", range(3))
def test_lines_and_polls_come_as_from_the_sdks_reader(seed):
    rng = random.Random(seed)
    batches = [[{"n": n, "k": k} for k in range(rng.randrange(1, 4))] for n in range(6)]
    gaps = [rng.choice([0.0, 0.0, ROUND * 2.5]) for _ in batches]
    before = _shape(_played(_sdk_read, batches, gaps))
    now = _shape(_played(sdk_speedups.read_polling_with_one_timer, batches, gaps))
    assert now[0] == before[0] == [item for batch in batches for item in batch]
    for polls, gap_polls in ((before[1], gaps), (now[1], gaps)):
        firsts = [sum(len(batch) for batch in batches[:i]) for i in range(len(batches))]
        for i, gap in enumerate(gap_polls):
            # a silence of 2.5 rounds: two polls (one when the machine is slow); none within a batch
            assert polls[firsts[i]] in ((1, 2) if gap else (0,))
        assert all(polls[j] == 0 for j in range(len(polls)) if j not in firsts)


def test_a_reader_closed_at_once_gives_nothing():
    assert _played(sdk_speedups.read_polling_with_one_timer, [[]], [0.0]) == []


def test_a_silent_call_polls_once_a_round_until_closed():
    reader = FilterReader(lambda data: True)
    gevent.spawn_later(ROUND * 3.5, reader.close)
    got = list(sdk_speedups.read_polling_with_one_timer(reader, ROUND))
    assert got and set(got) == {None} and 2 <= len(got) <= 3


def test_an_exception_thrown_into_the_waiting_greenlet_goes_through_and_the_timer_ends():
    """The strategy's silence limit throws into the greenlet waiting in the reader (``waiting``):
    it must not be taken for a poll, nor end the stream quietly."""
    reader = FilterReader(lambda data: True)
    lines = sdk_speedups.read_polling_with_one_timer(reader, ROUND)
    with pytest.raises(gevent.Timeout), gevent.Timeout(ROUND / 4):  # before the round's poll
        next(lines)
    with pytest.raises(StopIteration):  # the stream ended with the error
        next(lines)
    reader.write({"after": 1})  # nothing waits for it
    # the call's timer, were it left running, would throw its poll into this greenlet every round
    gevent.sleep(ROUND * 4)


def test_without_a_round_the_sdks_reader_reads():
    reader = FilterReader(lambda data: True)
    reader.write({"n": 1})
    reader.close()
    assert list(sdk_speedups.read_polling_with_one_timer(reader)) == [{"n": 1}]
