"""Reading a function-calling model turn: streamed text, tool-call deltas, usage.

Text is streamed to the user as it arrives, except a reply that starts like
a tool call written as text (``{``, ``[``, ``<tool_call>``, a code fence,
``Action:``): some models put the call in the content instead of
``tool_calls`` (deepseekv3-826, smolagents158, mlxserver228), so such a
reply is held until the turn ends and then read for calls. Reasoning
(``<think>`` blocks or ``reasoning_content``) goes to the log only.
"""

import re
from collections.abc import Collection, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import prompts
from agent_core.call_markup import (
    CallMarkup,
    CodeQuote,
    closes_markup_only,
    cut_opener,
    ends_turn,
    holds_call_markup,
    markup_all_quoted,
    markup_start,
    open_call_fence,
    open_code_call,
    open_fenced_call,
    partial_markup,
    python_call_fence_head,
    rewrite_markup,
)
from agent_core.cut_errors import CUT_IN_TOOL_CALL
from agent_core.emoji import EMOJI_CHAR, INVISIBLE_MARKS, line_marks
from agent_core.fairness import SLICE_CHARS, give_way, paced, slices
from agent_core.fallback import label_left
from agent_core.fences import FENCE_RUN, empty_code_block, open_block
from agent_core.function_calling.react_steps import react_step_calls
from agent_core.json_args import raw_decode_at
from agent_core.model_call import AssistantReply, ModelChunk, note_usage, with_block_closed
from agent_core.react.parser import HEADING_MARKS, LABEL_SPACES, LINE_PREFIX, label_forms, label_words, parse_react
from agent_core.react.turn import actions_after_observation, actions_named
from agent_core.reply_text import ReplyText
from agent_core.text_calls import (
    CALL_HEAD_SPAN,
    CALL_LABELS,
    FUNCTOOLS,
    HARMONY_RECIPIENT,
    HCX_CALL_HEADER,
    M3_TOKEN,
    NAME_PREFIXES,
    angleless_invoke_head,
    call_head,
    extract_calls_from_text,
    fenced_call_head,
    gemini_head,
    gemma_head,
    prefixed_tool,
    repair_names,
    schema_properties,
)
from agent_core.think import Split, ThinkSplitter, clean_reasoning, visible_text
from agent_core.tool_calls import LENGTH_FINISH_REASONS, ToolCall, ToolCallAssembler, round_id_prefix
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import call_usage

_CALL_LIKE_STARTS = ("{", "[", "<", "`")
_CALL_OPENERS: Final = (FUNCTOOLS, HARMONY_RECIPIENT, HCX_CALL_HEADER)
"""Words that open a reply written as a call: Phi-4-mini's call list, a Harmony recipient whose
special tokens the server left out (gpt-oss: ``to=functions.get_weather``, ggml-org/llama.cpp
#15181), HyperCLOVAX-SEED-Think-14B's header of a tool message (``text_calls._hcx_calls``)."""
_AFTER_NAME: Final = frozenset({":", "{", "(", "<"})
"""What follows a tool's name at the start of a reply that writes a call on one line (``<``:
GLM's ``name<arg_key>``, also mangled, mrwogu/factory-droid-openai#36)."""
_STOP_HELD: Final = frozenset("{[<`~✿|")
"""Characters a held tail holding one is kept back at a reply that stopped short: call markup,
a call object or list, a fence may be opening there (``AnswerGate.stopped``)."""
_STOP_START_HELD: Final = _STOP_HELD | frozenset(":=")
"""Characters a reply's start not yet told from a call is kept back for when the reply stops
short (``AnswerGate._stopped_start``): those of ``_STOP_HELD``, and those after which a call's head
goes on (``call:``, ``WORD:default_api:``, ``to=functions.``): a call may have been cut there."""
_ACTION_LABEL = "action"
_M3_SIZE: Final = len(M3_TOKEN)
_NONBLANK = re.compile(r"\S")
_LABEL_MAX: Final = 256
"""How long a reply's start is held while it may still be a ``Tool call`` label and the name of
the call written below it (``AnswerGate._labelled_call``), characters."""
_GEMMA_LINE_MAX: Final = 2048
"""How long a line that opens Gemma 4's bare ``call:NAME{`` is held while it may be the reply's
last (characters); a longer one streams."""
_LIST_START = re.compile(r"\[\s*([^\W\d][\w.\-]*|)\s*(\()?")
"""``[`` and a name, then ``(`` if it came: where a list of calls written as code may open."""
_LINE_HEAD = re.compile(r"\n[ \t]*(?=[{<f`~>\[]|c(?:a(?:l(?:l(?::|\Z)|\Z)|\Z)|\Z)|invoke |\w{1,16}+(?::|\Z))")
"""A line that may open a call object, a wrapper around one, ``functools[`` or a bare list of call
objects (``text_calls.call_head``),
a ```` ```json ```` fence of calls (``text_calls.fenced_call_head``), a fence of call markup, bare or
in a blockquote (``fenced_markup_head``), Gemma 4's bare ``call:NAME{`` (``text_calls.gemma_head``),
or Gemini's ``default_api:NAME{`` glued to a word of at most 16 characters or not
(``text_calls.gemini_head``): a line opening with such a word and a colon, or a word so far; or
MiniMax's ``invoke name="NAME">`` without its ``<`` (``text_calls.angleless_invoke_head``)."""

_EMOJI_START = re.compile(EMOJI_CHAR)
"""An emoji's first character (``agent_core.emoji``): a line may open an ``Action:`` label after it."""
_ACTION_MARKS: Final = line_marks(" \t#*>")
"""Markdown and emoji an ``Action:`` label may come after at a line start (``🔧 Action:``)."""
_ACTION_CALL = re.compile(
    rf"(?im)^{_ACTION_MARKS}action[ \t*{LABEL_SPACES}]*[:：][ \t\u00a0*]*(?:\r?\n[ \t]*)?(?:{FENCE_RUN}[\w-]*[ \t]*\r?\n[ \t]*)?[{{\[]"
)
"""A line that opens a call written as ReAct's ``Action:`` label and a JSON blob (on its line, the
next, or in a fence under it; after markdown or emoji: ``🔧 Action:``): what ``text_calls`` reads
as a call of a known tool wherever it stands in the reply (LangChain's structured-chat format,
which models trained on it write with native tools offered too)."""
_LINE_MARKS: Final = " \t#*_>-"
"""The markdown a line opening an ``Action:`` call or a ``Final Answer`` label may start with
(``_ACTION_CALL_START``, ``_LABEL_TAIL``): while a line held at the start of streamed text (after
the line breaks held before it) has only these, more of them leaves it held."""
_BLANK_LINES_HELD: Final = 4
"""Blank lines before an empty ``Final Answer`` label, or after it, that ``_LABEL_TAIL`` holds with
it: a paragraph break and a few more; an earlier one streams, so what is held stays short."""
_ACTION_CALL_START = re.compile(
    rf"""\n{_ACTION_MARKS}                     # a line start, markdown and emoji
    (?:a(?:c(?:t(?:i(?:o(?:n                        # a prefix of the label
    (?:[ \t*{LABEL_SPACES}]*(?:[:：][ \t\u00a0*]*     # its colon
    (?:\r|\r?\n[ \t]*)?                              # a line break
    (?:`{{1,2}}|~{{1,2}}|(?:`{{3,}}|~{{3,}})[\w-]*(?:[ \t]*\r?(?:\n[ \t]*)?)?)?  # a fence opening
    )?)?)?)?)?)?)?)?\Z""",
    re.IGNORECASE | re.VERBOSE,
)
"""The end of a text that may still grow into ``_ACTION_CALL`` (a line start, then a prefix of it)."""
_ACTION_WORDS: Final = label_words("action")
"""``Action`` in every language the ReAct parser reads it in (``行动``, ``行動``, ``행동``: its table,
``react.parser.label_words``)."""
_ACTION_STEP_LINE = re.compile(
    rf"(?im)^(?:{_ACTION_MARKS}(?:{_ACTION_WORDS})[ \t*{LABEL_SPACES}]*+[:：][ \t*]*+([\w.:\-]++)[ \t*]*+"
    rf"|{HEADING_MARKS.pattern}(?:{_ACTION_WORDS})[ \t]*+(?:\*\*|__)?[ \t]*+)(?=\r?\n)"
)
"""A line that opens a ReAct step: an ``Action:`` label (after markdown or emoji, in any language
of ``_ACTION_WORDS``) and a name alone on its line (group 1), or a heading or bold line holding
``Action`` alone (``### Action``, ``### 行动``, the name on the next line)."""
_CJK_ACTION_STARTS: Final = "".join(sorted({words[0][:1] for words in label_forms("action") if not words[0][:1].isascii()}))
"""The first characters of the labels of ``_ACTION_WORDS`` that are not ASCII (``行``, ``动``,
``행``): a text without them, without ``ction`` and without ``cci`` (Spanish ``Acción``)
holds no ``Action`` label (``may_hold_action``)."""
_ACTION_STEP_START = re.compile(
    rf"\n{_ACTION_MARKS}(?:(?:{_ACTION_WORDS})[ \t*{LABEL_SPACES}]*+[:：][ \t*]*+[\w.:\-]*+[ \t*]*+\r?"
    rf"|{'|'.join(re.escape(words[0][:n]) for words in label_forms('action') if not words[0].isascii() for n in range(1, len(words[0]) + 1))}"
    r")\Z",
    re.IGNORECASE,
)
"""The end of a text that is an ``Action:`` label and a name so far, or a start of a label of
``_ACTION_WORDS`` not written in ASCII (``行``): it may still be a line of ``_ACTION_STEP_LINE``
(a start of the English label alone is ``_ACTION_CALL_START``'s)."""


