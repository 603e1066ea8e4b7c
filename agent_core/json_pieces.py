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
import re
from collections.abc import Callable, Iterator
from itertools import chain, compress
from json.decoder import JSONDecoder, scanstring
from json.scanner import make_scanner
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


# --- reading -------------------------------------------------------------------------------------

WINDOW_CHARS = 65536
"""Characters of a text ``loads`` hands to the C scanner at once: a value that ends within them
is read in one call (1-3 ms at most), a container that does not is entered."""

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SPACE = frozenset(" \t\n\r")
_NUMBER = frozenset("0123456789.eE+-")
"""Characters a number may hold after its first: a value the window's scan ended before one of
them may be a number cut short."""


_scan_value = make_scanner(JSONDecoder())


class _Reader:
    """``loads``' state: the text and the window of it the scanner reads."""

    def __init__(self, text: str, window: int) -> None:
        self.text = text
        self.size = window
        self.start = 0
        self.window = text[:window]
        self.tried = -1
        """The start of the window in which a run of items was last not found (``_run``)."""

    def skip(self, index: int) -> int:
        """The index of the first character at or after ``index`` that is not JSON whitespace."""
        text = self.text
        if index < len(text) and text[index] in _SPACE:
            return _WHITESPACE.match(text, index).end()
        return index

    def value(self, index: int) -> tuple[Any, int]:
        """The value starting at ``index`` (no whitespace before it) and the index after it.
        Raises ``ValueError`` where the text is not JSON."""
        for _ in range(2):
            offset = index - self.start
            if not 0 <= offset < len(self.window):
                self._move(index)
                continue
            last = self.start + len(self.window) >= len(self.text)  # the window holds the text's end
            try:
                value, end = _scan_value(self.window, offset)
            except (StopIteration, ValueError):  # not JSON, or cut by the window's end
                if last:
                    raise ValueError(f"no JSON value at {index}") from None
            else:  # a number the window cuts ends early ("1.5e" reads as 1.5): read where it is whole
                if last or (end < len(self.window) and self.window[end] not in _NUMBER):
                    return value, self.start + end
            if offset == 0:
                break  # larger than a window
            self._move(index)
        opening = self.text[index : index + 1]
        if opening == "{":
            return self._object(index + 1)
        if opening == "[":
            return self._array(index + 1)
        try:  # a string of more than a window: read whole (one pass in C over its characters)
            return _scan_value(self.text, index)
        except StopIteration:
            raise ValueError(f"no JSON value at {index}") from None

    def _move(self, index: int) -> None:
        self.start = index
        self.window = self.text[index : index + self.size]

    def _run(self, index: int, opening: str, closing: str) -> tuple[Any, int] | None:
        """The items of a container from ``index`` (an item's start) to the last one that ends in
        the window with ``}``, ``]`` or ``"`` and is followed by ``,``, read in one call: the
        text up to there, put in ``opening`` and ``closing``, read whole as a container; or
        ``None`` when there is no such run (then not tried again in this window).

        Read in one piece only when the scanner takes the whole of it: an item cut by the end of
        the run would need a closer of its own besides the container's (a string its closing
        quote; a number or a literal cannot end with those characters), so the run holds whole
        items only, each read from the same characters as in the text."""
        offset = index - self.start
        if not 0 <= offset <= len(self.window) // 2:
            self._move(index)
            offset = 0
        if self.tried == self.start:
            return None
        window = self.window
        end = max(window.rfind("},", offset), window.rfind("],", offset), window.rfind('",', offset)) + 1
        if end > offset:
            text = opening + window[offset:end] + closing
            try:
                value, stop = _scan_value(text, 0)
            except (StopIteration, ValueError):
                stop = -1
            if stop == len(text):
                return value, self.start + end
        self.tried = self.start
        return None

    def _array(self, index: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        index = self.skip(index)
        if self.text[index : index + 1] == "]":
            return items, index + 1
        while True:
            run = self._run(index, "[", "]")
            if run is None:
                item, index = self.value(index)
                items.append(item)
            else:
                items.extend(run[0])
                index = run[1]
            closed, index = self._after_item(index, "]")
            if closed:
                return items, index

    def _object(self, index: int) -> tuple[dict[str, Any], int]:
        members: dict[str, Any] = {}
        index = self.skip(index)
        if self.text[index : index + 1] == "}":
            return members, index + 1
        while True:
            run = self._run(index, "{", "}")
            if run is not None:
                members.update(run[0])  # a key met again keeps its place and takes the last value, as in json.loads
                index = run[1]
            else:
                if self.text[index : index + 1] != '"':
                    raise ValueError(f"expected a key at {index}")
                key, index = scanstring(self.text, index + 1)
                index = self.skip(index)
                if self.text[index : index + 1] != ":":
                    raise ValueError(f"expected ':' at {index}")
                members[key], index = self.value(self.skip(index + 1))
            closed, index = self._after_item(index, "}")
            if closed:
                return members, index

    def _after_item(self, index: int, close: str) -> tuple[bool, int]:
        """After an item of an array (``close`` "]") or a member of an object (``close`` "}"),
        read from ``index``, with ``give_way()`` first: ``(True, index past the closing mark)``
        or ``(False, index of the next item)``. Raises ``ValueError`` on any other mark."""
        give_way()
        index = self.skip(index)
        mark = self.text[index : index + 1]
        if mark == close:
            return True, index + 1
        if mark != ",":
            raise ValueError(f"expected ',' or '{close}' at {index}")
        return False, self.skip(index + 1)


def loads(text: str, *, window: int = WINDOW_CHARS) -> Any:
    """``json.loads(text)``, read a window of ``window`` characters at a time with ``give_way()``
    between the items of the containers larger than a window: the same value for a text
    ``json.loads`` reads. Raises ``ValueError`` (or ``RecursionError`` for nesting deeper than
    the interpreter allows) where ``json.loads`` would raise, though not with its message; and
    what ``give_way`` raises."""
    reader = _Reader(text, window)
    value, end = reader.value(reader.skip(0))
    if reader.skip(end) != len(text):
        raise ValueError(f"extra data at {end}")
    return value
