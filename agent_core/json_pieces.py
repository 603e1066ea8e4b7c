"""Compact JSON text of a large value written in pieces, the other sessions running between them.

``json.dumps`` encodes in C without giving way: a tool's JSON message of 5 MB (135,000 small
records) held every other session of the process for 90-180 ms while its text was made. Here a
list or dict too large for one stretch is encoded a span of items at a time (a span of about
``NODES`` values), with ``fairness.give_way()`` between spans; a single item too large is
entered in turn. The pieces joined are the text ``json.dumps`` writes with the same settings:
the same items in the same order, each encoded by ``json.dumps`` itself.

Sizes are counted, not measured in time, by walking a span's containers level by level with
iterators that run in C (``_nodes``), so the usual small value costs one count and one
``json.dumps``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import chain, compress
from typing import Any

from agent_core.fairness import give_way

NODES = 20_000
"""Values (containers, keys' values, scalars) encoded in one piece at most, some 1-3 ms of
``json.dumps``; a value of no more is encoded whole, at the cost of one count."""

MAX_DEPTH = 32
"""Levels of nesting entered to split a value; below, an item is encoded whole (as is a value
nested in itself, whose ``json.dumps`` raises as it would have)."""

_DICT = frozenset({dict})
_LIST = frozenset({list})
_CONTAINERS = frozenset({dict, list})


def compact_dumps(value: Any, default: Callable[[Any], Any] | None = None, *, nodes: int = NODES) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)``, the
    same text, made in pieces of about ``nodes`` values with ``give_way()`` between them when
    ``value`` is larger. Only exact ``dict`` and ``list`` containers are split (a subclass or a
    tuple is encoded whole, as ``json.dumps`` encodes it). Raises what ``json.dumps`` raises
    (``TypeError`` for a value it cannot encode, ``ValueError`` for a circular one), and what
    ``give_way`` raises."""
    dumps = _dumps(default)
    if _nodes([value], nodes) <= nodes:
        return dumps(value)
    return "".join(_pieces(value, dumps, nodes, MAX_DEPTH))


def _dumps(default: Callable[[Any], Any] | None) -> Callable[[Any], str]:
    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)

    return dumps


def _nodes(values: list[Any], limit: int) -> int:
    """How many values ``values`` hold, themselves and everything nested in their exact dicts and
    lists, counted level by level and given up once over ``limit`` (then some number over it).
    Each level is walked by iterators in C: no Python call per value."""
    count = len(values)
    level = values
    while level and count <= limit:
        kinds = list(map(type, level))
        dicts = list(compress(level, map(_DICT.__contains__, kinds)))
        lists = list(compress(level, map(_LIST.__contains__, kinds)))
        count += sum(map(len, dicts)) + sum(map(len, lists))
        if count > limit:
            break
        children = [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(lists)]
        level = list(compress(children, map(_CONTAINERS.__contains__, map(type, children))))
    return count


def _pieces(value: Any, dumps: Callable[[Any], str], limit: int, depth: int) -> Iterator[str]:
    """The JSON text of ``value`` in pieces: whole when small, not an exact dict or list, or
    ``depth`` is spent; else its brackets around its items' spans (``_spans``)."""
    if depth <= 0 or type(value) not in _CONTAINERS or _nodes([value], limit) <= limit:
        yield dumps(value)
        return
    if type(value) is dict:
        items = list(value.items())
        values = [item[1] for item in items]
        yield "{"
    else:
        items = values = value
        yield "["
    for number, (start, end) in enumerate(_spans(values, limit)):
        if number:
            yield ","
            give_way()
        if end - start == 1 and type(values[start]) in _CONTAINERS:  # one item too large: entered
            if items is not values:
                yield dumps({items[start][0]: 0})[1:-2]  # its key as json.dumps writes it, and ':'
            yield from _pieces(values[start], dumps, limit, depth - 1)
        elif items is values:
            yield dumps(values[start:end])[1:-1]
        else:
            yield dumps(dict(items[start:end]))[1:-1]
    yield "}" if items is not values else "]"


def _spans(values: list[Any], limit: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` spans covering ``values`` in order, each of at most ``limit`` values
    nested, or a single item: fixed windows, halved until they fit."""
    window = max(1, limit // 4)
    for start in range(0, len(values), window):
        yield from _fitting(values, start, min(start + window, len(values)), limit)


def _fitting(values: list[Any], start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    if end - start == 1 or _estimate(values[start:end], limit) <= limit:
        yield start, end
        return
    middle = (start + end) // 2
    yield from _fitting(values, start, middle, limit)
    yield from _fitting(values, middle, end, limit)


SAMPLE = 16
"""Items of a span whose nested values are counted to estimate the span's (``_estimate``)."""


def _estimate(values: list[Any], limit: int) -> int:
    """About how many values ``values`` hold, nested ones included: counted whole when there are
    no more than ``SAMPLE`` of them, else ``SAMPLE`` items spread over them counted and scaled,
    and never less than the items and their own items (counted whole: a list of a million among
    small ones is seen). Counting every nested value would cost about what encoding them does; a
    large value nested deep in one item of many small ones can be missed (it is then encoded in
    one piece, as ``json.dumps`` would)."""
    if len(values) <= SAMPLE:
        return _nodes(values, limit)
    step = len(values) / SAMPLE
    deep = _nodes([values[int(n * step)] for n in range(SAMPLE)], limit) * len(values) // SAMPLE
    containers = compress(values, map(_CONTAINERS.__contains__, map(type, values)))
    return max(deep, len(values) + sum(map(len, containers)))
