"""Long strings set aside while ``json_repair`` reads the rest of an almost-JSON text.

json_repair 0.64 reads a double-quoted string holding a backslash a character at a time,
growing it by concatenation: a file's content written as an action input (400 KB of code with
``\\n`` and ``\\"`` in it) beside one other mistake (a trailing comma, a single-quoted key, a
Python ``True``) took 1.4 s, and 10 s at 1 MB. :func:`repaired` puts a short placeholder in the
place of each such string, lets json_repair repair the small text left (the skeleton) and puts
the string back where the placeholder came out, in time linear in the text's length.

A string set aside is closed, valid JSON (``json.loads`` reads it: no raw control character, no
escape JSON lacks) and stands as the value of a member or an item of an array (after ``:``,
``[`` or ``,`` and before ``,``, ``}`` or ``]``): it is put back as JSON reads it. Where
json_repair reads such a string right, that is its value; where it does not, it changed what
the model wrote, and the string as written is kept instead: it ends a string at a comma
followed by ``}``, by what looks like a key (``f(a, b: int)`` in code read as two members, ``a``
cut at ``a, }``), drops a file's last line break before ``,}``, keeps ``\\/`` and ``\\f`` as
written, reads ``\\\\\\"`` as ``"`` and leaves a surrogate pair as two characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agent_core.quoted import QuotedScan

LONG_STRING_CHARS = 4096
"""Shortest string (characters, its quotes included) set aside; json_repair reads a shorter one
in well under a millisecond."""

_STRINGS = QuotedScan(r'[^"]++', quotes='"', flags=re.DOTALL)
"""Closed double-quoted strings (escapes honoured) and the runs between them, in linear time."""
_BEFORE = frozenset(":[,")
_AFTER = re.compile(r"[ \t\r\n]*+[,}\]]")
_MARK = "\ue000"
"""Around a placeholder's number (a private-use character): a text holding it sets nothing aside."""


def set_aside(text: str) -> tuple[str, dict[str, str]] | None:
    """``text`` with each long string (at least ``LONG_STRING_CHARS``) that may be set aside (see
    the module) replaced by a placeholder string, and the strings (as JSON reads them) by their
    placeholder; None when there is none. O(len(text)) (``QuotedScan``: one Python step a string
    or run between strings)."""
    if len(text) < LONG_STRING_CHARS or _MARK in text:
        return None
    pieces: list[str] = []
    strings: dict[str, str] = {}
    written = 0
    for match in _STRINGS.finditer(text):
        start, end = match.span()
        if end - start < LONG_STRING_CHARS or text[start] != '"' or not _in_value_place(text, start, end):
            continue
        try:
            value = json.loads(match.group())
        except ValueError:  # a raw control character, an escape JSON lacks: json_repair reads it
            continue
        placeholder = f"{_MARK}{len(strings)}{_MARK}"
        strings[placeholder] = value
        pieces += (text[written:start], f'"{placeholder}"')
        written = end
    if not strings:
        return None
    pieces.append(text[written:])
    return "".join(pieces), strings


def _in_value_place(text: str, start: int, end: int) -> bool:
    """Whether the string at ``text[start:end]`` stands where a value does: after ``:``, ``[`` or
    ``,`` and before ``,``, ``}`` or ``]`` (whitespace between)."""
    at = start - 1
    while at >= 0 and text[at] in " \t\r\n":
        at -= 1
    return at >= 0 and text[at] in _BEFORE and _AFTER.match(text, end) is not None


def put_back(value: Any, strings: dict[str, str]) -> tuple[bool, Any]:
    """``(True, value)`` with each placeholder string of ``strings`` replaced by its string, when
    every one stands in ``value`` once, whole, as a value (not a key, not inside another string);
    else ``(False, None)``. Raises ``RecursionError`` for a value nested past the interpreter's
    limit."""
    if json.dumps(value, ensure_ascii=False).count(_MARK) != 2 * len(strings):
        return False, None
    left = dict(strings)
    restored = _restored(value, left)
    return (True, restored) if not left else (False, None)


def _restored(value: Any, left: dict[str, str]) -> Any:
    """``value`` with the placeholders of ``left`` in it replaced (each taken out of ``left``)."""
    if isinstance(value, str):
        return left.pop(value, value)
    if isinstance(value, dict):
        return {key: _restored(item, left) for key, item in value.items()}
    if isinstance(value, list):
        return [_restored(item, left) for item in value]
    return value


def repaired(text: str, repair: Callable[[str], Any]) -> Any:
    """``repair(text)`` (``json_repair.loads``), the long strings of ``text`` that may be set aside
    (:func:`set_aside`) read in C instead, as JSON reads them: ``repair`` reads the skeleton, and
    the strings are put back (:func:`put_back`). When a placeholder does not come out whole, or
    ``repair`` fails on the skeleton, the whole text is repaired. Raises what ``repair`` raises."""
    aside = set_aside(text)
    if aside is not None:
        skeleton, strings = aside
        try:
            done, value = put_back(repair(skeleton), strings)
        except Exception:  # a third-party parser: the whole text decides
            done = False
        if done:
            return value
    return repair(text)
