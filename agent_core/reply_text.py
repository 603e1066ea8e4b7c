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

_LINE_END = re.compile(r"\r+\n")
"""A Windows line end, with the further ``\\r`` a second conversion puts before it (``\\r\\r\\n``:
``\\r\\n`` written again through a text-mode file): one ``\\n``."""


class ReplyText:
    """One stream's text (a reply's content, or its ``reasoning_content``) cleaned as it comes:
    ``\\r\\n`` becomes ``\\n``, as does ``\\r\\r\\n`` (``_LINE_END``; the ``\\r`` ending a piece
    are held until the next piece shows whether a ``\\n`` follows them), and ``START_MARKS``
    before the first other character are left out. A ``\\r`` no ``\\n`` follows stays; those held at
    the stream's end are dropped (they ended a line of a reply that ended there). Pieces are ``str``; the cleaned text is their
    concatenation cleaned whole, however the stream was cut."""

    __slots__ = ("_cr", "_started")

    def __init__(self) -> None:
        self._started = False
        self._cr = 0

    def feed(self, text: str) -> str:
        """The cleaned text of the next piece ``text`` (possibly ``""`` while held)."""
        if not text:
            return text
        if self._cr:  # the line end's "\r" held: a "\n" ends the line, a "\r" may still come
            if text[0] == "\n":
                self._cr = 0
            elif not text.strip("\r"):
                self._cr += len(text)  # counted, not joined: a run of "\r" pieces stays linear
                return ""
            else:
                text, self._cr = "\r" * self._cr + text, 0
        if not self._started:
            text = text.lstrip(START_MARKS)
            if not text:
                return text
            self._started = True
        if "\r" in text:
            if "\r\n" in text:
                text = _LINE_END.sub("\n", text)
            if text[-1] == "\r":
                kept = text.rstrip("\r")
                text, self._cr = kept, len(text) - len(kept)
        return text


def clean_text(text: str) -> str:
    """``text`` cleaned whole, as ``ReplyText`` cleans it in pieces."""
    return ReplyText().feed(text)
