"""How many times slower than on an idle machine a busy process runs now, for the tests whose
bound is a wall-clock wait of a session streaming beside a heavy one (its worst gap between two
texts).

A gap is wall time: on a machine whose cores other work shares (a CI runner, parallel jobs) every
busy process gets a share of a core, the heavy session's reading, the plugin's event loop and the
harness's threads alike. At a load of 13 on 2 cores the six-sessions test of
``test_blind_combos_wave34.py`` saw gaps of 3.8-5.7 s (0.1-0.4 s on a quiet machine, bound 1.5 s).
A light session streaming alone, measured just before and after, saw 0.05-0.44 s, and a process
timing 1 ms of work every 50 ms ran it 1.1-1.2 times slower: neither an idle neighbour nor a
short probe shows such a load, since the scheduler runs a task that just woke at once. The number
of tasks ready to run does (``procs_running`` of ``/proc/stat``). ``Pace`` samples it every 20 ms
over the very seconds the gap is measured: its ``slowdown`` is the mean count, less the sampling
thread itself, over the machine's cores, at least 1. ``assert_not_held`` multiplies a gap's bound
by it: on a machine no busier than the test itself makes it, the bound is what it always was.
"""

from __future__ import annotations

import os
import threading


def _running() -> int | None:
    """Tasks of the machine running or ready to run now; None where ``/proc/stat`` does not say."""
    try:
        with open("/proc/stat") as stat:
            for line in stat:
                if line.startswith("procs_running "):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Pace:
    """``with Pace() as pace:`` around the seconds a gap is measured; then ``pace.slowdown``: the
    mean of the machine's running tasks (less this sampler) over its cores, sampled every 20 ms,
    at least 1.0 (1.0: no more work than cores; 5.0: each busy process got a fifth of a core)."""

    slowdown: float = 1.0

    def __enter__(self) -> Pace:
        self._samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            running = _running()
            if running is None:
                return
            self._samples.append(running - 1)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if self._samples:
            self.slowdown = max(1.0, sum(self._samples) / len(self._samples) / (os.cpu_count() or 1))


def assert_not_held(gap: float, bound: float, pace: Pace | float) -> None:
    """Assert a neighbour's worst ``gap`` (seconds) is under ``bound`` seconds times the machine's
    slowdown while it was measured (``pace``: a ``Pace``, or its ``slowdown``)."""
    slowdown = pace.slowdown if isinstance(pace, Pace) else pace
    assert gap < bound * slowdown, (
        f"the neighbour waited {gap:.2f} s: over {bound} s times {slowdown:.1f}, the machine's running "
        "tasks a core meanwhile")
