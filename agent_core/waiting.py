"""Waiting for the next item of a backwards call's stream, within a time limit."""

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from gevent import getcurrent
from gevent.hub import get_hub
from pydantic import ValidationError

END = object()
"""What ``next_within`` returns at the end of the stream."""


def next_within[T](stream: Iterator[T], seconds: float | None, timed_out: Callable[[], Exception]) -> T | object:
    """The stream's next item, or ``END`` at its end; raises ``timed_out()`` when none came within
    ``seconds`` (None: wait as long as it takes; 0 or less: the time is already up). The wait of
    ``each_within`` for one item, without its generator (a tool's stream asks for each of its
    messages so): its timer is gone once this returns."""
    if seconds is not None and seconds <= 0:
        raise timed_out()
    if seconds is None:
        return next(stream, END)
    silence = _Silence(seconds, timed_out)
    try:
        silence.waiting()
        try:
            return next(stream, END)
        except _Wake as error:
            error.__traceback__ = None  # its timer's owner keeps it: the traceback would hold this frame
            if (mapped := silence.error_for(error)) is None:
                raise
            try:
                raise mapped from None
            finally:
                mapped = None  # its traceback holds this frame: kept here, a cycle only a full collection frees
        finally:
            silence.received()
    finally:
        silence.close()


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
    anywhere in the greenlet, inside the SDK's own code. When it goes off it throws a
    BaseException (``_Wake``) into the greenlet waiting for the item. The deadline has one timer for the whole stream: going off
    while an item is awaited it throws the same way; going off while the item is with the
    consumer it only marks the deadline passed, raised when the next item is asked for.
    """
    if seconds is not None and seconds <= 0:
        raise timed_out()
    if seconds is None and (deadline is None or past_deadline is None):
        for item in stream:  # not ``yield from``: closing this must not close ``stream`` (next_within)
            yield item
        return
    silence = _Silence(seconds, timed_out)
    limit = _Deadline(deadline, past_deadline)
    # ``limit.waiting(); silence.waiting()`` and ``silence.received(); limit.received()`` inlined:
    # four Python calls an item otherwise, and a reply streams thousands of items
    timer, expired, timed = silence._timer, silence._expired, limit._timer is not None
    try:
        while True:
            if limit._passed and past_deadline is not None:
                raise past_deadline()
            current = getcurrent()  # one timer at least runs here (none: the loop above)
            if timed:
                limit._awaiting = current
            if timer is not None:
                timer.again(_throw, current, expired, update=True)
            try:
                item: Any = next(stream, END)
            except _Wake as error:
                error.__traceback__ = None  # kept by its timer's owner: a traceback would hold this frame (a cycle)
                mapped = silence.error_for(error) or limit.error_for(error)
                if mapped is None:
                    raise
                try:
                    raise mapped from None
                finally:
                    mapped = None  # as in ``next_within``
            finally:
                if timer is not None:
                    timer.stop()
                limit._awaiting = None
            if item is END:
                return
            yield item
    finally:
        silence.close()
        limit.close()


class _Wake(BaseException):
    """Thrown by a stream's own timer into the greenlet awaiting its next item. A
    BaseException, as ``gevent.Timeout`` is: the SDK's reader (``FilterReader.read``,
    dify_plugin 0.10.2) ends a stream quietly on an ordinary exception raised while it waits."""


class _Silence:
    """The silence limit of one stream: one timer, restarted for each awaited item (None
    seconds: no limit)."""

    def __init__(self, seconds: float | None, timed_out: Callable[[], Exception]) -> None:
        self._expired = _Wake()
        self._timed_out = timed_out
        self._timer = get_hub().loop.timer(seconds, seconds) if seconds is not None else None

    def waiting(self) -> None:
        if self._timer is not None:
            self._timer.again(_throw, getcurrent(), self._expired, update=True)

    def received(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def error_for(self, error: BaseException) -> Exception | None:
        return self._timed_out() if error is self._expired else None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.close()


class _Deadline:
    """The deadline of one stream (None: none): a one-shot timer that throws into the greenlet
    while it awaits an item, and otherwise only marks the deadline passed."""

    def __init__(self, deadline: float | None, past_deadline: Callable[[], Exception] | None) -> None:
        self._past_deadline = past_deadline
        self._passed = False
        self._awaiting: Any = None  # the greenlet awaiting an item, while it does
        self._late: _Wake | None = None
        self._timer = None
        if deadline is not None and past_deadline is not None:
            self._late = _Wake()
            self._timer = get_hub().loop.timer(max(deadline - time.monotonic(), 0.0))
            self._timer.start(self._go_off, update=True)

    def _go_off(self) -> None:
        self._passed = True
        if self._awaiting is not None:
            self._awaiting.throw(self._late)

    def waiting(self) -> None:
        """An item is about to be awaited: raises ``past_deadline()`` if the deadline passed."""
        if self._passed and self._past_deadline is not None:
            raise self._past_deadline()
        if self._timer is not None:
            self._awaiting = getcurrent()

    def received(self) -> None:
        self._awaiting = None

    def error_for(self, error: BaseException) -> Exception | None:
        return self._past_deadline() if self._late is not None and error is self._late and self._past_deadline else None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.close()


def _throw(greenlet: Any, error: BaseException) -> None:
    greenlet.throw(error)


SILENCE_LIMIT_WITHOUT_SESSION = 250
"""Seconds a backwards call may stay silent when the reader has no session (the SDK's own
default, ``BackwardsInvocation._line_converter_wrapper``)."""


INPUT_CLOSED = (
    "the daemon closed the plugin's input before this call's reply ended: no reply can come any more"
)

_INPUT_ENDED: list[bool] = []
"""Holds ``True`` once the daemon's pipe reached its end (``end_of_input``)."""


