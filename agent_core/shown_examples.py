"""Code blocks an answer shows: a call written in a fenced code block that the reply's prose goes
on after is an example (a tutorial, a quoted earlier call, a format explained), not a call.

A model that calls a tool in a fence stops there (or writes another call); an answer that shows
one explains it after. Both strategies read a reply's calls from its text with such blocks
blanked out (``examples_blanked``); a reply whose calls were all inside them is the answer.
"""

import re
from typing import Final

_FENCE: Final = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
"""A line that opens or closes a fenced code block (CommonMark: up to three spaces, then three
or more backticks or tildes)."""
_PROSE: Final = re.compile(r"[^\W_]")
"""A letter or digit: what makes the text after a block prose rather than blank or punctuation."""


def _blocks(text: str) -> list[tuple[int, int]]:
    """The fenced code blocks of ``text`` as (start of the opening line, end of the closing line),
    closed ones only, in order. Linear: one regex scan of the fence lines."""
    blocks: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for found in _FENCE.finditer(text):
        run = found.group(1)
        if opened is None:
            opened = (found.start(), run)
            continue
        start, opener = opened
        if run[0] == opener[0] and len(run) >= len(opener) and not found.group(2).strip():
            blocks.append((start, found.end()))
            opened = None
    return blocks


def examples_blanked(text: str) -> str | None:
    """``text`` with every fenced code block that prose follows (a letter or digit outside code
    after its closing line) replaced by as many spaces, line breaks kept; None when it has no
    such block. A block with only other blocks or blank text after it is kept: a call written
    last, or calls in fences one after another, are calls."""
    if "```" not in text and "~~~" not in text:
        return None
    blocks = _blocks(text)
    shown = []
    for number, (start, end) in enumerate(blocks):
        after_start = end
        for next_start, next_end in blocks[number + 1 :]:
            if _PROSE.search(text, after_start, next_start):
                break
            after_start = next_end
        else:
            if not _PROSE.search(text, after_start):
                continue
        shown.append((start, end))
    if not shown:
        return None
    out, read = [], 0
    for start, end in shown:
        out.append(text[read:start])
        out.append(re.sub(r"[^\n]", " ", text[start:end]))
        read = end
    out.append(text[read:])
    return "".join(out)
