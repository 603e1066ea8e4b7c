"""Fenced code blocks, read as CommonMark reads them (spec 0.31.2, section 4.5 "Fenced code blocks").

One rule for every reader that asks whether text stands in a fenced block (``call_markup.CodeQuote``
as text streams, ``text_calls`` over a whole reply, the ReAct parser's answer):

- A fence is a run of at least three backticks or at least three tildes that opens its line
  (whitespace before it only). A backtick fence's info string (what follows it on its line) holds
  no backtick: ```` ```js `x` ```` is a code span, not a fence. A tilde fence's may hold anything.
- The block is closed by a line holding a run of the same character, at least as long as the
  opening one, indented at most three columns, with only spaces or tabs after it. Any other line
  (```` ```json ````, ```` ```<|tool_call|> ````, ``~~~`` under a backtick fence, a shorter run) is
  the block's content. A block never closed runs to the end of the text.

Containers are not tracked: a fence indented four columns or more is taken to stand in a list
item that starts at its indentation (CommonMark would read it as an indented code line at the top
level), and its closing fence may then be indented three more columns than it.
"""

import re
from typing import Final

FENCE_RUN: Final = r"(?:`{3,}|~{3,})"
"""A fence's run, as a regular expression to build patterns from: at least three backticks or at
least three tildes."""

Opening = tuple[str, int, int]
"""An open fence: its character, the length of its run, the most columns its closing fence may be
indented (``close_indent``)."""


def indent_width(lead: str) -> int:
    """Columns the whitespace ``lead`` (the start of a line) takes, a tab to the next multiple of
    four (CommonMark 2.2 "Tabs")."""
    return len(lead.expandtabs(4)) if "\t" in lead else len(lead)


def close_indent(opening_indent: int) -> int:
    """The most columns a closing fence may be indented, for a block whose opening fence was
    indented ``opening_indent`` columns: three, or three more than a list item's content that
    starts at the opening fence (containers are not tracked)."""
    return 3 if opening_indent <= 3 else opening_indent + 3


def closes(opening: Opening, char: str, size: int, indent: int) -> bool:
    """Whether a run of ``size`` × ``char`` opening a line indented ``indent`` columns may close
    the block opened by ``opening`` (its character, run length and ``close_indent``): the same
    character, at least as long, indented no more than allowed. The line must hold nothing but
    spaces or tabs after the run too, which the caller checks."""
    return char == opening[0] and size >= opening[1] and indent <= opening[2]


_FENCE_LINE = re.compile(rf"(?m)^([ \t]*)({FENCE_RUN})([^\n]*)")


def after_line(opening: Opening | None, line: str) -> Opening | None:
    """The fenced block open after ``line`` (one line from its start, its line break optional),
    given the block open before it (``opening``; None: none). A line that opens no block and
    closes none leaves ``opening`` as it was."""
    match = _FENCE_LINE.match(line)
    return opening if match is None else _after(opening, *match.groups())


def _after(opening: Opening | None, lead: str, run: str, rest: str) -> Opening | None:
    """``after_line`` for a line of ``lead`` whitespace, a fence ``run`` and ``rest``."""
    indent = indent_width(lead)
    if opening is None:
        if run[0] == "`" and "`" in rest:
            return None  # ```js `x`: code spans, not a fence
        return (run[0], len(run), close_indent(indent))
    if closes(opening, run[0], len(run), indent) and (not rest or rest.isspace()):
        return None
    return opening


def fence_lines(text: str) -> list[int]:
    """Where each line that opens or closes a fenced block starts in ``text``, in order: opening,
    closing, opening... (a block never closed leaves its opening last). ``[]`` without fences.
    Linear: only lines that start with a run of three backticks or tildes are looked at."""
    if "```" not in text and "~~~" not in text:
        return []
    found: list[int] = []
    opening: Opening | None = None
    for line in _FENCE_LINE.finditer(text):
        after = _after(opening, *line.groups())
        if after != opening:
            opening = after
            found.append(line.start())
    return found


def open_block(text: str, opening: Opening | None = None, *, line_start: bool = True) -> Opening | None:
    """The fenced block still open at the end of ``text`` (None: none), given the block open
    before it (``opening``: ``text`` goes on from text that left it open). ``line_start`` False:
    ``text`` begins inside a line, so a fence run at its very start opens or closes nothing.
    Linear, and only lines that start with a fence run are looked at (``fence_lines``)."""
    if "```" not in text and "~~~" not in text:
        return opening
    for line in _FENCE_LINE.finditer(text):
        if line.start() or line_start:
            opening = _after(opening, *line.groups())
    return opening


def closing_fence(opening: Opening) -> str:
    """The fence that closes the block ``opening`` opened: its character, as many times."""
    return opening[0] * opening[1]


_EMPTY_BLOCK = re.compile(r"\s*+(?:(`{3,}+)[^`\n]*+|(~{3,}+)[^\n]*+)\n\s*+(?:\1`*+|\2~*+)\s*+")
"""A fenced block with nothing but blank lines inside, alone in the text (``_after``'s rules: a
backtick fence's info string holds no backtick; the closing run of the same character, no
shorter)."""


def empty_code_block(text: str) -> bool:
    """Whether ``text`` is only a fenced code block with nothing in it (```` ```\\n``` ````,
    ```` ```json\\n\\n``` ````, ``~~~\\n~~~``), whitespace around it: a reply that shows an empty box
    and says nothing, read as an empty reply."""
    return "\n" in text and _EMPTY_BLOCK.fullmatch(text) is not None