def may_hold_action(text: str) -> bool:
    """Whether ``text`` may hold (a start of) an ``Action`` label of ``_ACTION_WORDS``: ``ction`` or
    ``cci`` (Spanish ``Acción``) in it, or the first character of a label that is not ASCII
    (looked for only in a text that is not ASCII: ``str.isascii`` takes no pass). A cheap test before the readers of ``Action`` lines
    run (``AnswerGate._stream`` has it inline)."""
    return (
        "ction" in text or "CTION" in text or "cci" in text or "CCI" in text
        or (not text.isascii() and any(char in text for char in _CJK_ACTION_STARTS))
    )


_LABEL_TAIL = re.compile(
    rf"\n(?:[ \t]*+\n){{0,{_BLANK_LINES_HELD}}}+{line_marks(' \t#*_>-')}"
    rf"(?:f(?:i(?:n(?:a(?:l(?:[ \t_{LABEL_SPACES}]*(?:a(?:n(?:s(?:w(?:e(?:r[ \t*_{LABEL_SPACES}]*+(?:[:：][ \t*_]*+)?+"
    rf"(?:\r?\n[ \t]*+){{0,{_BLANK_LINES_HELD}}}+\r?)?)?)?)?)?)?)?)?)?)?)?)?\Z",
    re.IGNORECASE,
)
"""The end of a text that is a line holding a ``Final Answer`` label (after markdown, a list's
``-`` or emoji: ``- ✅ Final Answer:``) with nothing after it yet but line breaks, or a start of
one, with the line breaks before it: held until text follows the label (then it streams as
written), so a label the reply ends with, empty (``fallback.label_left``), never reaches the
user, nor does the line break before it. A text's last line breaks are held so until the next
text tells (at most ``_BLANK_LINES_HELD`` blank lines more; an earlier one streams)."""
_THOUGHT_LABELS: Final = tuple(words[0] for words in label_forms("thought"))
"""``Thought`` in every language the ReAct parser reads it in (``思考``, ``생각``: its table)."""
_OPENING_MARKS = re.compile(rf"(?:[#*_ \t{INVISIBLE_MARKS}]|{EMOJI_CHAR})*+")
"""What may come before a ReAct-style label at a reply's start: markdown, emoji (``💭 Thought:``,
``agent_core.emoji``) and marks nobody sees (``INVISIBLE_MARKS``), as the ReAct parser skips them."""
_THOUGHT_OPENING = re.compile(
    rf"\s*+(?:(?:[#*_ \t{INVISIBLE_MARKS}]|{EMOJI_CHAR})*+(?:{label_words('thought')})[ \t*_{LABEL_SPACES}]*+[:：]"
    rf"|{HEADING_MARKS.pattern}(?:{label_words('thought')})[ \t]*+(?:\*\*|__)?[ \t]*+(?=\r?\n))",
    re.IGNORECASE,
)
"""A reply's start that is a ReAct-style ``Thought:`` label (in markdown or not, after emoji or not),
or a heading or bold line holding ``Thought`` alone (``### Thought``, ``**💭 Thought**``: the ReAct
parser's ``HEADING_MARKS``), its line break not taken."""
_LABEL_WORDS: Final = (
    f"({label_words('final_answer', 'thought', 'action_input', 'action', 'observation', 'answer')}|question|问题)"
)
_STEP_LABEL_LINE = re.compile(rf"\n{LINE_PREFIX.pattern}{_LABEL_WORDS}[ \t\d*_{LABEL_SPACES}]*+[:：](?:\*\*|__)?[ \t]*+", re.IGNORECASE)
"""A line that opens with a ReAct step's label (numbered, after markdown, a list's ``-`` or emoji,
as the ReAct parser's ``LINE_PREFIX`` skips them: ``- ✅ Final Answer:``) and its colon, up to the
text after it (a bold label's closing ``**`` included: ``**Final Answer:** Paris``)."""
_STEP_LABEL_ALONE = re.compile(
    rf"\n(?:{HEADING_MARKS.pattern}{_LABEL_WORDS}[ \t{LABEL_SPACES}]*+[:：]?|{LINE_PREFIX.pattern}({label_words('final_answer')})[ \t\d*_{LABEL_SPACES}]*+)"
    r"[ \t]*+(?:\*\*|__)?[ \t]*+(?=\r?\n)",
    re.IGNORECASE,
)
"""A line that holds a ReAct step's label alone, no colon needed, as the ReAct parser reads one
after a step's first label (``_heading_label``, ``_match_label``'s ``alone``): a heading or bold
line (``### Final Answer``, ``**Action Input**``, after an emoji or not: ``### ✅ Final Answer``),
or a ``Final Answer`` line in any markdown (``Final Answer``, ``- ✅ Final Answer``); its line break
not taken."""
_ANSWER_LABEL = re.compile(label_words("final_answer", "answer"), re.IGNORECASE)
"""The step labels that give the answer (of ``_LABEL_WORDS``): ``Final Answer`` and ``Answer``, in
every language the ReAct parser reads them in (``最终答案``, ``최종 답변``)."""
_EMPTY_TILDE_HEAD = re.compile(r"~{1,2}|~{3,}+[^\n]*+(?:\n[ \t]*+)*+(?:~++[ \t\r\n]*+)?")
"""A reply's start that may still be a tilde fenced block with nothing in it: held, not streamed, until
a line with text comes in it (it then streams as before) or the reply ends."""


def react_final_step(text: str) -> tuple[str, str] | None:
    """The answer of a reply written as a ReAct final step, and what the reply went on with after
    it, not read (``""`` when nothing): a ``Thought:`` label first (or a ``### Thought`` heading
    alone on its line), the first labelled line after it a ``Final Answer:`` label with text
    (``Thought: I know it.\nFinal Answer: Paris`` gives ``Paris``), ``Answer:`` alone (as smaller
    models and LangChain's conversational format write it, and as the ReAct parser reads it after
    a label), or one of them alone on its line (``### Final Answer``, then the answer below). A
    labelled line after the answer is a step the model wrote on into the format when the ReAct
    parser reads it so (``Action:`` and ``Action Input:``, an ``Observation:``, a next
    ``Thought:``: ``ReactTurn.after_answer``): the answer is then the ReAct parser's, the rest is
    returned apart; any other labelled line after it (a quiz's second ``Answer:``, a heading of
    the answer) leaves the reply as it is. None for any other text, and for a label with nothing
    after it (``fallback.label_left``). Time linear in ``text``."""
    opening = _THOUGHT_OPENING.match(text)
    if opening is None:
        return None
    first = _first_label(text, opening.end())
    if first is None or _ANSWER_LABEL.fullmatch(first[0]) is None:
        return None
    if _STEP_LABEL_LINE.search(text, first[1]) is None:
        answer = text[first[1] :].strip()
        return (answer, "") if answer else None
    parsed = parse_react(text)
    answer = (parsed.final_answer or "").strip()
    if parsed.actions or not answer or not parsed.after_answer or not text[first[1] :].lstrip().startswith(answer):
        return None  # not the answer this reader found, or nothing written on after it
    return answer, parsed.after_answer


def react_final_answer(text: str) -> str | None:
    """``react_final_step``'s answer, None when ``text`` is no ReAct final step."""
    step = react_final_step(text)
    return None if step is None else step[0]


def _first_label(text: str, start: int) -> tuple[str, int] | None:
    """The first line of ``text`` after ``start`` that holds a ReAct step's label (with its colon:
    ``_STEP_LABEL_LINE``, or alone: ``_STEP_LABEL_ALONE``): the label's words and where the text
    after the label starts; None when there is none."""
    found = [match for match in (_STEP_LABEL_LINE.search(text, start), _STEP_LABEL_ALONE.search(text, start)) if match]
    if not found:
        return None
    first = min(found, key=lambda match: match.start())
    return next(word for word in first.groups() if word), first.end()


def action_call_at(text: str, line_start: bool) -> int | None:
    """Where the first line that opens an ``Action:`` call (``_ACTION_CALL``) starts in ``text``;
    ``line_start``: whether ``text`` starts a line."""
    found = _ACTION_CALL.search(text if line_start else "\0" + text)
    if found is None:
        return None
    return found.start() if line_start else max(found.start() - 1, 0)


