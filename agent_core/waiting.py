"""Waiting for the next item of a backwards call's stream, within a time limit."""

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


def each_within[T](stream: Iterator[T], seconds: float | None, timed_out: Callable[[], Exception]) -> Iterator[T]:
    """Every item of the stream, each within ``seconds`` of asking for it (None: no limit; 0 or
    less: the time is already up); raises ``timed_out()`` past it.

    One libev timer serves the whole stream, restarted for each item (``again``: some 0.2 µs,
    against some 2.4 µs for a new ``gevent.Timeout``; a model stream asks for thousands of
    chunks) and stopped while the item is with the consumer: a timer left running could go off
    anywhere in the greenlet, inside the SDK's own code. When it goes off it throws a bare
    ``gevent.Timeout`` (a BaseException) into the greenlet waiting for the item: the SDK's
    reader (``FilterReader.read``, dify_plugin 0.10.2) ends a stream quietly on an ordinary
    exception raised while it waits.
    """
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


def _throw(greenlet: Any, error: BaseException) -> None:
    greenlet.throw(error)
