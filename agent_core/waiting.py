"""Waiting for the next item of a backwards call's stream, within a time limit."""

import time
from collections.abc import Callable, Iterator
from typing import Any

import gevent
from gevent import getcurrent
from gevent.hub import get_hub

END = object()
"""What ``next_within`` returns at the end of the stream."""


def next_within[T](stream: Iterator[T], seconds: float | None, timed_out: Callable[[], Exception]) -> T | object:
    """The stream's next item, or ``END`` at its end; raises ``timed_out()`` when none came within
    ``seconds`` (None: wait as long as it takes; 0 or less: the time is already up). The wait of
    ``each_within`` for one item: its timer is gone once this returns."""
    return next(each_within(stream, seconds, timed_out), END)


def each_within[T](
    stream: Iterator[T],
    seconds: float | None,
    timed_out: Callable[[], Exception],
    *,
    deadline: float | None = None,
    past_deadline: Callable[[], Exception] | None = None,
) -> Iterator[T]:
    """Every item of the stream, each within ``seconds`` of asking for it (None: no limit; 0 or
    less: the time is already up); raises ``timed_out()`` past it. With ``deadline`` (a
    ``time.monotonic()`` value) and ``past_deadline``, every item also comes before it, else
    ``past_deadline()`` is raised (also between items: a stream that never pauses long ends too).

    One libev timer serves the whole stream, restarted for each item (``again``: some 0.2 µs,
    against some 2.4 µs for a new ``gevent.Timeout``; a model stream asks for thousands of
    chunks) and stopped while the item is with the consumer: a timer left running could go off
    anywhere in the greenlet, inside the SDK's own code. When it goes off it throws a bare
    ``gevent.Timeout`` (a BaseException) into the greenlet waiting for the item: the SDK's
    reader (``FilterReader.read``, dify_plugin 0.10.2) ends a stream quietly on an ordinary
    exception raised while it waits.
    """
    if deadline is not None and past_deadline is not None:
        yield from _before(stream, seconds, timed_out, deadline, past_deadline)
        return
    if seconds is None:
        for item in stream:  # not ``yield from``: closing this must not close ``stream`` (next_within)
            yield item
        return
    if seconds <= 0:
        raise timed_out()
    expired = gevent.Timeout()  # never started: only thrown by the timer below
    timer = get_hub().loop.timer(seconds, seconds)
    try:
        while True:
            timer.again(_throw, getcurrent(), expired, update=True)
            try:
                item: Any = next(stream, END)
            except gevent.Timeout as error:
                if error is not expired:
                    raise
                raise timed_out() from None
            finally:
                timer.stop()
            if item is END:
                return
            yield item
    finally:
        timer.close()


def _before[T](
    stream: Iterator[T],
    seconds: float | None,
    timed_out: Callable[[], Exception],
    deadline: float,
    past_deadline: Callable[[], Exception],
) -> Iterator[T]:
    """``each_within`` with a deadline: while it is further than ``seconds``, the shared timer
    of ``each_within``; nearer, each item waits on a timer of its own, up to the deadline."""
    if seconds is not None:
        items = each_within(stream, seconds, timed_out)
        try:
            while time.monotonic() < deadline - seconds:
                item = next(items, END)
                if item is END:
                    return
                yield item
        finally:
            items.close()
    while (item := _next_before(stream, deadline, past_deadline)) is not END:
        yield item


def _next_before(stream: Iterator[Any], deadline: float, past_deadline: Callable[[], Exception]) -> Any:
    """The stream's next item (``END`` at its end) before ``deadline``, else ``past_deadline()``."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise past_deadline()
    return next_within(stream, left, past_deadline)


def _throw(greenlet: Any, error: BaseException) -> None:
    greenlet.throw(error)