def empty_label_tail(text: str, line_start: bool) -> int:
    """Length of the tail of ``text`` that is a ``Final Answer`` label line with nothing after it
    yet, or a start of one, with the line breaks before it (``_LABEL_TAIL``: a text's last line
    breaks too); 0 when there is none. ``line_start``: whether ``text`` starts a line."""
    found = _LABEL_TAIL.search(("\n" if line_start else "\0") + text)
    return 0 if found is None else len(found.group()) - (found.start() == 0)


def partial_action_call(text: str, line_start: bool) -> int:
    """Length of the tail of ``text`` that may still grow into a line opening an ``Action:`` call
    (``_ACTION_CALL_START``); 0 when none may."""
    found = _ACTION_CALL_START.search(("\n" if line_start else "\0") + text)
    return 0 if found is None else min(len(found.group()) - 1, len(text))


_HELD_TAIL = re.compile(rf"(?P<label>{_LABEL_TAIL.pattern})|(?x:{_ACTION_CALL_START.pattern})", re.IGNORECASE)
"""``_LABEL_TAIL`` or ``_ACTION_CALL_START`` in one search (``held_tail``): both end the text, so
the match that starts first is the longer tail; where both start, the label's is taken (its line
break is held, the call's is not)."""


def held_tail(text: str, line_start: bool) -> int:
    """``max(partial_action_call(text, line_start), empty_label_tail(text, line_start))`` in one
    search (``_HELD_TAIL``): the length of the tail of ``text`` held back while it may still grow
    into a line opening an ``Action:`` call or be a ``Final Answer`` label with nothing after it
    yet; 0 when there is none. ``line_start``: whether ``text`` starts a line."""
    found = _HELD_TAIL.search(("\n" if line_start else "\0") + text)
    if found is None:
        return 0
    return len(found.group()) - (found.start() == 0 if found.group("label") is not None else 1)


def action_step_at(text: str, line_start: bool, names: Collection[str]) -> int | None:
    """Where the first line that opens a ReAct step naming one of ``names`` starts in ``text``
    (``_ACTION_STEP_LINE``: ``Action: search`` alone on its line, the name exact or with a
    namespace before it: ``text_calls.prefixed_tool``; or ``### Action`` alone, the name below),
    None when none does; ``line_start``: whether ``text`` starts a line. The gate holds the reply
    from there: the step runs when the reply ends with it (``react_steps.react_step_calls``)."""
    for found in _ACTION_STEP_LINE.finditer(text if line_start else "\0" + text):
        name = found.group(1)
        if name is None or name in names or prefixed_tool(name, names) is not None:
            return found.start() if line_start else max(found.start() - 1, 0)
    return None


def partial_action_step(text: str, line_start: bool) -> int:
    """Length of the tail of ``text`` that may still grow into a line opening a ReAct step
    (``_ACTION_STEP_START``: ``Action: sea``); 0 when none may."""
    found = _ACTION_STEP_START.search(("\n" if line_start else "\0") + text)
    return 0 if found is None else min(len(found.group()) - 1, len(text))


_FENCE_OPEN_LINE = re.compile(rf"{FENCE_RUN}[ \t]*+[\w+.#-]*+[ \t]*+\r?\n\s*+")
"""A fence line (backticks or tildes: ``fences``) and the blank lines and indent after it."""
_FENCE_OPEN_LINE_START = re.compile(r"(?:`+|~+)(?:[ \t]*[\w+.#-]+[ \t]*\r?|[ \t]+\r?|\r)?")
_QUOTE_MARKS = re.compile(r"(?:>[ \t]?[ \t]*)+")
"""A line's blockquote markers (``> ``, nested ``> > ``), after its indent."""
_FENCE_INDENT = re.compile(r"[ \t]*(?:>[ \t]*)*[`~]")
_BLOCK_TAGS: Final = ("<tool_call>", "<tool_code>")
_FENCE_HEAD_MAX: Final = 240
"""How long a fence line and the blank lines after it are held while its first content line may
still open a call (characters)."""


def _held_opening(start: str) -> bool | None:
    """Whether a reply that starts with ``start`` (no leading whitespace) is held though it is no
    call: True (held whole) for a ReAct-style ``Thought:``, or a heading or bold line holding
    ``Thought`` alone (``### Thought``: ``_THOUGHT_OPENING``; either may end with an empty ``Final
    Answer:`` label: ``fallback.label_left``, and is then no answer), None while it may still be
    one or while it is a tilde fence with nothing in it yet (an empty block is no answer:
    ``fences.empty_code_block``; a line with text in it streams as before), False otherwise."""
    if start[0] == "~":
        return None if len(start) < _FENCE_HEAD_MAX and _EMPTY_TILDE_HEAD.fullmatch(start) else False
    label = start[_OPENING_MARKS.match(start).end() :]
    word = next((word for word in _THOUGHT_LABELS if word.startswith(label[: len(word)].lower())), None)
    if word is None:
        return False
    after = label[len(word) :].lstrip(" \t*_" + LABEL_SPACES)
    if len(label) <= len(word) or not after or after == "\r":
        return None if len(start) < _FENCE_HEAD_MAX else False
    if after[0] in "\r\n":  # a heading holding the label alone, the thought on the lines below
        return _THOUGHT_OPENING.match(start) is not None
    return after[0] in ":："


def _step_begun(start: str) -> bool:
    """Whether a reply's start ``start`` (no leading whitespace) is a start of a ReAct-style
    ``Thought:`` label, some of its letters written after the markdown and emoji before it
    (``Thou``, ``💭 Th``), or an empty tilde fence: held whole as a step or no answer
    (``_held_opening``). A start of markdown or emoji alone (``1``, which may still be ``1️⃣``) is
    not."""
    return bool(start[_OPENING_MARKS.match(start).end() :]) and _held_opening(start) is None


def fenced_markup_head(line: str) -> bool | None:
    """Whether a line that starts with ``line`` opens a fence (backticks or tildes, any language:
    ``fences``) whose first content line opens ``<tool_call>``/``<tool_code>`` or an ``Action:``
    call (``_ACTION_CALL``): the gate holds such markup wherever it stands, and, when it ends the
    reply, runs it, so the fence line above it is held too, or the user reads an answer cut
    inside an unclosed fence before the call runs. A fence in a blockquote (``> ```xml`` above
    ``> <tool_call>``) is read the same way, its content line's markers skipped; a content line
    without them ends the quote and its fence (False). True, False, or None while it cannot be
    told yet (at most ``_FENCE_HEAD_MAX`` characters)."""
    quoted = _QUOTE_MARKS.match(line)
    fence_at = quoted.end() if quoted else 0
    opening = _FENCE_OPEN_LINE.match(line, fence_at)
    if opening is None:
        if len(line) >= _FENCE_HEAD_MAX:
            return False
        return None if fence_at == len(line) or _FENCE_OPEN_LINE_START.fullmatch(line, fence_at) else False
    rest = line[opening.end() :]
    if quoted and rest:
        inner = _QUOTE_MARKS.match(rest)
        if inner is None:
            return False  # the quote ended at the fence line: so did its fence
        rest = rest[inner.end() :]
    if not rest:
        return None if len(line) < _FENCE_HEAD_MAX else False
    if rest[0] not in "<aA#*>" and _EMOJI_START.match(rest) is None:
        return False  # neither a tag nor an Action: label (after markdown or emoji) opens here
    low = rest[:11].lower()
    if any(tag.startswith(low) for tag in _BLOCK_TAGS):
        return True if len(low) == 11 else None
    if _ACTION_CALL.match(rest):
        return True
    return None if len(line) < _FENCE_HEAD_MAX and partial_action_call(rest, True) == len(rest) else False


_LEAK_HEAD = re.compile(r"to=functions\.([\w.\-]++)[^{]{0,128}?\{")
"""A gpt-oss recipient leaked into the content, up to its arguments' opening brace: its name (with
``json`` glued to it, ``get_weatherjson``, when the server dropped the space), then what the server
left of the header (``json``, a leftover token, garbage tokens: livekit/agents-js#1632)."""
_HARMONY_END_TOKEN = re.compile(r"<\|(?:call|end|return)\|>")


def harmony_leak_end(text: str, names: Collection[str]) -> int | None:
    """Where the gpt-oss recipients leaked at the start of ``text`` end (an index into ``text``):
    each is ``to=functions.NAME`` naming one of ``names``, the rest of its header (``_LEAK_HEAD``),
    its arguments as one JSON object, and after the object's closing brace the rest of that line
    (what the server glued to it: garbage tokens, livekit/agents-js#1632), or up to a Harmony end
    token (``<|call|>``) on it if one comes first. Several leaks one after another end after the
    last; the text after them is the model's own. None when ``text`` opens with no such leak or
    its arguments or line are not complete yet (a brace never closed, an object that is not JSON,
    a name of no node tool). Time in proportion to the leaks, not to the text after them."""
    at, end = 0, None
    while (head := _LEAK_HEAD.match(text, at)) is not None:
        name = head.group(1)
        if name not in names and name.removesuffix("json") not in names:
            return None
        try:
            _, closed = raw_decode_at(text, head.end() - 1)
        except (ValueError, RecursionError):
            return None
        line_end = text.find("\n", closed)
        token = _HARMONY_END_TOKEN.search(text, closed, line_end if line_end >= 0 else len(text))
        if token is None and line_end < 0:
            return None  # its line may still go on
        end = token.end() if token is not None else line_end + 1
        after = _NONBLANK.search(text, end)
        if after is None:
            return end
        at = after.start()
    return end


