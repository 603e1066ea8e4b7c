"""waiting.next_within: the next item of a stream within a time limit, the timer never left running."""

import dify_plugin  # noqa: F401  (gevent's monkey patching, as in the plugin process)
import gevent
import pytest

from agent_core.waiting import END, each_within, next_within


class Slow(Exception):
    pass


def _stream(*delays: float):
    for number, delay in enumerate(delays):
        gevent.sleep(delay)
        yield number


def test_items_then_end():
    stream = _stream(0, 0)
    assert [next_within(stream, 1.0, Slow) for _ in range(3)] == [0, 1, END]
    assert next_within(iter([None]), None, Slow) is None  # a null item is an item, not the end


def test_an_item_later_than_the_limit_raises_the_callers_error():
    stream = _stream(0, 5)
    assert next_within(stream, 1.0, Slow) == 0
    with pytest.raises(Slow):
        next_within(stream, 0.05, Slow)


def test_a_limit_already_used_up_raises_at_once_without_waiting():
    started = []

    def stream():
        started.append(True)
        yield 1

    with pytest.raises(Slow):
        next_within(stream(), 0, Slow)
    with pytest.raises(Slow):
        next_within(stream(), -3.0, Slow)
    assert started == []


def test_no_timer_is_left_running_once_an_item_came():
    """The caller may hold on to the item (the SDK writes it) longer than the limit."""
    assert next_within(_stream(0), 0.05, Slow) == 0
    gevent.sleep(0.15)  # would raise gevent.Timeout here had the timer been left armed


def test_an_outer_timeout_is_not_taken_for_this_one():
    with pytest.raises(gevent.Timeout), gevent.Timeout(0.05):
        next_within(_stream(5), 10.0, Slow)


def test_each_item_within_its_own_limit_with_one_timer():
    """The limit is per item: 4 items 0.1 s apart within 0.25 s each, 0.4 s in all."""
    assert list(each_within(_stream(0.1, 0.1, 0.1, 0.1), 0.25, Slow)) == [0, 1, 2, 3]
    items = each_within(_stream(0, 5), 0.1, Slow)
    assert next(items) == 0
    gevent.sleep(0.2)  # the consumer holding an item longer than the limit is not a timeout
    with pytest.raises(Slow):
        next(items)
    assert list(each_within(_stream(0, 0), None, Slow)) == [0, 1]
    with pytest.raises(Slow):
        list(each_within(_stream(0), 0, Slow))


def test_each_within_leaves_an_outer_timeout_alone():
    with pytest.raises(gevent.Timeout), gevent.Timeout(0.05):
        list(each_within(_stream(5), 10.0, Slow))


@pytest.mark.parametrize("seconds", [None, 1.0])
def test_next_within_leaves_the_stream_open_for_the_next_item(seconds):
    stream = _stream(0, 0, 0)
    assert [next_within(stream, seconds, Slow) for _ in range(4)] == [0, 1, 2, END]


class Late(Exception):
    pass


def test_a_stream_that_never_pauses_long_still_ends_at_the_deadline():
    """Each item within the silence limit, but the whole stream past the deadline."""
    import time

    deadline = time.monotonic() + 0.3
    got = []
    with pytest.raises(Late):
        for item in each_within(_stream(*[0.05] * 40), 1.0, Slow, deadline=deadline, past_deadline=Late):
            got.append(item)
    # items come 50 ms apart: 5 or 6 before the deadline on a quiet machine, 4 seen under load;
    # the stream went on until the deadline and stopped there
    assert 1 <= len(got) <= 7 and 0 <= time.monotonic() - deadline < 0.1


def test_an_item_awaited_near_the_deadline_waits_only_until_it():
    import time

    deadline = time.monotonic() + 0.2
    with pytest.raises(Late):
        list(each_within(_stream(0, 5), 10.0, Slow, deadline=deadline, past_deadline=Late))
    assert time.monotonic() - deadline < 0.1


def test_a_stream_ending_before_the_deadline_is_read_whole():
    import time

    items = each_within(_stream(0, 0.01, 0.01), 1.0, Slow, deadline=time.monotonic() + 5, past_deadline=Late)
    assert list(items) == [0, 1, 2]


def _unreachable_after(wait) -> int:
    """Objects the collector finds unreachable (cycles) once ``wait()`` raised and returned."""
    import gc

    gc.collect()
    gc.disable()
    try:
        with pytest.raises((Slow, Late)):
            wait()
        return gc.collect()
    finally:
        gc.enable()


def test_a_limit_that_went_off_leaves_no_cycle_for_the_collector():
    """The error raised at a limit was kept in the waiting frame its traceback holds (and the
    timer's own exception in the object that owns the timer): each stuck session left its run's
    whole stack (its reply, its rounds) to a full collection, which comes seldom."""
    import time

    assert _unreachable_after(lambda: next_within(_stream(5), 0.02, Slow)) == 0
    assert _unreachable_after(lambda: list(each_within(_stream(5), 0.02, Slow))) == 0
    deadline = time.monotonic() + 0.02
    assert _unreachable_after(lambda: list(each_within(_stream(5), 1.0, Slow, deadline=deadline,
                                                       past_deadline=Late))) == 0


def _each_within_before(stream, seconds, timed_out, *, deadline=None, past_deadline=None):
    """``each_within`` as it read before its timers' per-item steps were inlined."""
    from agent_core import waiting

    if seconds is not None and seconds <= 0:
        raise timed_out()
    if seconds is None and (deadline is None or past_deadline is None):
        yield from stream
        return
    silence = waiting._Silence(seconds, timed_out)
    limit = waiting._Deadline(deadline, past_deadline)
    try:
        while True:
            limit.waiting()
            silence.waiting()
            try:
                item = next(stream, END)
            except waiting._Wake as error:
                mapped = silence.error_for(error) or limit.error_for(error)
                if mapped is None:
                    raise
                raise mapped from None
            finally:
                silence.received()
                limit.received()
            if item is END:
                return
            yield item
    finally:
        silence.close()
        limit.close()


@pytest.mark.parametrize(
    ("delays", "seconds", "deadline_in", "hold"),
    [
        ((0, 0, 0), 1.0, None, 0),  # items, no deadline
        ((0, 0.01, 0.01), None, 5.0, 0),  # a deadline only
        ((0, 0.3), 0.1, None, 0),  # silent past the limit
        ((0.05,) * 12, 1.0, 0.2, 0),  # never long silent, past the deadline
        ((0, 5), 10.0, 0.15, 0),  # awaited at the deadline
        ((0, 0, 0), 0.05, 0.1, 0.12),  # each item held past both limits by the consumer: no timer goes off there
        ((0, 0), 0, None, 0),  # a limit already used up
    ],
)
def test_each_within_gives_what_it_gave_before_its_steps_were_inlined(delays, seconds, deadline_in, hold):
    import time

    def outcome(reader):
        deadline = None if deadline_in is None else time.monotonic() + deadline_in
        got = []
        try:
            for item in reader(_stream(*delays), seconds, Slow, deadline=deadline, past_deadline=Late if deadline else None):
                got.append(item)
                gevent.sleep(hold)
        except (Slow, Late) as error:
            return got, type(error)
        return got, None

    assert outcome(each_within) == outcome(_each_within_before)
