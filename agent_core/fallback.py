"""What a run that stops asking the model again takes as its answer from an unlabelled last reply.

A reply with no action and no labelled answer (a ReAct Thought alone, only reasoning, a reply
that could not be read) is asked again with a format reminder; once the loop stops asking (the
retries ran out, a second Thought-only reply, the iteration or time limit), what that reply still
said may be the answer (``fallback_answer``), unless it was a step towards a tool result
(``no_answer``). Pure functions of the turn and the run's tool names.
"""

import re
from collections.abc import Collection

from agent_core import prompts
from agent_core.call_markup import holds_call_markup
from agent_core.emoji import EMOJI_CHAR, line_marks
from agent_core.react.parser import HEADING_MARKS
from agent_core.text_calls import FAIL, decode_json, interpret
from agent_core.turn import ModelTurn, ParseFailure


def fallback_answer(turn: ModelTurn) -> str:
    """What a model that keeps failing so still said, as its answer: the failure's ``fallback``
    (what a reply that wrote only reasoning wrote there: a block it stopped inside, or a closed
    one; Function Calling takes that text whole, ReAct reads it as a turn; the rest of a Function
    Calling reply that showed call markup it could not read, its start kept when it ``continues``
    text the reply streamed), or the text of a model
    that keeps writing a Thought and then its answer without the label (the official ReAct
    strategy takes it so); ``""`` when there is none."""
    decision = turn.decision
    if not isinstance(decision, ParseFailure):
        return ""
    if only_a_thought(decision):
        return turn.thought.strip()
    return decision.fallback.rstrip() if decision.continues else decision.fallback.strip()


def unlabelled_answer(turn: ModelTurn, tool_names: Collection[str]) -> str:
    """``fallback_answer`` where an unlabelled last reply is taken as the answer before the
    retries run out (a second Thought-only reply, the iteration or time limit), ``""`` when what
    it said is no answer (``no_answer``): the run then goes on, or ends saying it stopped. The
    fallback of a Function Calling reply whose call markup could not be read is the answer as it
    is: the strategy gave it one only when all that markup stands in quoted text, an answer showing
    it (``function_calling.turn._unreadable``), which names tools and holds markup by nature."""
    answer = fallback_answer(turn)
    if isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.TOOL_CALL_UNREADABLE:
        return answer
    return "" if no_answer(answer, tool_names) else answer


_ANNOUNCED = re.compile(r"(?:i\s+)?(?:now\s+)?know\s+(?:the\s+|what\s+to\s+)(?:final\s+)?(?:answer|respond)\W*", re.I)
"""A Thought that only says the answer comes next: ReAct's "I now know the final answer"
(LangChain's prompt), "I know the final answer." (this project's completion prompt)."""


_LABEL_LEFT = re.compile(rf"(?:^|\n)({line_marks(' \t#*_>-')})final[ \t_]*+answer([ \t*_]*+)([:：]?)[ \t*_]*+$", re.I)
"""A ``Final Answer`` label the text ends with (after markdown, a list's ``-`` or emoji:
``- ✅ Final Answer:``), nothing after it: the answer never came, or the words ``Final answer``
ending the text (``label_left`` tells which). Groups: the marks before the words, what follows
them, the colon (``""`` when none)."""
_THOUGHT_FIRST = re.compile(
    rf"\s*+(?:(?:[#*_ \t]|{EMOJI_CHAR})*+thought[ \t*_]*+[:：]|{HEADING_MARKS.pattern}thought[ \t]*+(?:\*\*|__)?[ \t]*+\r?\n)",
    re.I,
)
"""A text's start that is a ReAct ``Thought`` label (with its colon, or a heading alone on its line)."""


def label_left(text: str) -> int | None:
    """Where a ``Final Answer`` label that ``text`` ends with, nothing after it, starts in
    ``text`` (its line break included); None when the text does not end so. A label is the words
    with their colon (``Thought: done.\nFinal Answer: ``, ``- ✅ **Final Answer:**``), a heading or
    bold line holding them alone (``### Final Answer``, ``**Final Answer**``: the ReAct parser's
    label heading), or, in a text that opens with a ReAct ``Thought`` label, a line of the words
    alone (the ReAct parser reads them so after a label). Other words ``Final answer`` are the
    text's words: an answer that is only ``Final answer`` (Seed-OSS's and Solar Open 2's
    reasoning parser tests) is that answer."""
    found = _LABEL_LEFT.search(text.rstrip())
    if found is None:
        return None
    marks, after, colon = found.groups()
    if colon or _THOUGHT_FIRST.match(text):
        return found.start()
    heading = HEADING_MARKS.fullmatch(marks)  # ``### ``, ``**``, ``__``, an emoji after them
    closed = after.strip(" \t") in ("", "**", "__")
    return found.start() if heading is not None and closed else None


def no_answer(text: str, tool_names: Collection[str]) -> bool:
    """Whether a Thought or reasoning ``text`` is a step towards a tool result rather than an
    answer: it names one of the run's tools as a word (``I need to call get_weather for
    Rome``), holds call markup or is a call envelope (of any tool), or only announces the
    answer (``_ANNOUNCED``) or ends with its label (``_LABEL_LEFT``)."""
    text = text.strip()
    if not text or _ANNOUNCED.fullmatch(text) or _LABEL_LEFT.search(text) or holds_call_markup(text, tool_names):
        return True
    if any(re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) for name in tool_names if name):
        return True
    value = decode_json(text) if text.lstrip()[:1] in ("{", "[") else FAIL
    return value is not FAIL and bool(interpret(value, strict=True))


def only_a_thought(decision: object) -> bool:
    """Whether ``decision`` is a ReAct reply that had a Thought and nothing else
    (``prompts.PROBLEM_THOUGHT_ONLY``)."""
    return isinstance(decision, ParseFailure) and decision.problem == prompts.PROBLEM_THOUGHT_ONLY