class AnswerGate:
    """Decides what of a reply's visible text may stream to the user now.

    ``feed`` returns the text to stream (possibly ''); ``held`` is the text kept back. A reply
    that starts like a tool call written as text is held whole. Once text streams, it is held
    again from any call markup on (``<tool_call>``, or a family's own markup that could not be
    read: ``call_markup.MARKUP_OPENERS``) or a line that opens an ``Action:`` call
    (``action_call_at``) or a line that opens a call object naming a tool, bare, in a Hermes
    wrapper tag or after ``functools[`` (``_line_call``: such a line is held only while it may
    still open one), so a call written after a sentence never reaches the user as text
    (Qwen and Hermes templates allow prose before the call); so is a fence line whose first
    content line opens such markup (``fenced_markup_head``). The whitespace the
    answer starts with is not streamed: model plugins close a reasoning block with separators
    (Anthropic's ``</think>\n\n``, MiniMax's ``\n</think>\n``) before it. A reply whose first
    line is one of ``tool_names`` alone is held too: GLM-4 writes a call as the name above its
    JSON arguments; so is a reply or a line that opens Gemma 4's bare ``call:NAME{`` naming one
    (``text_calls.gemma_head``), while it may. A reply that opens with a gpt-oss recipient leaked
    into the content (``to=functions.NAME``) naming one of ``tool_names`` is held to the leak's end
    (``harmony_leak_end``): the text the model wrote after it streams as above, and the leak is
    kept apart (``leak``).
    """

    def __init__(self, tool_names: Sequence[str] = ()) -> None:
        self._names = tuple(tool_names)  # a reply whose first line is one of them may be a call
        self._buffer = ""  # not passed on yet: the start of the reply, or a tail that may open markup
        self._blank: list[str] = []  # the reply's start while it is whitespace only (then _buffer is "")
        self._marks: list[str] | None = None  # once streaming: a held line start of markdown only (_LINE_MARKS)
        self._held: list[str] = []  # once holding: the rest of the reply, piece by piece
        self._decided: bool | None = None  # None: not yet; True: streaming; False: holding the rest
        self.streamed = False  # whether any text was passed on
        self._quote = CodeQuote()  # the streamed text: markup inside its code is an example
        self._line_start = True  # whether the streamed text so far ends a line (or is none)
        self._last = ""  # the streamed text's last characters (text_calls.after_m3_token)
        self.line_held = False  # whether the hold began at a line that may open a call object (_line_call)
        self.fence_held = False  # whether that line is a fence line (fenced_call_head, fenced_markup_head)
        self.leak = ""  # the gpt-oss recipients leaked at the reply's start, once the text after them streams
        self._leaking = False  # holding a reply that opened with a recipient naming a tool: until the leak ends
        self._leak_size = 0  # while _leaking: characters held
        self._leak_tried = 0  # while _leaking: characters held when the leak's end was last looked for
        self._leak_ended = False  # while _leaking: the leak's end came, nothing after it yet

    @property
    def held(self) -> str:
        """Text held back so far: all of it when holding, else a tail that may open markup."""
        if self._decided is not False:
            self._merge_marks()
            return "".join(self._blank) + self._buffer if self._blank else self._buffer
        if len(self._held) > 1:
            self._held[:] = ["".join(self._held)]
        return self._held[0] if self._held else ""

    @property
    def held_markup(self) -> str:
        """The held text from its markup on: without the fence line held above it (its language,
        ```` ```python ````, may be a tool's name)."""
        held = self.held
        if not self.fence_held:
            return held
        quoted = _QUOTE_MARKS.match(held, len(held) - len(held.lstrip(" \t")))  # a fence in a blockquote
        opening = _FENCE_OPEN_LINE.match(held, quoted.end() if quoted else len(held) - len(held.lstrip(" \t")))
        return held[opening.end() :] if opening else held

    def feed(self, text: str) -> str:
        """Consume visible text; return what can be streamed now."""
        if self._decided:
            return self._stream(text)
        if self._decided is False:
            self._held.append(text)
            if not self._leaking:
                return ""
            self._leak_size += len(text)
            if self._leak_ended and not text.isspace():
                return self._end_leak()
            # the leak ends at a line end or a token's ">": looked for again once the held text doubled
            if ("\n" in text or ">" in text) and self._leak_size >= 2 * self._leak_tried:
                return self._end_leak()
            return ""
        if not self._buffer and (not text or text.isspace()):
            self._blank.append(text)  # nothing to tell yet: kept apart, not copied and stripped again each time
            return ""
        if self._blank:
            self._buffer, self._blank = "".join(self._blank), []
        self._buffer += text
        start = self._buffer.lstrip()
        verdict = self._looks_like_a_call(start) if start else None
        if verdict is None:
            return ""
        if verdict:
            self._leaking = bool(self._names) and start.startswith(HARMONY_RECIPIENT)
            self._leak_size = len(self._buffer)
            return self._end_leak() if self._hold("") == "" and self._leaking else ""
        self._decided = self.streamed = True
        self._buffer = ""
        return self._stream(start)

    def stopped(self) -> str:
        """The reply stopped short (its stream failed, or the run's deadline came): the text held
        back that is the answer's own, ``""`` if none. That is a tail of streamed text held only
        because it might still grow into call markup or a line opening a call, when it holds no
        character such markup or a call object opens with (``_STOP_HELD``: then it may be a call
        cut off), a reply's start not yet told from a call that could have become none
        (``_stopped_start``), or the final answer of a reply held whole as a ReAct-style step
        (``_stopped_step``); never a reply held whole as a call, nor a step that is no answer."""
        self._merge_marks()
        if self._decided is None:
            return self._stopped_start()
        if self._decided is False:
            return self._stopped_step()
        if any(char in self._buffer for char in _STOP_HELD):
            return ""
        held, self._buffer = self._buffer, ""
        return self._passed(held)

    def _stopped_start(self) -> str:
        """``stopped`` for a reply whose start (``held``) was not told from a call yet: that start,
        without the whitespace before it, when it is answer text whatever would have followed it,
        else ``""``. A word or a few held only while Gemini's ``WORD:default_api:NAME{`` might still
        follow (``Yes``, ``partial``: ``text_calls.gemini_head``) is; a start holding a character a
        call's head goes on with (``_STOP_START_HELD``), one still read as a call or a start of one
        were its word ended there (a start of a tool's name, of an ``Action:`` label) and a start
        of a ``Thought:`` label (``_step_begun``) are not."""
        start = self.held.lstrip()
        if (
            not start
            or any(char in start for char in _STOP_START_HELD)
            or _step_begun(start)
            or self._looks_like_a_call(start + " ") is not False
        ):
            return ""
        self._blank, self._buffer = [], ""
        self._decided = self.streamed = True
        return self._passed(start)

    def _stopped_step(self) -> str:
        """``stopped`` for a reply held whole from its start: the text of its final answer when it
        is a ReAct-style step, a ``Thought:`` then a ``Final Answer:`` with text and no labelled
        line after it (``react_final_answer``), whose answer opens no call and holds no call markup
        (``call_markup.holds_call_markup``), as ReAct shows a final answer as it comes
        (``Thought: I know.\nFinal Answer: Ye`` shows ``Ye``); else ``""``: a call, or a step that
        was no answer yet (a Thought alone, an ``Action:``)."""
        if self.streamed or self._leaking:
            return ""
        answer = react_final_answer(self.held)
        if answer is None or answer.startswith(_CALL_LIKE_STARTS) or holds_call_markup(answer, self._names):
            return ""
        self._held = []
        self._decided = self.streamed = True
        return self._passed(answer)

    def _looks_like_a_call(self, start: str) -> bool | None:
        """Whether a reply that starts with ``start`` (no leading whitespace) is written as a
        call: True, False, or None while it cannot be told yet."""
        if start.startswith(_CALL_LIKE_STARTS):
            return True
        for opener in _CALL_OPENERS:
            if opener.startswith(start[: len(opener)]):
                return None if len(start) < len(opener) else True
        if self._names and (written := self._written_call(start)) is not False:
            return written
        if self._names and len(start) < _GEMMA_LINE_MAX and self._may_be_bare_call(start):
            return None
        first, newline, _ = start.partition("\n")
        head = first.strip()
        if self._names and not newline and any(name.startswith(head) for name in self._names):
            return None  # may still be a tool's name alone on its line
        if newline and head in self._names:  # a name above its arguments (text_calls._name_line)
            return True
        if any(head.startswith(name) and head[len(name) : len(name) + 1] in _AFTER_NAME for name in self._names):
            return True  # a name and its arguments on one line (text_calls._name_line, _CODE_CALL)
        if (opening := _held_opening(start)) is not False:
            return opening
        label = start[_OPENING_MARKS.match(start).end() :]  # "Action:", "**Action:**", "### Action"
        if label and _ACTION_LABEL.startswith(label[: len(_ACTION_LABEL)].lower()):
            after = label[len(_ACTION_LABEL) :].lstrip(" \t*_" + LABEL_SPACES)
            if not after:
                return None if len(start) < _FENCE_HEAD_MAX else False  # may still become "Action:"
            return after[0] in ":：\r\n"
        return False

    def finish(self) -> str:
        """The reply's text has all come: the text after a leaked recipient still held
        (``_end_leak``), ``""`` if none."""
        return self._end_leak() if self._decided is False and self._leaking else ""

    def _end_leak(self) -> str:
        """Holding a reply that opened with a leaked recipient: once the leak has ended
        (``harmony_leak_end``) and text follows it, the leak is kept apart (``leak``) and the text
        after it streams (returned, as ``_stream`` passes it); else ``""``, the reply still held.
        Time in proportion to the held text (``feed`` calls it as that text doubles)."""
        held = self.held
        lead = len(held) - len(held.lstrip())
        end = harmony_leak_end(held[lead:], self._names)
        self._leak_tried, self._leak_ended = self._leak_size, end is not None
        if end is None:
            return ""
        text = held[lead + end :].lstrip()
        if not text:
            return ""  # nothing after the leak yet
        self.leak, self._held, self._leaking = held[: len(held) - len(text)], [], False
        self._decided = self.streamed = True
        return self._stream(text)

    def _may_be_bare_call(self, start: str) -> bool:
        """Whether a reply starting with ``start`` may still be Gemma 4's bare ``call:NAME{...}``
        or Gemini's ``default_api:NAME{...}`` (glued to a word or not) naming a node tool, alone
        (``text_calls._bare_gemma``): held to the reply's end or the next line."""
        if start[:1] == "c":
            gemma = gemma_head(start, self._names)
            if gemma is None or (gemma and not start.partition("\n")[2].strip()):
                return True
        gemini = gemini_head(start, self._names)
        return gemini is None or (gemini and not start.partition("\n")[2].strip())

    def _written_call(self, start: str) -> bool | None:
        """``_looks_like_a_call`` for two forms a reply's first letter tells apart: MiniMax's
        invoke without its ``<`` (``text_calls._angleless_invokes``) and a call as code below a
        ``Tool call`` label (``_labelled_call``); False when ``start`` is neither."""
        if start[:1] == "i":
            return angleless_invoke_head(start, self._names)
        return self._labelled_call(start) if start[:1] in "TtFf" else False

    def _labelled_call(self, start: str) -> bool | None:
        """Whether a reply starting with ``start`` is a call written as code to a node tool below
        a line that only says ``Tool call`` (``text_calls.without_call_label``: Mistral through
        LiteLLM, openai/openai-agents-python#1196): True once the call's name and ``(`` have come,
        None while it may still be (the label, the blank lines after it, a start of a tool's
        name), else False. Looked at only while the reply's start is undecided."""
        first, newline, rest = start.partition("\n")
        head = first.strip().lower()
        if not newline:
            return None if len(head) < _LABEL_MAX and any(label.startswith(head) for label in CALL_LABELS) else False
        if head not in CALL_LABELS or not rest[:1].isspace():
            return False
        body = rest.lstrip()
        name, paren, _ = body.partition("(")
        if not paren:
            return None if len(body) < _LABEL_MAX and any(tool.startswith(body) for tool in self._names) else False
        return name.rstrip() in self._names

    def _hold(self, out: str) -> str:
        """Hold everything from the buffer on; return ``out``."""
        self._decided = False
        self._held = [self._buffer]
        self._buffer = ""
        return out

    def _stream(self, text: str) -> str:
        """Streaming: pass ``text`` on up to call markup (then hold the rest) or up to a tail that
        may still become markup."""
        if self._marks is not None:
            if not text.strip(_LINE_MARKS):
                self._marks.append(text)  # still a line start that may become "> Action:": held as it was
                return ""
            self._merge_marks()
        text = self._buffer + text
        action = stepping = None
        # may_hold_action inline (a call less a chunk): an "Action" label's start may be in the text
        hint = (
            "ction" in text or "CTION" in text or "cci" in text or "CCI" in text
            or (not text.isascii() and any(c in text for c in _CJK_ACTION_STARTS))
        )
        if hint:
            action = action_call_at(text, self._line_start)
            stepping = action_step_at(text, self._line_start, self._names) if self._names else None
            action = stepping if action is None or (stepping is not None and stepping < action) else action
        if "<" not in text and "[" not in text and "`" not in text and "✿" not in text:
            at, keep = action, 0
        else:
            at, keep = markup_start(text, self._quote, self._last), partial_markup(text)
            at = action if at is None or (action is not None and action < at) else at
            if "[" in text and self._names:
                listed, open_list = self._code_list(text)
                at = listed if at is None or (listed is not None and listed < at) else at
                keep = max(keep, open_list)
        if self._names and ("\n" in text or self._line_start):
            line, open_line = self._line_call(text)
            if line is not None and (at is None or line < at):
                at, self.line_held = line, True
                self.fence_held = _FENCE_INDENT.match(text, line) is not None
            keep = max(keep, open_line)
        if at is not None:
            self._buffer = text[at:]
            return self._hold(self._passed(text[:at]))
        keep = max(keep, held_tail(text, self._line_start))
        if stepping is None and action is None and self._names and hint:
            # an "Action:" line with no step yet: a tool's name may still be coming
            keep = max(keep, partial_action_step(text, self._line_start))
        self._buffer = text[len(text) - keep :]
        # a line start of markdown only, after the (blank) lines held before it (_LABEL_TAIL)
        if keep and keep == len(text) and (self._line_start or text[0] == "\n") and not text.strip(_LINE_MARKS + "\n"):
            self._marks, self._buffer = [text], ""  # more of it is held without reading it all again
        if passed := text[: len(text) - keep]:  # _passed inline (a call less a chunk)
            self._quote.feed(passed)
            self._line_start = passed[-1] == "\n"
            self._last = (self._last + passed[-_M3_SIZE:])[-_M3_SIZE:]
        return passed

    def _merge_marks(self) -> None:
        """The held markdown line start (``_marks``) back into the buffer."""
        if self._marks is not None:
            self._buffer, self._marks = "".join(self._marks), None

    def _code_list(self, text: str) -> tuple[int | None, int]:
        """Where a list of calls written as code opens in ``text`` (``[`` and a tool's name and
        ``(``: ``Here's a tool call: [get_weather(city="Paris")]``, read by
        ``text_calls._code_after_text``), or None; and the length of a tail that may still grow
        into one (0 when none may)."""
        for found in _LIST_START.finditer(text):
            name = found.group(1)
            if found.group(2):
                if name in self._names:
                    return found.start(), 0
            elif found.end() == len(text) and any(tool.startswith(name) for tool in self._names):
                return None, len(text) - found.start()
        return None, 0

    def _line_call(self, text: str) -> tuple[int | None, int]:
        """Where a line opening a call object after a sentence starts in ``text`` (its first key
        names a tool: ``{"name": "search", ...``, also in a Hermes wrapper tag or Phi-4-mini's
        ``functools[``: ``text_calls.call_head``), outside code the text quotes, or None; and the
        length of a tail from a line that may still open one (0 when none may). A line that turns
        out to open none is passed on."""
        probe, read = self._quote.copy(), 0
        for found in _LINE_HEAD.finditer(("\n" if self._line_start else "\0") + text):
            start = found.end() - 1
            probe.feed(text[read:start])
            read = start
            if probe.open:
                continue
            head = text[start : start + CALL_HEAD_SPAN]  # no copy of the rest per line
            if head[:1] == "`":
                verdict = fenced_call_head(head, self._names)
                verdict = fenced_markup_head(head) if verdict is False else verdict
                verdict = python_call_fence_head(head, self._names) if verdict is False else verdict
            elif head[:1] in "~>":  # a tilde fence, or a fence in a blockquote
                verdict = fenced_markup_head(head)
            else:
                verdict = call_head(head, self._names) if head[:1] in "{<f[" else False
                if verdict is False and head[:1] == "i":  # MiniMax's invoke without its "<"?
                    verdict = angleless_invoke_head(head, self._names)
                if verdict is False and head[:1] not in "{<":  # a word: Gemma's or Gemini's bare call?
                    verdict = self._gemma_line(text, start, self._bare_line(head))
            if verdict:
                return found.start(), 0  # the line's start: found.start() - 1 is its "\n" in the text
            if verdict is None:
                return None, len(text) - found.start()
        return None, 0

    def _bare_line(self, head: str) -> bool | None:
        """Whether a line starting with ``head`` opens Gemma 4's bare ``call:NAME{`` or Gemini's
        ``default_api:NAME{`` (glued to a word or not) naming a node tool: True, False, or None
        while it may still (``text_calls.gemma_head``, ``text_calls.gemini_head``)."""
        gemma = gemma_head(head, self._names) if head[:1] == "c" else False
        return gemma if gemma is not False else gemini_head(head, self._names)

    @staticmethod
    def _gemma_line(text: str, start: int, opens: bool | None) -> bool | None:
        """The verdict on a line of ``text`` from ``start`` that may open Gemma 4's bare call
        (``opens``: ``text_calls.gemma_head``): such a call is read only as the reply's last line,
        so a line naming a node tool is never held whole: False once text follows it (or it is
        longer than ``_GEMMA_LINE_MAX``), else None (its tail is kept back: the reply may end
        with it)."""
        if opens is False:
            return False
        end = text.find("\n", start)
        if (end >= 0 and _NONBLANK.search(text, end) is not None) or (end < 0 and len(text) - start > _GEMMA_LINE_MAX):
            return False
        return None

    def _passed(self, text: str) -> str:
        """``text``, noted as streamed (for the code it may open and where its last line ends)."""
        if text:
            self._quote.feed(text)
            self._line_start = text[-1] == "\n"
            self._last = (self._last + text[-_M3_SIZE:])[-_M3_SIZE:]
        return text


