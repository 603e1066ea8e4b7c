"""The plugin's own words in a prompt: which characters of a text the plugin wrote itself.

The last guard on a request (``outbound.prompt_redactor``) hides every form of the node's tool
secrets in what the model reads. The plugin's own text (ReAct's format, its labels, the JSON
step's keys, its notes) holds no secret and tells nothing of one: it is the same whatever the
secrets are. A secret that is one of its words (``answer``, ``action``) hid it too, and the model
read a broken format (``Final [REDACTED]:``). So a prompt builder writes its text as an
``OwnText``: a ``str`` that knows the spans of its characters the plugin wrote (``own``), and
the message built from it is noted with them (``note_own``). The guard still searches the whole
text, and leaves a form it finds only when every character of it lies in one own span
(``redaction._Secrets.redact``'s ``keep``): a form that touches a character of a tool, the model
or the user is hidden as before, so marking can only keep the plugin's own words.

Only what the builders here put together is own: a template's literal text (``filled``), a
separator (``joined``), a fixed label (``own``). Every value put into a template (a tool's name,
description or schema, an observation, a thought, the user's instruction) is not, even when the
plugin wrote part of it (an observation's notes are the tool's zone and stay redacted whole).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterable
from typing import Any

from agent_core.memo import Notes

__all__ = ["OwnText", "filled", "head", "joined", "note_own", "own", "own_spans", "spans_of"]

Spans = tuple[tuple[int, int], ...]


class OwnText(str):
    """A text and the spans ``(start, end)`` of its characters the plugin wrote itself
    (``own``: in order, not overlapping, not empty). Any ``str`` operation on it gives a plain
    ``str`` (no own spans): only this module's builders carry them."""

    own: Spans

    def __new__(cls, text: str, own: Spans = ()) -> OwnText:
        made = super().__new__(cls, text)
        made.own = own
        return made


def spans_of(text: str) -> Spans:
    """The own spans of ``text`` (``()`` for a plain ``str``)."""
    return text.own if isinstance(text, OwnText) else ()


def own(text: str) -> OwnText:
    """``text``, every character of it the plugin's own (a fixed label or note)."""
    return OwnText(text, ((0, len(text)),) if text else ())


def _merged(spans: Iterable[tuple[int, int]]) -> Spans:
    """``spans`` in order with those that touch joined and the empty ones left out."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if start >= end:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def joined(separator: str, parts: Iterable[str], *, own_separator: bool = True) -> OwnText:
    """``separator.join(parts)`` keeping each part's own spans (``spans_of``) where it lands;
    the separators are own unless ``own_separator`` is False."""
    texts = parts if isinstance(parts, list) else list(parts)
    spans: list[tuple[int, int]] = []
    at, size = 0, len(separator)
    for n, part in enumerate(texts):
        if n:
            if own_separator:
                spans.append((at, at + size))
            at += size
        if isinstance(part, OwnText):
            spans += [(at + start, at + end) for start, end in part.own]
        at += len(part)
    made = str.__new__(OwnText, separator.join(texts))
    made.own = _merged(spans)
    return made


_FORMATTER = string.Formatter()


@functools.lru_cache(maxsize=256)
def _parsed(template: str) -> tuple[tuple[str, int, str | None, str, str | None], ...]:
    """``template`` as ``string.Formatter.parse`` reads it, each literal with its length:
    ``(literal, len(literal), field, spec, conversion)`` (``spec`` ``""`` when there is none).
    The templates are the plugin's constants, parsed once each instead of at every prompt
    build (a ReAct round fills three). Raises ``ValueError`` as ``parse`` does."""
    return tuple((literal, len(literal), field, spec or "", conversion)
                 for literal, field, spec, conversion in _FORMATTER.parse(template))


def filled(template: str, /, **values: Any) -> OwnText:
    """``template.format(**values)`` whose literal text is own and whose values are not (a value
    given as an ``OwnText``, with no conversion or format spec, keeps its own spans). Raises
    ``KeyError``, ``ValueError`` as ``str.format`` does (a field ``{0}`` or ``{a.b}`` is not
    taken: the templates here name plain fields)."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    carried = False  # a value brought spans of its own: they are merged with the literals' at the end
    for literal, size, field, spec, conversion in _parsed(template):
        if size:
            parts.append(literal)
            if spans and spans[-1][1] == at:  # an empty value between two literals
                spans[-1] = (spans[-1][0], at + size)
            else:
                spans.append((at, at + size))
            at += size
        if field is None:
            continue
        value = values[field]
        if conversion:
            value = _FORMATTER.convert_field(value, conversion)
        text = format(value, spec) if spec or not isinstance(value, str) else value  # format(str, "") gives it back
        if isinstance(text, OwnText) and text.own:  # (format may give an OwnText back as it is)
            spans += [(at + start, at + end) for start, end in text.own]
            carried = True
        parts.append(text)
        at += len(text)
    made = str.__new__(OwnText, "".join(parts))
    made.own = _merged(spans) if carried else tuple(spans)
    return made


_OWN: Notes[Any, Spans] = Notes()
"""Prompt messages whose string content holds the plugin's own text: its spans."""


def note_own[M](message: M, text: str) -> M:
    """``message`` (a prompt message whose content is ``text``, as a plain ``str`` once the
    message model copied it) noted with ``text``'s own spans; returns ``message``. Nothing is
    noted when ``text`` has none or the content is not ``text``."""
    spans = spans_of(text)
    if spans and getattr(message, "content", None) == text:
        _OWN.put(message, spans)
    return message


def own_spans(message: Any) -> Spans:
    """The own spans noted on ``message`` (``note_own``), ``()`` when none."""
    return _OWN.get(message) or ()


def head(text: str, length: int) -> OwnText:
    """``text[:length]`` keeping the own spans of ``text`` that fall in it (cut at ``length``)."""
    return OwnText(text[:length], tuple((start, min(end, length)) for start, end in spans_of(text) if start < length))
