"""A reply's text as the readers take it: Windows line ends made plain and an invisible mark at
its start left out.

Gateways hosted on Windows and some chat templates send ``\\r\\n`` line ends; a few add a UTF-8
byte order mark (U+FEFF) or a zero-width space at a reply's start. Every reader of labels, tags
and call markup is written for ``\\n`` and for a reply that starts with what the model wrote, so
the text each stream brings is cleaned once, piece by piece, before any reader sees it. The
model's message itself is kept as the model plugin sent it (``model_call.AssistantReply``): it
goes back to the model unchanged within the run. The answer the user sees has ``\\n`` line ends.
"""

import re

START_MARKS = "\ufeff\u200b\u2060"
"""What a reply's start may carry that nobody sees: the byte order mark (U+FEFF, also read as
ZERO WIDTH NO-BREAK SPACE), ZERO WIDTH SPACE and WORD JOINER."""

_CR_LF = re.compile(r"(?<!\r)\r++\n")
"""A line end with one ``\\r`` or more before its ``\\n`` (a run tried once, from its start:
linear in a text of many ``\\r``)."""


class ReplyText:
    """One stream's text (a reply's content, or its ``reasoning_content``) cleaned as it comes:
    ``\\r\\n`` becomes ``\\n``, and so does a run of ``\\r`` before a ``\\n`` (``\\r\\r\\n``: a
    ``\\n`` converted to ``\\r\\n`` twice on its way); the ``\\r`` run ending a piece is held
    until the next piece shows whether a ``\\n`` follows it; ``START_MARKS`` before the first other
    character are left out. A ``\\r`` run inside the text followed by another character stays;
    one held at the stream's end is dropped (it ended a line of a reply that ended there). Pieces
    are ``str``; the cleaned text is their concatenation cleaned whole, however the stream was
    cut, and holds no ``\\r\\n``."""

    __slots__ = ("_cr", "_started")

    def __init__(self) -> None:
        self._started = False
        self._cr = 0  # the length of the \r run held

    def feed(self, text: str) -> str:
        """The cleaned text of the next piece ``text`` (possibly ``""`` while held). A held run
        grown one ``\\r`` a piece is counted, not copied (linear in the stream)."""
        if not text:
            return text
        if self._cr:
            if text[0] == "\r" and not text.strip("\r"):
                self._cr += len(text)
                return ""
            held, self._cr = self._cr, 0
            if text[0] != "\n":  # a run before a \n is left out with it: the \n stays
                text = "\r" * held + text
        if not self._started:
            text = text.lstrip(START_MARKS)
            if not text:
                return text
            self._started = True
        if "\r" in text:
            text = _CR_LF.sub("\n", text) if "\r\r" in text else text.replace("\r\n", "\n")
            if text[-1] == "\r":
                kept = text.rstrip("\r")
                text, self._cr = kept, len(text) - len(kept)
        return text


def clean_text(text: str) -> str:
    """``text`` cleaned whole, as ``ReplyText`` cleans it in pieces."""
    return ReplyText().feed(text)