REASONING_PROBE: Final = 256
"""How many characters of a reply Function Calling holds, for a model not known to open its
reasoning block in the prompt, to see whether a bare ``</think>`` ends reasoning there
(``ThinkSplitter``'s ``probe``): the text before it is then kept out of the answer. A reply with
no such tag starts streaming once it is this long, or at its end."""


@dataclass
class _Collected:
    """Everything one model call sent, gathered while its text streamed."""

    text: str = ""
    reasoning: str = ""
    usages: list[LLMUsage] = field(default_factory=list)
    finish_reason: str | None = None
    reply: AssistantReply = field(default_factory=AssistantReply)
    reasoning_ended_turn: bool = False  # a turn-end token came inside the reasoning
    unclosed: str = ""  # the text of the reasoning block the content ended inside ("" if none)
    closing: str | None = None  # the closing tag of the reasoning block the content ended inside
    cut_markup: bool = False  # the output limit cut the reply inside a call's markup (never shown)


def _read_ahead(
    text: str, splitter: ThinkSplitter, markup: CallMarkup, gate: AnswerGate, visible: list[str], reasoning: list[str]
) -> Generator[str, None, str]:
    """Read all but the last ``SLICE_CHARS`` characters of a chunk of ``text`` in slices
    (``fairness.slices``) as ``_stream`` reads a chunk, yielding streamable text; return the rest."""
    for piece in slices(text[:-SLICE_CHARS]):
        part = splitter.feed(markup.feed(piece))
        visible.append(part.visible)
        reasoning.append(part.reasoning)
        if out := gate.feed(part.visible):
            yield out
    give_way()
    return text[-SLICE_CHARS:]


