"""Waiting for the next item of a backwards call's stream, within a time limit."""

from collections.abc import Callable, Iterator

import gevent

END = object()
"""What ``next_within`` returns at the end of the stream."""


def next_within[T](stream: Iterator[T], seconds: float | None, timed_out: Callable[[], Exception]) -> T | object:
    """The stream's next item, or ``END`` at its end; raises ``timed_out()`` when none came within
    ``seconds`` (None: wait as long as it takes; 0 or less: the time is already up).

    The timer is a bare ``gevent.Timeout`` (a BaseException) started in the calling greenlet and
    closed before this returns: the SDK's reader (``FilterReader.read``, dify_plugin 0.10.2)
    ends a stream quietly on an ordinary exception raised while it waits, and a timer left
    running could go off later anywhere in the greenlet, inside the SDK's own code.
    """
    if seconds is not None and seconds <= 0:
        raise timed_out()
    timer = gevent.Timeout(seconds) if seconds is not None else None
    if timer is not None:
        timer.start()
    try:
        return next(stream, END)
    except gevent.Timeout as expired:
        if expired is not timer:
            raise
        raise timed_out() from None
    finally:
        if timer is not None:
            timer.close()