def end_of_input() -> None:
    """Note that nothing more can come from the daemon (stdin ended): every backwards call then
    waiting, or made later, fails at its next poll (``daemon_events``) instead of waiting for the
    SDK's invocation limit (minutes)."""
    _INPUT_ENDED[:] = [True]


CONNECTION_LOST = (
    "the plugin's connection to the daemon was lost before this call's reply ended: the reply cannot "
    "come on a new connection"
)

_CONNECTIONS_LOST: list[int] = [0]
"""How many times the connection to the daemon was lost (``connection_lost``)."""


def connection_lost() -> None:
    """Note that the connection to the daemon (remote debugging's TCP) was lost: every backwards call
    waiting then fails at its next poll (``daemon_events``), as at the end of stdin. Calls made
    afterwards, on the connection the SDK makes again, wait as usual: the daemon's new runtime knows
    none of the old sessions, so no reply for an old call can come on it."""
    _CONNECTIONS_LOST[0] += 1


def daemon_events(lines: Iterator[Any], session: Any) -> Iterator[Mapping[str, Any]]:
    """The events of a backwards call's stream as the SDK's reader waits for them
    (``BackwardsInvocation._line_converter_wrapper``, dify_plugin 0.10.2): a ``None`` line is the
    reader's poll, once a second; after ``session.max_invocation_timeout`` of them in a row
    (``SILENCE_LIMIT_WITHOUT_SESSION`` without a session) raises ``Exception("invocation exited
    without response after N seconds")``, the SDK's words. Every other line's ``data``, or ``{}``
    when it is not a mapping; what each event means is the caller's to read. Once the daemon's
    input ended (``end_of_input``), a poll raises ``ConnectionError(INPUT_CLOSED)``: the lines
    already read are handed on first; so, with ``ConnectionError(CONNECTION_LOST)``, once the
    connection the call was made on was lost (``connection_lost``)."""
    connection = _CONNECTIONS_LOST[0]
    silent_seconds = 0
    limit = session.max_invocation_timeout if session else SILENCE_LIMIT_WITHOUT_SESSION
    try:
        for line in lines:
            if line is None:
                if _INPUT_ENDED:
                    raise ConnectionError(INPUT_CLOSED)
                if _CONNECTIONS_LOST[0] != connection:
                    raise ConnectionError(CONNECTION_LOST)
                silent_seconds += 1
                if silent_seconds >= limit:
                    raise Exception(f"invocation exited without response after {limit} seconds")
                continue
            silent_seconds = 0
            data = line.data
            yield data if type(data) is dict or isinstance(data, Mapping) else {}  # a dict: no abc check
    except ValidationError as error:
        raise ConnectionError(unreadable_reply(error)) from None


UNREADABLE_REPLY = (
    "the daemon answered this call with a line that is not a session message ({size:,} bytes: {reason}); "
    "a serverless daemon answers so when it no longer knows the session (restarted, or the session "
    "ended). The line is not shown: it may hold a tool's data"
)


def unreadable_reply(error: ValidationError) -> str:
    """Why a backwards call's reply line could not be read (``UNREADABLE_REPLY``: its size and
    pydantic's reasons, never its text, which pydantic's own message quotes and a traceback would
    carry to the daemon). The serverless reader (dify_plugin 0.10.2 ``core/runtime.py``,
    ``_http_backwards_invoke``) parses the daemon's HTTP reply without looking at its status: a
    refusal such as ``400 session not found`` reached the user as "Invalid JSON: expected value at
    line 1 column 1" with the refusal's text in the traceback."""
    problems = error.errors(include_url=False)
    size = max((len(item["input"]) for item in problems if isinstance(item.get("input"), str | bytes)), default=0)
    reason = "; ".join(str(item.get("msg", "")) for item in problems[:3])[:300]
    return UNREADABLE_REPLY.format(size=size, reason=reason)