def _splitter(opened: bool, probe: bool) -> ThinkSplitter:
    """The think splitter of a reply. ``opened``: the reply may start inside a reasoning block
    (the model's template opens it in the prompt); else, with ``probe``, its first
    ``REASONING_PROBE`` characters are held the same way (a self-served model's template may open
    the block without its name saying so)."""
    return ThinkSplitter(opened=opened, probe=REASONING_PROBE if probe else 0)


def _stream(
    chunks: Iterator[ModelChunk],
    gate: AnswerGate,
    assembler: ToolCallAssembler,
    got: _Collected,
    splitter: ThinkSplitter,
    markup: CallMarkup,
) -> Generator[str, None, None]:
    """Feed every chunk through the call ``markup`` reader, the think ``splitter`` and the answer
    gate; yield streamable text.
    A reply held by the splitter (it may start inside a reasoning block: ``_splitter``) is held
    until the block closes, or to the end; once reasoning came apart from the content, for its
    first characters only (``ThinkSplitter.note_reasoning_apart``: the rest of the reasoning may
    still come in the content up to a bare ``</think>``)."""
    visible: list[str] = []
    reasoning: list[str] = []
    content, thinking = ReplyText(), ReplyText()  # \r\n line ends, a byte order mark at the start
    for chunk in chunks:
        got.reply.add(chunk)  # the message as sent, for the round trip; the readers get the cleaned text
        if chunk.reasoning:  # a held reply is held on, its first characters only (think.APART_HOLD)
            splitter.note_reasoning_apart()
        text = content.feed(chunk.text)
        if len(text) > SLICE_CHARS:  # a reply sent whole: read as if streamed, the other sessions running meanwhile
            text = yield from _read_ahead(text, splitter, markup, gate, visible, reasoning)
        part = splitter.feed(markup.feed(text))
        visible.append(part.visible)
        if chunk.reasoning:  # none: nothing to clean (feed("") is "")
            reasoning.append(thinking.feed(chunk.reasoning))
            if not got.reasoning_ended_turn:
                got.reasoning_ended_turn = ends_turn(chunk.reasoning)
        reasoning.append(part.reasoning)
        if chunk.tool_calls:  # the usual chunk has none: no walk set up
            for delta in paced(chunk.tool_calls):  # a chunk of 100,000 calls
                assembler.add(delta)
        if chunk.usage is not None or chunk.call_usage is not None:
            note_usage(chunk, got.usages)
        got.finish_reason = chunk.finish_reason or got.finish_reason
        if out := gate.feed(part.visible):
            yield out
    ended = markup.ended  # a turn-end token came (nothing follows it)
    cut = (got.finish_reason or "").lower() in LENGTH_FINISH_REASONS
    last = _markup_end(markup, splitter, got, visible, cut)
    if splitter.holding and cut:
        held = splitter.release(as_reasoning=True)  # cut before its </think>: all of it reasoning
        last = Split(last.visible + held.visible, last.reasoning + held.reasoning)
    tail = splitter.finish()
    got.reasoning_ended_turn = got.reasoning_ended_turn or (ended and splitter.inside)  # (the held start read too)
    got.unclosed, got.closing = splitter.open_block, splitter.closing_tag
    visible += (last.visible, tail.visible)
    reasoning += (last.reasoning, tail.reasoning)
    if out := gate.feed(last.visible + tail.visible) + gate.finish():
        yield out
    got.text, got.reasoning = "".join(visible), clean_reasoning("".join(reasoning))


def _markup_end(markup: CallMarkup, splitter: ThinkSplitter, got: _Collected, visible: list[str], cut: bool) -> Split:
    """What the call ``markup`` reader held at the end of a reply, through the ``splitter``. A
    call's markup the output limit ``cut`` before it closed is a cut call, never answer text: its
    text goes to ``visible`` (the reply's text, read for calls, which a cut reply never runs), not
    to the answer gate, and ``got.cut_markup`` says so (the reply is asked again). So does a reply
    whose model plugin raised because the limit cut a native call it then never sent
    (``cut_errors.CUT_IN_TOOL_CALL``): its text is no answer to continue, the call is asked again."""
    got.cut_markup = cut and (markup.holds_block or got.finish_reason == CUT_IN_TOOL_CALL)
    last = splitter.feed(markup.finish())
    if not got.cut_markup:
        return last
    visible.append(last.visible)
    return Split("", last.reasoning)


def _stream_or_stop(
    chunks: Iterator[ModelChunk],
    gate: AnswerGate,
    assembler: ToolCallAssembler,
    got: _Collected,
    splitter: ThinkSplitter,
    recipient_in_prompt: bool,
    tools: Mapping[str, PromptMessageTool | None],
) -> Generator[str, None, None]:
    """``_stream``; when the chunks raise (the model plugin failed, or the run's deadline came),
    the answer text held back so far is yielded before the error goes on, as much of it as the
    user would have read had the reply ended there, less what may be reasoning or a call: the
    reply's start the call markup reader held (``CallMarkup.stopped``), what the splitter held
    that is visible (``ThinkSplitter.stopped``), read through the gate, and the gate's held text
    that is no call (``AnswerGate.stopped``).

    ``recipient_in_prompt``: a Functionary model's bare ``all`` line at the start is dropped
    (``CallMarkup``). ``tools``: the tools by name, each to its declaration or None: a call
    written as an element named after one (``<read_file>...</read_file>``) is read as a call
    (``CallMarkup``), held from its tag on like any call markup."""
    markup = CallMarkup(recipient_in_prompt=recipient_in_prompt, tools=tools)
    try:
        yield from _stream(chunks, gate, assembler, got, splitter, markup)
    except Exception:
        if out := gate.feed(splitter.feed(markup.stopped()).visible + splitter.stopped().visible) + gate.stopped():
            yield out
        raise


def _cut_before_its_answer(text: str, gate: AnswerGate) -> bool:
    """Whether a reply the output limit cut (its visible ``text``) reached no answer text though
    it is not blank: held whole as a ReAct-style step (``_held_opening``) with no ``Final Answer:``
    text yet (``Thought: I need to``, or that label still empty), or prose and then an empty
    ``Final Answer`` label the gate held (``Let me think.\nFinal Answer:``). Wave 38: the Thought
    and labels were shown as the answer's start and its "rest" asked for ("Thought: I need to look
    Paris."); such a reply has no answer to continue, as ReAct reads a cut Thought."""
    held = gate.held
    if not held.strip():
        return False
    if gate.streamed:  # a whole label only: a start of one ("\nFin") may be a word of the answer's
        whole = held.strip().strip("#*_:： \t").lower().endswith("answer")
        return whole and empty_label_tail(held, True) == len(held)
    return _held_opening(held.lstrip()) is True and react_final_step(text) is None


