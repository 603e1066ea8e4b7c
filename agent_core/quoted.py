"""Patterns that read closed quoted strings (escapes honoured) among other tokens, in linear time.

A pattern such as ``"(?:[^"\\]|\\.)*"|TOKEN`` run with ``finditer`` or ``sub`` tries a closed
string at every quote. At a quote never closed the try scans to the end of the text (or, without
``re.DOTALL``, to a backslash before a line break) and fails; the search goes on at the next
character. In ``"\\"\\"\\"...`` every quote after the first is escaped, so every one of them is
tried and fails the same way: time in the square of the length (``{'a': '\\',\\',...}`` of 240 KB
took four minutes in ``json_args.loads_lenient``).

Once a quote at ``p`` is found unclosed, with its scan stopped at ``s``, a quote of that kind
tried between them is an escaped one of the scan, and its own scan reads the same escapes from
the next character on: it stops at ``s`` and fails too. :class:`QuotedScan` remembers that
("no closed ``"`` starts before ``s``") and reads that stretch with a pattern lacking that kind
of string, so each character is scanned a bounded number of times. Its matches are those of the
plain pattern, one for one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import combinations

_BODY = {'"': r'"[^"\\]*+(?:\\.[^"\\]*+)*+', "'": r"'[^'\\]*+(?:\\.[^'\\]*+)*+"}
"""A string's opening quote and body, escapes honoured, up to its closing quote or where no
closing quote can follow (the end, or a backslash the body cannot take). Possessive: the body
is read one way only, so giving characters back never finds a closing quote."""
_OPEN = {'"': "_open_double", "'": "_open_single"}
"""The group of a string never closed, by its quote."""


class QuotedScan:
    """``re.compile(STRINGS + "|" + rest, flags)``, where ``STRINGS`` is a closed string for each
    quote of ``quotes`` (``"(?:[^"\\]|\\.)*"``, ``'(?:[^'\\]|\\.)*'``), with ``finditer`` and
    ``sub`` giving the same matches as that pattern's in time linear in the text.

    ``rest`` (a regex, in ``flags``) holds the other tokens; its groups keep their numbers and
    names. It must not match the empty string, nor use lookaround or anchors when ``flags`` lack
    ``re.DOTALL`` (the text is then read in windows, a match reaching a window's end read again
    without it).
    """

    def __init__(self, rest: str, quotes: str = "\"'", flags: int = 0) -> None:
        self._quotes = frozenset(quotes)
        self._open_groups = {_OPEN[quote]: quote for quote in quotes}
        self._variants: dict[frozenset[str], re.Pattern[str]] = {}
        for size in range(len(quotes) + 1):
            for active in combinations(quotes, size):
                closed = [_BODY[quote] + quote for quote in active]
                opened = [f"(?P<{_OPEN[quote]}>{_BODY[quote]})" for quote in active]
                self._variants[frozenset(active)] = re.compile("|".join([*closed, f"(?:{rest})", *opened]), flags)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the plain pattern in ``text``, in order (``re.Pattern.finditer``); a
        match of ``rest`` has its groups, a closed string none of them."""
        size = len(text)
        blocked: dict[str, int] = {}  # a quote found unclosed -> where no closed one can start before
        at = 0
        while True:
            blocked = {quote: end for quote, end in blocked.items() if end > at}
            horizon = min(blocked.values(), default=size)
            pattern = self._variants[self._quotes.difference(blocked)]
            for match in pattern.finditer(text, at, horizon):
                if match.end() == horizon < size:  # it may run on past the window
                    match = pattern.match(text, match.start())  # type: ignore[assignment]  # it matched there
                quote = self._open_groups.get(match.lastgroup or "")
                if quote is not None:  # every later quote of its kind up to its end is unclosed too
                    blocked[quote], at = match.end(), match.start() + 1
                    break
                yield match
                at = match.end()
                if at > horizon:
                    break
            else:
                if horizon == size:
                    return
                at = max(at, horizon)

    def sub(self, replace: Callable[[re.Match[str]], str] | str, text: str) -> str:
        """``re.Pattern.sub(replace, text)``; a ``replace`` string is put in as it is written (no
        group references)."""
        pieces: list[str] = []
        last = 0
        for match in self.finditer(text):
            pieces += (text[last : match.start()], replace if isinstance(replace, str) else replace(match))
            last = match.end()
        pieces.append(text[last:])
        return "".join(pieces)
