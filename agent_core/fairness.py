"""Letting the other sessions of the process run during long CPU work.

The SDK serves every session of a plugin process on one gevent hub (one OS thread): a greenlet
that computes for a second (megabytes of tool output, tens of thousands of memory messages or
citations, a reply in a hundred thousand chunks) holds every other session's stream, and the
SDK's heartbeat, for that second. Loops that may run long call ``give_way()`` once per item: it
costs one clock read, and hands over to the hub (``gevent.sleep(POLL_SECONDS)``: every greenlet that is
ready runs once, the event loop polls the daemon's pipe and fires its timers, then this one
goes on) when the current greenlet has computed for ``SLICE_SECONDS`` since the process last
gave way.
"""

import gc
import time
from collections.abc import Callable, Collection, Iterable, Iterator

import gevent

SLICE_SECONDS = 0.01
"""Seconds of computing after which ``give_way`` lets the other greenlets run: another
session's stream then waits at most about this long per slice (goal: gaps under 100 ms)."""

POLL_SECONDS = 1e-6
"""What ``give_way`` sleeps: a timer, so that the event loop polls before this greenlet goes on.
``gevent.sleep(0)`` only queues a callback, and the hub runs queued callbacks 50 at a time
before it looks at the time (``CALLBACK_CHECK_COUNT`` in gevent's ``_ffi/loop.py``,
``_run_callbacks``): a greenlet giving way every 10 ms with nothing else ready went on for
half a second before the loop read a line from the daemon or fired a timer (the other
sessions' streams, the tool results they wait for, the SDK's heartbeat) - the sessions woken
that way are all of them. A timer is served on the loop's next pass, after it polls."""

_last = time.perf_counter()


def give_way() -> None:
    """Let the other greenlets run, those waiting for a line or a timer too, when this stretch of
    work has lasted ``SLICE_SECONDS``.

    Call it between items of a loop, never while holding something another greenlet needs (a
    half-written line, a lock). Raises what a switch may raise in this greenlet (gevent's
    ``GreenletExit`` when the run is killed), like any other wait."""
    global _last
    now = time.perf_counter()
    if now - _last >= SLICE_SECONDS:
        hand_over()
        _last = time.perf_counter()


def hand_over() -> None:
    """Let every other ready greenlet run once, the event loop having polled the daemon's pipe
    and fired its timers first (``POLL_SECONDS``), then go on: ``give_way`` when its slice is
    up, and loops that slice their work themselves (``tokens``). Raises what a switch may raise
    in this greenlet (gevent's ``GreenletExit`` when the run is killed)."""
    gevent.sleep(POLL_SECONDS)


def off_hub[T](function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` run in a native thread of the hub's thread pool, this greenlet waiting
    for it as for any result: for long pure-Python work that cannot call ``give_way`` (a
    third-party parser such as ``json_repair``, seconds on megabytes). The interpreter then hands
    its lock between that thread and the hub's every switch interval (5 ms), so the other
    sessions run meanwhile; work in C that holds the lock (a regex, ``json.loads``) gains
    nothing. Returns what ``function`` returns and raises what it raises (and what a wait may
    raise in this greenlet: gevent's ``GreenletExit`` when the run is killed, the thread then
    finishing on its own)."""
    return gevent.get_hub().threadpool.apply(function, args)


SLICE_CHARS = 16384
"""Characters of a model's text chunk a reader takes at once: a reply sent whole (a blocking
call's one chunk, megabytes of it) is read as if it had been streamed in pieces of this size,
the other sessions running between them (``slices``)."""


def slices(text: str) -> Iterator[str]:
    """``text`` in pieces of ``SLICE_CHARS`` characters, in order, with ``give_way()`` before each
    piece after the first: for a streaming reader (which reads any split of a text as it reads
    the whole) to take a chunk of megabytes without holding the other sessions (50,000 ReAct
    actions in one chunk held them 1.7 s). Raises what ``give_way`` raises."""
    for start in range(0, len(text), SLICE_CHARS):
        if start:
            give_way()
        yield text[start : start + SLICE_CHARS]


GRAIN = 1000
"""Items a walk over a decoded value (a call's arguments of hundreds of thousands of keys, a
chunk of a hundred thousand tool calls) takes between two offers to give way (``paced``): one
clock read per thousand items, where one per item would cost the usual small walk a Python
call an item."""


def paced[T](items: Collection[T], grain: int = GRAIN) -> Iterable[T]:
    """``items`` in order, with ``give_way()`` after every ``grain``-th: ``items`` itself when it
    holds no more than ``grain`` (the usual walk gains no call an item), else a generator. For
    loops over one container of any size, each item a little Python work (a key of 300,000 in a
    call's arguments, a call of 100,000 in one chunk). Raises what ``give_way`` raises."""
    if len(items) <= grain:
        return items
    return _paced(items, grain)


def _paced[T](items: Iterable[T], grain: int) -> Iterator[T]:
    for number, item in enumerate(items, 1):
        yield item
        if not number % grain:
            give_way()


_paused = 0
"""How many stretches of work hold the collector off now (``collection_paused``), of any session."""
_collecting = False
"""Whether the collector ran when the first of them began: it runs again when the last one ends."""


class collection_paused:  # named as the function it replaced: ``with collection_paused():``
    """Python's cyclic garbage collector held off for a stretch of work that builds tens of
    thousands of objects and keeps them (a memory of 100,000 messages read, cleaned, split into
    turns and measured): each allocation past a threshold starts a collection, and those of the
    oldest generation walk every object alive, the new messages included, again and again. That
    was two thirds of reading such a memory (0.5 s of CPU of 0.7) and a third of fitting it to the
    window (0.5 s of 1.5). Objects are still freed as their last reference goes; only cycles wait
    for the stretch's end. Process-wide, as the collector is: nested and concurrent stretches (other
    sessions run while this one gives way) count, and the collector runs again after the last one
    ends, if it ran before the first one began. For CPU work only, never around a wait for the
    network. A class, not a ``contextlib.contextmanager`` generator: it is entered every round
    (``AgentLoop._fitted_request``), and the generator's wrapping cost four Python calls more."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _paused, _collecting
        if _paused == 0:
            _collecting = gc.isenabled()
            gc.disable()
        _paused += 1

    def __exit__(self, *exc: object) -> None:
        global _paused
        _paused -= 1
        if _paused == 0 and _collecting:
            gc.enable()