def _cut_at_action_label(held: str, names: Collection[str]) -> bool:
    """Whether ``held``, the tail of a reply's text the gate held when the output limit cut it,
    is a whole ``Action:`` label (after markdown or emoji, its colon, maybe a fence's opening) and
    nothing after it, or such a label and a start of one of the node tools' ``names``: a
    ReAct-style call the limit cut before its tool's name or inside it, with or without a
    namespace before it (``functions.look``, ``default_api.``: ``text_calls.NAME_PREFIXES``). Such a reply is a cut
    call, asked again shorter, the label never shown as the answer's end (wave 38: "Let me
    check.\nAction:" showed the label, and its rest was asked for as an answer's). A start of the
    word alone (``Act``) may be the answer's own ("Actually"), and so may a label before another
    word ("Action: none"): they stay the answer's."""
    label = held.strip()
    if not label or ":" not in label.replace("：", ":"):
        return False
    if partial_action_call(label, True) == len(label):
        return True
    if partial_action_step(label, True) != len(label):
        return False
    name = label.replace("：", ":").split(":", 1)[1].strip(" \t*")
    if not name:
        return False
    # a namespace before the name (``functions.look``, as ``prefixed_tool`` reads a whole one)
    name = next((name[len(prefix) :] for prefix in NAME_PREFIXES if name.startswith(prefix)), name)
    return any(tool.startswith(name) for tool in names)


def _before_held(text: str, held: str) -> str:
    """``text`` before its tail ``held`` (the gate's held text, maybe with whitespace around it)."""
    tail = held.strip()
    return text[: text.rfind(tail)] if tail and tail in text else text


def _unshown(gate: AnswerGate) -> str:
    """What the user has not seen yet of a reply's text: the gate's held text, as the answer goes
    on with it (a held line keeps its indent; a reply held whole starts at its first word)."""
    return gate.held if gate.line_held or gate.streamed else gate.held.lstrip()


def _unreadable(text: str, gate: AnswerGate, names: Sequence[str]) -> ParseFailure:
    """The decision on a reply (its visible ``text``) whose call markup naming one of ``names``
    could not be read: the model is asked again (``prompts.TOOL_CALL_UNREADABLE``).

    Its fallback, the answer once the retries run out (the model kept writing so), is what the
    user has not seen of the reply (``_unshown``: the streamed prose before it was shown, and is
    not repeated) when all its markup stands in quoted text: a fenced block, a code span or a
    blockquote (``call_markup.markup_all_quoted``). That is an answer showing markup: a
    tutorial, an MCP tools list, a call quoted from a log. Markup outside them is how a model
    writes a call it means to make (alone, or after "Let me search."): a reply that keeps
    writing it broken has no fallback, and the run ends with a clear error rather than the
    broken call as its answer. Either way the log shows the problem and the raw reply. The text
    is the visible text, as a final answer's: no reasoning block, no think tag."""
    if not markup_all_quoted(text, names):
        return ParseFailure(prompts.TOOL_CALL_UNREADABLE)
    return ParseFailure(prompts.TOOL_CALL_UNREADABLE, _unshown(gate), continues=gate.streamed)


def _answer(text: str, gate: AnswerGate, turn: dict, cut: bool) -> Generator[str, None, ModelTurn]:
    """The turn of a reply whose visible ``text`` (not blank) is read as no call: its answer, the
    text the gate held yielded (a held line keeps its indent: the answer's text, as it came), or,
    not ``cut``, a reply that said nothing (``_said_nothing``), or one held whole that is a ReAct
    final step (``react_final_step``): the text after its ``Final Answer:`` label alone (what the
    model wrote on after it, a ReAct step, in the log: ``ModelTurn.after_answer``); ``cut`` inside
    that answer, the text after the label to its end (the labels were shown with the cut answer)."""
    if not cut and (said := (yield from _said_nothing(text, gate, turn))) is not None:
        return said
    if cut and _cut_before_its_answer(text, gate):  # asked again shorter, as ReAct asks a cut Thought
        return ModelTurn(thought=text, decision=ParseFailure(prompts.REPLY_CUT), **turn)
    if not gate.streamed and (step := react_final_step(text)) is not None and not (cut and step[1]):
        # held whole as a ReAct-style Thought (_held_opening): the user reads its answer alone, a
        # step written on after it only the log (never run, as ReAct's); the reply goes back to
        # the model intact (turn["content"]). Cut by the output limit inside its answer, the answer
        # keeps its end (the continuation goes on from it) and is shown without the labels
        answer, after = step
        answer = text[text.rfind(answer) :] if cut else answer
        yield answer
        return ModelTurn(
            thought=text, decision=FinalAnswer(answer), after_answer=after, calls_after_answer=actions_named(after), **turn
        )
    if gate.held:
        yield _unshown(gate)
    # the answer without the whitespace around it (a frame's "\n</answer>" left its "\n"), as
    # ReAct's; a cut one keeps its end: the continuation goes on from it
    return ModelTurn(thought=text, decision=FinalAnswer(text.lstrip() if cut else text.strip()), **turn)


def _said_nothing(text: str, gate: AnswerGate, turn: dict) -> Generator[str, None, ModelTurn | None]:
    """The turn of a reply (not cut) whose visible ``text`` says nothing though it is not blank:
    only an empty code block, held (``fences.empty_code_block``: an empty box in the chat), an
    empty reply asked again (``prompts.EMPTY_REPLY``); or ending with an empty ``Final Answer:``
    label (``_before_empty_label``). None for any other reply."""
    if not gate.streamed and empty_code_block(text):
        return ModelTurn(thought=text, decision=ParseFailure(prompts.EMPTY_REPLY), **turn)
    if text.strip() and (left := label_left(text)) is not None:
        return (yield from _before_empty_label(text, left, gate, turn))
    return None


def _before_empty_label(text: str, left: int, gate: AnswerGate, turn: dict) -> Generator[str, None, ModelTurn]:
    """The turn of a reply whose ``text`` ends with an empty ``Final Answer`` label starting at
    ``left`` (``fallback.label_left``; the gate held the label: ``empty_label_tail``). With
    nothing before it, or only a ReAct-style Thought (held whole: the model's thinking, and an
    answer it announced and never wrote), it is an empty reply, asked again
    (``prompts.EMPTY_REPLY``; at a limit the run says it stopped, as ReAct's). Prose before it is
    the answer, without the label: what the user has not seen of it is yielded."""
    before = text[:left].strip()
    if not before or not gate.streamed:
        return ModelTurn(thought=text, decision=ParseFailure(prompts.EMPTY_REPLY), **turn)
    unshown = _unshown(gate).rstrip()
    label = len(text.rstrip()) - left
    if rest := unshown[: max(len(unshown) - label, 0)].rstrip():
        yield rest
    return ModelTurn(thought=text, decision=FinalAnswer(before), **turn)


def _react_steps(
    text: str,
    gate: AnswerGate,
    tools: Mapping[str, PromptMessageTool | None],
    prefix: str,
    taken: Collection[str],
    cut: bool,
) -> tuple[tuple[ToolCall, ...], str, str] | str | None:
    """The calls of a reply that ends with ReAct steps the user has not seen
    (``react_steps.react_step_calls``), its thought and what it wrote from an invented
    ``Observation:`` after them on; ``react_steps.UNREADABLE`` when a step's
    input does not read; None for any other reply (``cut``: the output limit cut it). What streamed
    before the steps (the gate's held text is the reply's tail) stays shown, as before any call
    written after text."""
    held = gate.held
    if gate.streamed and not text.endswith(held):
        return None
    shown = len(text) - len(held) if gate.streamed else 0
    return react_step_calls(text, shown, tools, id_prefix=prefix, taken=taken, cut=cut, with_after=True)


def _stepped_turn(
    text: str,
    gate: AnswerGate,
    tools: Mapping[str, PromptMessageTool | None],
    prefix: str,
    taken: Collection[str],
    cut: bool,
    turn: dict,
    called: dict,
) -> ModelTurn | None:
    """The turn of a reply that ends with ReAct steps (``_react_steps``): their calls; or, a step
    naming a node tool whose input does not read (``react_steps.UNREADABLE``), a call written
    broken, asked again as other call markup outside code is (``prompts.TOOL_CALL_UNREADABLE``, no
    fallback; ``prompts.REPLY_CUT`` when the output limit cut the reply), the step never shown
    (the gate held it from its ``Action`` line). ``turn``: the turn's fields; ``called``: them as
    a turn with calls goes back. None for any other reply."""
    stepped = _react_steps(text, gate, tools, prefix, taken, cut)
    if stepped is None:
        return None
    if isinstance(stepped, str):
        return ModelTurn(thought=text, decision=ParseFailure(prompts.REPLY_CUT if cut else prompts.TOOL_CALL_UNREADABLE), **turn)
    calls, thought, after = stepped
    if after:  # a made-up Observation after the steps: what followed it is named, not run
        called = {**called, "after_answer": after, "calls_after_answer": actions_after_observation(after)}
    return ModelTurn(thought=thought, decision=ToolCalls(calls, in_text=True), **called)


