"""agent_core.fairness.hub_ran: a greenlet back from waiting on the hub (the stdin reader for the
daemon's next line, a backwards call for its next line) starts a new slice of work, so the time
the process spent waiting is not taken for work that held the other sessions: ``give_way`` then
hands over only after ``SLICE_SECONDS`` of work, as before, and no longer after every wait of
that length (1.7 hand-overs a round of a ReAct run, each a timer and two switches)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import gevent
from dify_plugin.core.server.__base.filter_reader import FilterReader

import main  # noqa: F401  (the plugin as the daemon starts it: the SDK changes applied)
from agent_core import fairness

_WAITING_READER_CHILD = r"""
import sys
import dify_plugin  # gevent's monkey patching, as in the plugin process
from agent_core import fairness
from agent_core.sdk_speedups import read_stdin_nonblocking
from dify_plugin.core.server.stdio.request_reader import StdioRequestReader

assert read_stdin_nonblocking()
handed = []
real = fairness.hand_over
fairness.hand_over = lambda: (handed.append(1), real())
reader = StdioRequestReader()
fairness.hub_ran()  # start-up's work (imports) is not this test's
sys.stderr.write("ready\n")
sys.stderr.flush()
for n, message in enumerate(reader._read_stream(), start=1):
    if n == 3:
        break
sys.stderr.write(f"handed={len(handed)}\n")
"""


def test_the_stdin_readers_waits_for_the_daemon_are_not_counted_as_work():
    """Three lines 0.1 s apart (a slice is 0.01 s): the reader waits on the hub for each and does
    not hand over after the wait (the SDK's reader waits the same way and never gave way)."""
    child = subprocess.Popen([sys.executable, "-c", _WAITING_READER_CHILD], stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2])
    assert child.stderr.readline() == b"ready\n"  # the lines come once the reader waits for them
    for n in range(3):
        time.sleep(0.1)
        child.stdin.write(b'{"session_id": "s%d", "event": "request", "data": {"n": %d}}\n' % (n, n))
        child.stdin.flush()
    child.stdin.close()
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 0, stderr.decode()
    assert stderr.decode().splitlines()[-1] == "handed=0"


def test_a_backwards_call_back_from_its_wait_starts_a_new_slice(monkeypatch):
    handed = []
    monkeypatch.setattr(fairness, "hand_over", lambda: handed.append(1))
    reader = FilterReader(lambda data: True)
    gevent.spawn_later(0.05, reader.write, {"n": 1})
    lines = reader.read(timeout_for_round=1)
    assert next(lines) == {"n": 1}  # waited 0.05 s on the hub for it
    fairness.give_way()
    assert handed == []
    lines.close()


def test_work_past_a_slice_without_a_wait_still_hands_over(monkeypatch):
    """A line already queued is taken without waiting: the slice goes on, and a stretch of work
    past ``SLICE_SECONDS`` hands over as before."""
    handed = []
    monkeypatch.setattr(fairness, "hand_over", lambda: handed.append(1))
    reader = FilterReader(lambda data: True)
    reader.write({"n": 1})
    lines = reader.read(timeout_for_round=1)
    fairness.hub_ran()
    time.sleep(fairness.SLICE_SECONDS * 2)  # work that holds the hub (no greenlet switch)
    assert next(lines) == {"n": 1}
    fairness.give_way()
    assert handed == [1]
    lines.close()
