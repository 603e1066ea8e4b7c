"""Values computed once per object while the object lives.

A round's prompt reuses the message objects of the round before (``RunState.rendered``, the
memory, the query) and the same ``PromptMessageTool`` objects (``ToolRegistry.prompt_tools``),
so what is measured or serialized of each is worth keeping until the object is gone.
"""

import weakref
from collections.abc import Callable, Sequence
from itertools import compress, count
from operator import is_not
from typing import Any

from agent_core.fairness import paced


def per_object[K, T](compute: Callable[[K], T]) -> Callable[[K], T]:
    """``compute`` remembered per object (by identity) while it lives.

    Only for objects that are never changed once built (prompt messages and tools are not), and
    whose type accepts weak references (pydantic models do). The remembered value is returned
    as it is: a caller must not change it.
    """
    cache: dict[int, tuple[weakref.ref, T]] = {}
    sweep_at = [SWEEP_SIZE]  # entries past which those of objects gone are dropped

    def remembered(obj: K) -> T:
        key = id(obj)
        hit = cache.get(key)
        if hit is not None and hit[0]() is obj:
            return hit[1]
        value = compute(obj)
        cache[key] = (weakref.ref(obj), value)
        if len(cache) > sweep_at[0]:
            _sweep(cache)
            sweep_at[0] = max(SWEEP_SIZE, 2 * len(cache))
        return value

    remembered.cache = cache  # type: ignore[attr-defined]  # for forget_gone
    _EVERY_CACHE.add(remembered)
    return remembered


_EVERY_CACHE: "weakref.WeakSet[Callable[..., Any]]" = weakref.WeakSet()
"""Every ``per_object`` function (weakly: a run's own, such as ``outbound``'s, goes with its run)."""


def forget_gone() -> None:
    """Drop the entries of objects gone from every ``per_object`` cache, giving way between
    items: at a run's start, so that what the runs that ended remembered (a message's dump may be
    megabytes) does not wait for a cache's next sweep, which only a cache that grows reaches.
    Without it a long-lived process kept up to ``SWEEP_SIZE`` values of gone objects in each
    cache: sessions whose assistant messages held 400 KB of arguments grew the process by 3 MB
    a session, to hundreds of MB."""
    for remembered in list(_EVERY_CACHE):
        _sweep(remembered.cache)


SWEEP_SIZE = 256
"""Entries a ``per_object`` cache holds before it first drops those of objects that are gone;
then twice the entries left after each sweep. An entry is not dropped as its object goes (a
weak reference's callback): a prompt of 100,000 messages freed at once ran 100,000 callbacks
a cache in one stretch that no other session could interrupt, where a sweep gives way. A gone
object's value stays until the next sweep, so a cache holds the values of at most ``SWEEP_SIZE``
gone objects, or as many as are alive (a long-lived process keeps no more than that of runs that
ended: a message's dump may be megabytes); its id, if reused, is never taken for it (the
reference is checked)."""


def _sweep(cache: dict[int, tuple[weakref.ref, Any]]) -> None:
    """Drop the entries of ``cache`` whose object is gone, giving way between items (another
    session may use the cache meanwhile: an entry is checked again before it is dropped)."""
    gone = [key for key, (ref, _) in paced(list(cache.items())) if ref() is None]
    for key in paced(gone):
        hit = cache.get(key)
        if hit is not None and hit[0]() is None:
            del cache[key]


class Notes[K, T]:
    """A value noted on each of some objects (by identity) while the object lives: for what is
    given with an object rather than computed from it (``per_object``). Same rules: objects never
    changed once built, whose type accepts weak references."""

    def __init__(self) -> None:
        self._notes: dict[int, tuple[weakref.ref, T]] = {}

    def put(self, obj: K, value: T) -> None:
        """Note ``value`` on ``obj`` (replacing a value noted before)."""
        key, notes = id(obj), self._notes
        notes[key] = (weakref.ref(obj, lambda _ref, key=key: notes.pop(key, None)), value)

    def get(self, obj: K) -> T | None:
        """The value noted on ``obj``, or None."""
        hit = self._notes.get(id(obj))
        return hit[1] if hit is not None and hit[0]() is obj else None


def per_text[T](compute: Callable[[str], T], max_chars: int) -> Callable[[str], T]:
    """``compute`` remembered per text (by value), the texts remembered holding at most
    ``max_chars`` characters in all: for values a run asks for again every round (a prompt
    rebuilt from the same texts) in a process that serves sessions for days.

    ``functools.lru_cache`` bounds its entries, not their size: 8,192 texts of a megabyte each is
    gigabytes, and a long-lived process fills any such cache with the texts of runs long over
    (1,000 sessions with 100 KB tool results grew the plugin by 2 MB a hundred sessions). Here,
    once the texts remembered pass ``max_chars``, the oldest are dropped until half that is left
    (a run still using one computes it again, once); a text longer than a quarter of
    ``max_chars`` is computed and not remembered. ``compute`` must never return None."""
    cache: dict[str, T] = {}
    held = [0]
    largest, keep = max_chars // 4, max_chars // 2

    def remembered(text: str) -> T:
        value = cache.get(text)
        if value is None:
            value = compute(text)  # may give way: another session may remember the text meanwhile
            if len(text) <= largest and text not in cache:
                cache[text] = value
                held[0] += len(text)
                if held[0] > max_chars:
                    held[0] = _drop_oldest(cache, held[0], keep)
        return value

    remembered.cache = cache  # type: ignore[attr-defined]  # for tests and benchmarks: what is held
    return remembered


def _drop_oldest(cache: dict[str, Any], held: int, keep: int) -> int:
    """Drop ``cache``'s oldest entries (its first inserted) until the characters of its texts,
    ``held`` now, are at most ``keep``; returns what is then held."""
    dropped = []
    for text in cache:
        if held <= keep:
            break
        dropped.append(text)
        held -= len(text)
    for text in dropped:
        del cache[text]
    return held


class PrefixMap[K, T]:
    """``[value(item) for item in items]`` for lists given in turn that mostly repeat the one
    before (a round's prompt: the same message objects as the round before's, a few added): the
    values of the longest run of leading items the list shares with the last one (the same
    objects) are taken from it, and only the items after it are looked up. For values
    computed once per object (``per_object``), whose look-up is a few calls each: a Function
    Calling run of 40 rounds looked up some 80 messages every round. Items are never changed
    once built. Holds the last list given (its caller's: one run's)."""

    def __init__(self, value: Callable[[K], T]) -> None:
        self._value = value
        self._items: tuple[K, ...] = ()
        self._values: list[T] = []

    def __call__(self, items: Sequence[K]) -> list[T]:
        """A new list: ``value(item)`` of each of ``items``, in order."""
        values = self._values[: shared_prefix(self._items, items)]
        values += map(self._value, items[len(values) :])
        self._items, self._values = tuple(items), values
        return list(values)


def shared_prefix(first: Sequence[Any], second: Sequence[Any]) -> int:
    """How many leading items ``first`` and ``second`` share (the same objects), found in C."""
    return next(compress(count(), map(is_not, first, second)), min(len(first), len(second)))