def _word_before_native_call(gate: AnswerGate, names: Sequence[str]) -> list[str]:
    """The reply's text when it is one word held only because Gemini's ``WORD:default_api:NAME{``
    might have followed (``text_calls.gemini_head``), and native calls came instead: the word is
    the answer's text (``Checking``), shown as an unheld word would have been: ``[word]``, else
    ``[]``. A start of a tool's name stays held, as before."""
    word = "" if gate.streamed else gate.held.strip()
    if not word or gemini_head(word, names) is not None or any(name.startswith(word) for name in names):
        return []
    return [word]


def read_function_calling_turn(
    chunks: Iterator[ModelChunk],
    tools: Sequence[PromptMessageTool | str],
    round_index: int = 1,
    *,
    reasoning_opened: bool = False,
    taken_ids: Collection[str] = (),
    recipient_in_prompt: bool = False,
    reasoning_probe: bool = True,
) -> Generator[str, None, ModelTurn]:
    """Consume one model call; yield user text; return the ``ModelTurn``.

    The decision: assembled tool calls (valid and invalid) if any; else calls
    written in the content or, failing that, inside the reasoning
    (vllm39056); else the text as the final answer; else a ``ParseFailure``
    (a ``tool_calls`` finish with no call, call markup that cannot be read,
    or an empty reply). A tool-call turn whose content ended inside a reasoning block goes back
    with that block closed (``model_call.with_block_closed``). Ids made up for calls that came without one (or were written in the
    text) are nine letters and digits, unique across the run (``c<round:04><n:04>``:
    ``tool_calls.made_call_id``) and not in ``taken_ids``; a provider's id already in the
    conversation (``taken_ids``) is made unique too (``X_2``). ``reasoning_opened``: the model's
    template opens its reasoning block in the prompt (``think.opens_reasoning_in_prompt``), so
    the reply is held until a bare ``</think>`` shows where its reasoning ends.
    ``recipient_in_prompt``: the model is a Functionary model (its generation prompt ends with
    ``>>>``), so a reply's first line ``all`` is its recipient, not text (``CallMarkup``).
    ``reasoning_probe``: a model not known to open the block may still (a self-served one:
    ``RunState.reasoning_may_open_unannounced``), so the reply's first ``REASONING_PROBE``
    characters are held to look for a bare ``</think>`` (streaming starts after them).
    When the chunks raise (the model plugin failed, or the run's deadline came), the answer text
    held so far is yielded before the error goes on (``_stream_or_stop``): never text that may
    be reasoning or a call.
    """
    prefix = round_id_prefix(round_index)
    names = [getattr(tool, "name", tool) for tool in tools]
    gate, assembler, got = AnswerGate(names), ToolCallAssembler(id_prefix=prefix), _Collected()
    declared = {name: (None if isinstance(tool, str) else tool) for name, tool in zip(names, tools, strict=True)}
    splitter = _splitter(reasoning_opened, reasoning_probe)
    yield from _stream_or_stop(chunks, gate, assembler, got, splitter, recipient_in_prompt, declared)
    text = got.text
    parameters = {name: schema_properties(tool) for name, tool in declared.items()}  # names the reply's calls may use
    assembled = assembler.finish(got.finish_reason, taken=taken_ids, parameters=parameters)
    turn = dict(
        usage=call_usage(got.usages),
        reasoning=got.reasoning,
        finish_reason=got.finish_reason,
        raw=text,
        content=got.reply.content,
        opaque_body=got.reply.opaque_body,
    )
    called = {**turn, "content": with_block_closed(got.reply.content, got.closing)}  # goes back before its calls
    if assembled.calls or assembled.invalid:
        yield from _word_before_native_call(gate, names)
        calls = repair_names(assembled.calls, tools)
        return ModelTurn(thought=text, decision=ToolCalls(calls, assembled.invalid, order=assembled.order), **called)
    # cut inside a call's markup (got.cut_markup: MiniMax's second <invoke>): the calls before the cut
    # in it are not read (they may be half a plan), the reply is asked again below, as ReAct asks it
    readable = tools and not got.cut_markup
    calls, rest = extract_calls_from_text(text, tools, id_prefix=prefix, taken=taken_ids) if readable else ((), text)
    # a call begun in the reasoning and ended in the content (closing markup only) is read whole
    split = not calls and bool(tools) and closes_markup_only(text)
    if not calls and tools and got.reasoning and (split or not text.strip()):
        in_reasoning = rewrite_markup(got.reasoning + (text if split else ""), declared)
        calls, _ = extract_calls_from_text(in_reasoning, tools, id_prefix=prefix, taken=taken_ids)
    if calls:
        return ModelTurn(thought=rest.strip(), decision=ToolCalls(tuple(calls), in_text=True), **called)
    cut = (got.finish_reason or "").lower() in LENGTH_FINISH_REASONS
    if tools and (stepped := _stepped_turn(text, gate, declared, prefix, taken_ids, cut, turn, called)) is not None:
        return stepped
    if not text.strip() and got.reasoning_ended_turn and (answer := visible_text(rewrite_markup(got.reasoning)).strip()):
        yield answer  # the reply never left its reasoning: it was the answer (ends_turn)
        return ModelTurn(thought=text, decision=FinalAnswer(answer), **turn)
    # Markup after streamed prose is a call only if it names a tool: an answer may show markup.
    # The language of a fence line held above markup is no name (gate.held_markup: ```python, a tool's name)
    # A leaked recipient held apart while the text after it streamed (gate.leak) names a tool: with
    # no call read, the reply is asked again as any unreadable call is, never an answer with the leak
    held = gate.leak + (gate.held if cut else gate.held_markup)
    quoted = gate.streamed and not cut and not any(name in held for name in names)
    # a line held only as it might open a call object (text_calls.call_head) that read as none is
    # the answer showing JSON (a tool's doc, a format example): as before such lines were held
    quoted = quoted or (gate.line_held and not cut and not holds_call_markup(gate.leak + gate.held))
    # a call written as code (lookup(q='a) or in a ```tool_code block that never closed: a cut or broken call
    # (or a ```python block holding only such a call, the limit cut: open_fenced_call); so is a
    # ReAct-style step the limit cut at its Action label or inside its tool's name
    # (not one in a code block the text opened before it: a trace the answer shows, wave 39)
    cut_call = cut and ((not gate.streamed and open_code_call(text, names)) or (
        _cut_at_action_label(gate.held, names) and open_block(_before_held(text, gate.held)) is None))
    open_call = bool(tools) and ((open_fenced_call(held, names) if cut else open_call_fence(held, names)) or cut_call)
    # a call marker the output limit cut before its ">" (call_markup.cut_opener): a cut call too
    open_call = open_call or (bool(tools) and cut and cut_opener(held))
    # cut inside a call's markup (got.cut_markup): asked again, shorter, the markup never shown
    if got.cut_markup or open_call or (text.strip() and held and tools and holds_call_markup(held, names) and not quoted):
        if cut:  # a reply the output limit cut is never an answer
            return ModelTurn(thought=text, decision=ParseFailure(prompts.REPLY_CUT), **turn)
        return ModelTurn(thought=text, decision=_unreadable(text, gate, names), **turn)
    if text.strip():
        return (yield from _answer(text, gate, turn, cut))
    if got.finish_reason == "tool_calls":
        # only reasoning, or nothing (labring/FastGPT#7339): what the reasoning says is the fallback,
        # as for a reply of only reasoning
        fallback = visible_text(rewrite_markup(clean_reasoning(got.unclosed or got.reasoning))) if got.reasoning.strip() else ""
        return ModelTurn(thought=text, decision=ParseFailure(prompts.TOOL_CALL_MISSING, fallback), **turn)
    # cut inside its reasoning, or before any text (a thinking model whose hidden reasoning took
    # the whole output: Gemini's MAX_TOKENS with no part): asked again, shorter, and told why
    if cut:
        return ModelTurn(thought=text, decision=ParseFailure(prompts.REPLY_CUT), **turn)
    if not got.reasoning.strip():
        return ModelTurn(thought=text, decision=ParseFailure(prompts.EMPTY_REPLY), **turn)
    # A reply that stopped inside the <think> it opened (lobehub/lobehub#5672: the whole answer
    # in it), or that put its answer in reasoning_content (which Dify's OpenAI-compatible plugin
    # wraps in a closed <think> block; BerriAI/litellm#14917): asked again, and if it keeps doing
    # so, what it wrote there is its answer.
    fallback = visible_text(rewrite_markup(clean_reasoning(got.unclosed or got.reasoning)))
    return ModelTurn(thought=text, decision=ParseFailure(prompts.ONLY_REASONING_REPLY, fallback), **turn)
