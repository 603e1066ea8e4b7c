"""When each session's request reached the plugin, so that a run's time limit counts from there.

Dify's plugin daemon starts a session's clock (``PLUGIN_MAX_EXECUTION_TIMEOUT``) once it has handed
the request over, and ends the session when the clock runs out, whatever the plugin is doing. The
plugin then still parses the request line and reads the node's parameters before its loop starts:
0.05 s for a small request, 0.3 s for 8 MB of memory, 2.3 s for memory of 100,000 messages on a
quiet machine, several times that on a loaded one. A limit counted from the loop's start would
end that much past the daemon's.

The readers of the daemon's lines (``sdk_speedups``) note each request as it arrives, before it is
parsed (``note``); the loop asks for its session's (``arrived``). A bounded number of sessions is
kept: the newest ``REMEMBERED``.
"""

from __future__ import annotations

from collections import OrderedDict

REMEMBERED = 10_000
"""Sessions whose arrival is kept: far more than run at once on one process."""

_arrivals: OrderedDict[str, float] = OrderedDict()


def note(session_id: str, at: float) -> None:
    """Note that the request of ``session_id`` arrived at ``at`` (a ``time.monotonic()`` value); the
    oldest noted sessions past ``REMEMBERED`` are forgotten. A session noted again keeps its first
    arrival (a request sent twice is run once, from the first)."""
    if session_id in _arrivals:
        return
    _arrivals[session_id] = at
    while len(_arrivals) > REMEMBERED:
        _arrivals.popitem(last=False)


def arrived(session_id: str | None) -> float | None:
    """When the request of ``session_id`` arrived (``time.monotonic()``), or ``None`` when it was not
    noted (a transport whose reader does not note, a test that runs the loop directly)."""
    if session_id is None:
        return None
    return _arrivals.get(session_id)
