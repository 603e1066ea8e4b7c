"""When a call the model repeats with the same arguments is a loop, and when it is not.

A model that makes the same call (same tool, same arguments) over and over learns nothing new
when the tool keeps giving the same result: after ``limit`` such calls the next is refused, and
a round of only such refusals ends the run with the final-answer round. A tool whose result
changes from one identical call to the next (the current time, a job's status polled until it is
done, a random draw) is not a loop: the user may ask for it ten times, and the iteration limit
bounds it (langgenius/dify#19589: "Call the current_time plugin 10 times" stopped at 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RepeatGuard"]


@dataclass
class RepeatGuard:
    """Counts a run's identical calls and what they returned.

    ``key`` is a call's identity (tool name and arguments, as ``loop._call_key`` writes it);
    ``result`` the text the model read of its result. Not thread-safe: the loop calls it between
    rounds, from one greenlet.
    """

    limit: int
    _made: dict[str, int] = field(default_factory=dict)
    _first: dict[str, int] = field(default_factory=dict)  # hash of the first result of a key
    _varies: set[str] = field(default_factory=set)  # keys whose results differed once

    def admit(self, key: str) -> bool:
        """Count one more call of ``key``; False when it is to be refused: it was made ``limit``
        times already and every result it got was the same."""
        made = self._made.get(key, 0) + 1
        self._made[key] = made
        return made <= self.limit or key in self._varies

    def record(self, key: str, result: str) -> None:
        """Remember what a call of ``key`` that ran returned (``result``: the observation text)."""
        digest = hash(result)
        first = self._first.setdefault(key, digest)
        if first != digest:
            self._varies.add(key)
