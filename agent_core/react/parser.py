"""Streaming ReAct output parser: ``feed(text) -> events``, then ``finish()``.

Shapes
------
``ReactStreamParser.feed(chunk)`` returns a list of events, as soon as each is certain:

* ``ThoughtDelta(text)`` - visible reasoning; labels (``Thought:``, ``**Action:**`` ...) removed.
* ``ReasoningDelta(text)`` - inside reasoning blocks (``<think>``, ``<thinking>``, ``<reasoning>``,
  ``<thought>``, ``<seed:think>``, ``[THINK]``: ``think.ThinkSplitter``).
* ``AnswerDelta(text)`` - final-answer text, streamed after ``Final Answer:`` (leading and trailing
  whitespace trimmed); sent whole when the answer comes in a JSON blob or from a fallback below.
* ``ActionFound(name, input, raw)`` - one tool call, emitted the moment its JSON closes (or, for a
  text input, when the next label or the end arrives). ``input`` is a dict, a string (text the
  caller must fit to the tool) or None; ``raw`` is the action as written, from its label or tag.
  A call in bare JSON under a ``Thought:`` label is held until the turn shows it was not an
  example inside the thought: a labelled action later in the turn drops it back into the
  thought, anything else emits it.

``finish()`` flushes and returns the last events; then ``result()`` is the ``ReactTurn``.
Adjacent deltas of one kind may be split differently depending on chunking; their concatenation
never is. An AnswerDelta is never emitted in a turn that has an action, unless the turn is
``revised``: answer text that streamed before call markup in the answer, or before a bare
``</think>``, turned out to be a draft.

What is held back
-----------------
Only text that may still become a marker: the start of a line while it may still be a label
(``Act``, ``## Thou``, ``Final Answer`` before its colon, ``Observ``), a fence line (`````json``)
or a ``{`` at a line start that may open an action object (it must go on with a quoted key at
once; kept until the object closes, then given back as thought text when it is not an action),
a ``<`` that may open a tag (``<think``, ``<tool_call>``, ``<|eot_id|>``), an ``F`` after a
space that may begin an inline ``Final Answer:`` (exact case, as LangChain reads it), and, when
several actions are allowed, spaces and a ``,`` or ``;`` right after an action's JSON (another call
object may follow on the line). Inside a
final answer, trailing whitespace, a ``</s>`` and (in a reply wrapped in a fence) a fence line
that would open a block wait for more text. A ``{`` or ``[`` inside a line of thought never
starts JSON capture.

Labels are recognised at the start of a line (after indentation, markdown such as ``**``,
``## ``, ``> `` and emoji such as ``💭 ``, ``👉 ``, ``1️⃣ ``: ``agent_core.emoji``; a line of them so
far waits), case-insensitively, with ``:`` or ``：``, in English or as models write them
in Chinese (``思考``, ``行动``, ``行动输入``, ``观察``, ``最终答案``...), Japanese, Korean or Spanish
(``Acción``, ``Entrada de la acción``, ``Respuesta final``); ``Answer:`` alone is a
``Final Answer:`` (smaller models drop the first word), and once a label was seen a final-answer
label may stand alone on its line without a colon (``### Final Answer``); ``Action Input`` may also follow the tool
name on its line, or come on the next line as ``Input:``, ``Parameters:`` or ``Arguments:``, and
the name may stand alone in a fence under ``Action:``. A markdown heading or bold line holding a
label alone is that label (``### Thought``, ``**Action**``, ``### 💭 Thought``: ``_heading_label``), and the XML-tagged
step's ``<action>NAME</action>`` takes the ``<action_input>`` element after it as its input
(``_action_element``). Text with no marker
at all is the final answer: it was streamed as ThoughtDelta (nothing could be known earlier) and
is sent as one AnswerDelta by ``finish()``.

Where behaviours come from (case ids: docs/real-world-cases.md)
-----------------------------------------------------------------
* The action wins over a later Final Answer, and text from an invented ``Observation:`` is cut;
  only the first action unless ``allow_multiple_actions`` (crewai1545, dspygo167); with it, call
  objects written one after another on a line (``{...} {...}``, ``{...}, {...}``, ``{...}; {...}``:
  llama3.1's parallel calls; also call lists ``[{...}][{...}]``) are an action each, in order. A final answer
  also ends at a ``Thought:`` or ``Action Input:`` line (the model wrote on into the format), and
  at a ``Question:`` line when such a line follows it (held until the turn shows which;
  QuangBK/localLLM_langchain#2, stanfordnlp/dspy#931); ``Action:`` alone does not end it, an
  answer may use the word (an action plan).
* Reasoning blocks never reach thought or answer; a turn written entirely inside one is recovered
  from it (nat2227).
* A trailing partial stop word (``\\nObserv``) and quotes around a text input are stripped (qwen197).
* ``Action: None`` / ``N/A`` is no tool call: the visible text, without labels, is the answer
  (llamaindexts858, crewai4186).
* ``Action_input:`` without ``Action:`` is a problem, not an answer (dop3699).
* Almost-JSON inputs are repaired: Python literals (nat1666), ``\\_`` escapes (openhands260),
  envelopes such as ``{"tool_call": {"function": {...}}}`` (dop3705), ``{"tool_name",
  "tool_arguments"}`` (smolagents158), ``<tool_call>`` (mlxswift529), XML ``<action>`` (dspygo167).
  A text input stays a string (dify2949); schema-shaped inputs are left to the caller (llamaindex12699).
* With ``tool_names``, an element named after one of the tools that opens a line of text (no
  ``Action:`` label needed) or follows ``Action:`` is a call, its parameters as child elements
  (``<read_file>\n<path>a.py</path>\n</read_file>``: the format Cline's and Roo-Code's prompts
  teach, RooCodeInc/Roo-Code#10464, #10358). Any other tag, one inside a line or a code block,
  one never closed, or one after ``Final Answer:`` is text.
* Turns with neither action nor answer carry ``problem``, so the caller re-prompts instead of
  showing a placeholder (dify29026, dop746); unless the reply is prose, then code blocks that end
  it holding all its labels (an answer showing steps: CrewAI's log, a ReAct prompt template whose
  ``Action:`` names a phrase), shown whole (``_steps_shown``). An ``Action:`` in a code block of
  the thought takes its input from that block only (``_action_fence``).

Shapes from public threads and model habits (``tests/unit/test_react_parser_real_outputs.py``):
special tokens are dropped, DeepSeek's ``<｜end▁of▁sentence｜>`` too, and ``</s>`` when it ends
the reply; a dropped token keeps the line start (``<|python_tag|>{"name": ...}``). Envelope keys
match in any case and separator spelling (``{"Action": ..., "Action Input": ...}``), and an
object holding only a thought and a final answer (``{"thought": ..., "final_answer": ...}``) is
the answer. A block after ``Action:`` may hold a call ``search(query="x")``. A code block inside a JSON string
written with raw newlines does not end a fenced blob (dify-official-plugins#2291), and a reply
wrapped whole in a fence does not end its answer with the closing fence (llama_index#14736).

``problem`` strings are short factual sentences; the re-prompt wording around them lives in
``agent_core/prompts.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final, NamedTuple

from agent_core.call_markup import (
    PYTHON_FENCES,
    QUOTE_LOOK_BACK,
    CallMarkup,
    CodeQuote,
    code_call_start,
    in_quoted_line,
)
from agent_core.emoji import (
    CJK_PICTOGRAPHS,
    EMOJI_CHAR,
    INVISIBLE_MARKS,
    PICTOGRAPHS_FROM,
    SYMBOLS_FROM,
    SYMBOLS_TO,
)
from agent_core.fences import Opening, after_line, fence_lines
from agent_core.json_args import raw_decode_at, surrogates_replaced, with_closers
from agent_core.prompts import (
    PROBLEM_EMPTY,
    PROBLEM_EMPTY_ANSWER,
    PROBLEM_INVENTED_OBSERVATION,
    PROBLEM_NO_NAME,
    PROBLEM_NO_TOOL_IN_JSON,
    PROBLEM_NONE_EMPTY,
    PROBLEM_NOT_JSON,
    PROBLEM_ONLY_REASONING,
    PROBLEM_ORPHAN_INPUT,
    PROBLEM_THOUGHT_ONLY,
    PROBLEM_UNREADABLE_BLOCK,
)
from agent_core.text_calls import (
    BARE_NAME,
    CALL_FORM,
    FAIL,
    Call,
    after_m3_token,
    call_arguments,
    calls_from_block,
    coerce_input,
    decode_input,
    decode_json,
    decode_nested,
    element_arguments,
    element_opening,
    envelope_name,
    function_equals_call,
    interpret,
    name_alone,
    named_by_method,
    prefixed_tool,
    without_trailing_tokens,
)
from agent_core.think import BLOCK_END, REASONING, STRAY_END, THOUGHT, VISIBLE, ThinkSplitter

# --------------------------------------------------------------------------------------------
# Events and the turn
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThoughtDelta:
    """Visible reasoning text (labels like ``Thought:`` removed)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Text inside ``<think>...</think>`` (or ``<thinking>``, ``<reasoning>``)."""

    text: str


@dataclass(frozen=True, slots=True)
class AnswerDelta:
    """Final-answer text, emitted as soon as it is certain."""

    text: str


@dataclass(frozen=True, slots=True)
class ActionFound:
    """One tool call. ``raw`` is the action as written, from its ``Action:`` label or tag on."""

    name: str
    input: dict | str | None
    raw: str


ReactEvent = ThoughtDelta | ReasoningDelta | AnswerDelta | ActionFound


@dataclass(frozen=True)
class ReactTurn:
    """Summary of one model turn, valid after ``finish()``."""

    thought: str
    """Visible thought text, stripped."""
    reasoning: str
    """Text of the reasoning blocks, stripped."""
    actions: tuple[ActionFound, ...]
    """Tool calls, in order (at most one unless ``allow_multiple_actions``)."""
    final_answer: str | None
    """The answer; None when there is an action, or nothing usable."""
    problem: str | None
    """Set when there is neither an action nor a final answer: what was wrong, for the model."""
    raw: str
    """The full text received."""
    ended_inside: bool = False
    """The reply ended inside an action (its input or blob never closed): cut off, if the
    model stopped at its output limit."""
    answer_ended: bool = False
    """The final answer ended before the reply did: the model wrote on into the format (an
    invented ``Observation:``, a next ``Thought:``; not a next action, which the limit may have
    cut) or its JSON answer closed. A reply the output limit cut after that point left its
    answer whole."""
    after_answer: str = ""
    """What the reply went on with after its labelled final answer ended, not read (an
    ``Action:`` step, an invented ``Observation:``, a next ``Thought:`` or ``Question:``), as
    the reader saw it, stripped; ``""`` when the answer ran to the reply's end."""
    after_actions: str = ""
    """What the reply went on with after its actions, from an ``Observation:`` it wrote itself on
    (the made-up result, and any step written after it: a next ``Action:`` acts on that result),
    or from a ``Final Answer:`` written before any result (wave 39: an action after it was dropped
    without a word to the model), stripped; not read, never run: the caller names its actions to
    the model and the log. ``""`` when the reply ended with its actions."""
    calls_after_answer: tuple[str, ...] = ()
    """The tools named by the calls a JSON list put after its "Final Answer" object (``[{"action":
    "Final Answer", ...}, {"action": "search", ...}]``), in order: the answer wins, and they are
    not run. After an action (``[{"action": "search"}, {"action": "Final Answer"}, {"action":
    "search"}]``) the action runs and these are named to the model, not run."""



_FINAL_NAMES: Final = frozenset({"finalanswer", "finish"})
"""Action names that mean "answer": ``Final Answer``, and the ReAct paper's ``Finish[answer]``
(``finish(answer="...")``, datawhalechina/hello-agents#170)."""
_FINAL_NAME: Final = "Final Answer"
_NONE_NAME = re.compile(
    r"(?:none|n/?a|null|nil|nothing|no[ _\-]?(?:action|tool)s?(?:[ _\-]?(?:needed|required))?)(?:\W.*)?",
    re.I | re.S,
)


_NAME_SEPARATORS = re.compile(r"[\s_\-]")


def _is_final_name(name: str) -> bool:
    lowered = name.lower()
    return "f" in lowered and _NAME_SEPARATORS.sub("", lowered) in _FINAL_NAMES  # each final name has an "f"


_THOUGHT_KEYS: Final = frozenset({"thought", "thoughts", "thinking", "reasoning"})


def _answer_object(value: Any) -> tuple[Any, Any] | None:
    """``{"thought": ..., "final_answer": ...}`` (keys in any case and separator spelling,
    the thought optional, nothing else) -> (thought, answer); else None. A model told to write
    Thought / Final Answer sometimes writes them as one JSON object instead."""
    if not isinstance(value, dict):
        return None
    thought, answer, found = None, None, False
    for key, item in value.items():
        if _is_final_name(str(key)) and not found:
            answer, found = item, True
        elif str(key).strip().lower() in _THOUGHT_KEYS and thought is None:
            thought = item
        else:
            return None
    return (thought, answer) if found else None


def _is_none_name(name: str) -> bool:
    return bool(_NONE_NAME.fullmatch(name.strip()))


def _answer_text(value: Any) -> str:
    """The answer carried by a "Final Answer" action's input."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return next(iter(value.values())).strip()
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Recognising markers at a position (pure functions over the buffer)
# --------------------------------------------------------------------------------------------


class _Need:
    """Marker for "cannot decide until more text arrives"."""


_NEED: Final = _Need()


class _Marker(NamedTuple):
    kind: str  # a label kind, "brace", "fence" or "stop_partial"
    end: int  # where the marker ends in the buffer ("brace": where the "{" is)
    info: str = ""  # fence language
    fence: str = "```"  # a fence's closer: three of its character (backticks or tildes, CommonMark)


class _Tag(NamedTuple):
    kind: str  # "tool", "drop"
    length: int
    closer: str = ""


_LABELS: Final = (
    ("thought", ("thought",)),
    ("action_input", ("action", "input")),
    ("action", ("action",)),
    ("final_answer", ("final", "answer")),
    ("answer", ("answer",)),  # "Thought: ...\nAnswer: ..." (smaller models drop "Final"): see _on_line_marker
    ("observation", ("observation",)),
    # The same labels as models write them when the instruction or the query is in Chinese
    # (Qwen, DeepSeek, GLM: 思考/行动/行动输入/观察/最终答案, as in Chinese ReAct prompts).
    ("thought", ("思考",)),
    ("thought", ("想法",)),
    ("action_input", ("行动", "输入")),
    ("action_input", ("动作", "输入")),
    ("action", ("行动",)),
    ("action", ("动作",)),
    ("final_answer", ("最终", "答案")),
    ("final_answer", ("最终", "回答")),
    ("answer", ("答案",)),  # "Answer:" alone, as models write it in Chinese
    ("answer", ("回答",)),
    ("observation", ("观察", "结果")),
    ("observation", ("观察",)),
    # Traditional Chinese, Japanese and Korean, as models write them for a query in those languages.
    ("final_answer", ("最終", "答案")),
    ("final_answer", ("最終", "回答")),
    ("action_input", ("行動", "入力")),
    ("action_input", ("行動", "輸入")),
    ("action", ("行動",)),
    ("observation", ("観察",)),
    ("observation", ("觀察",)),
    ("thought", ("생각",)),
    ("action_input", ("행동", "입력")),
    ("action", ("행동",)),
    ("final_answer", ("최종", "답변")),
    ("final_answer", ("최종", "답")),
    ("observation", ("관찰",)),
    # Japanese and Korean as translations of LangChain's ReAct template write them (考え for
    # Thought, アクション for Action, 最終的な答え or 最終的な解答 for Final Answer; 액션 for Action).
    ("thought", ("考え",)),
    ("action_input", ("アクション", "入力")),
    ("action", ("アクション",)),
    ("final_answer", ("最終的な答え",)),
    ("final_answer", ("最終的な解答",)),
    ("action_input", ("액션", "입력")),
    ("action", ("액션",)),
    # Spanish, as models write the format for a Spanish prompt or query (GPT-3.5 in
    # jacarma/mortadelo's README: "Acción: search", "Entrada de la acción: ...", "Pensamiento:",
    # "Respuesta final:").
    ("thought", ("pensamiento",)),
    ("action_input", ("entrada", "de", "la", "acción")),
    ("action_input", ("entrada", "de", "acción")),
    ("action", ("acción",)),
    ("observation", ("observación",)),
    ("final_answer", ("respuesta", "final")),
)
_LABEL_KINDS: Final = frozenset(kind for kind, _ in _LABELS)
LABEL_SPACES: Final = "\u00a0\u202f"
"""The spaces other than `` `` that may stand between a label's words and before its colon: the
no-break space and the narrow no-break space, as French typography writes a label (``Action\u00a0:``,
``Thought\u202f:``, ``Final\u00a0Answer:``) and as some models' tokenizers give them back. Public:
Function Calling's readers of ReAct-style steps put it in their own character classes, so both
strategies read the same labels (no label word starts with one of them)."""


def label_forms(*kinds: str) -> tuple[tuple[str, ...], ...]:
    """The words of each ReAct label of ``kinds`` (``thought``, ``action``, ``action_input``,
    ``final_answer``, ``answer``, ``observation``) the parser reads, in English, Chinese, Japanese,
    Korean and Spanish, lower case (``("action", "input")``, ``("行动", "输入")``): the one table Function
    Calling's readers of ReAct steps build on (``function_calling.turn``, ``react_steps``)."""
    return tuple(words for kind, words in _LABELS if kind in kinds)


def label_words(*kinds: str) -> str:
    """``label_forms`` of ``kinds`` as one regex alternation, no group: each label's words with
    any run of `` _-`` and ``LABEL_SPACES`` between them (as the parser reads them), longer forms first. Case-insensitive
    use needs ``re.IGNORECASE``; the colon and what may stand before it are the caller's."""
    forms = {rf"[ _\-{LABEL_SPACES}]*+".join(map(re.escape, words)) for words in label_forms(*kinds)}
    return "|".join(sorted(forms, key=lambda form: (-len(form), form)))
_MD_CHARS: Final = " \t#>*_-"
_PREFIX_MAX: Final = 24
_LABEL_MAX: Final = 48
_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*(?:([\w+\-.]+)[ \t]*)?(?:\r?\n|(?=[{\[]))")
_FENCE_AT_END = re.compile(r"(`{3,}+|~{3,}+)[ \t]*+(?:([\w+\-.]++)[ \t]*+)?\Z")
"""A fence line the reply ends with, no line break after it (```` ``` ```` as its last characters):
a fence once nothing more can come, so a text input in a block ends at it (``_classify_fence``)."""
_FENCE_PARTIAL = re.compile(r"`{1,2}|~{1,2}|(?:`{3,}|~{3,})[ \t]*(?:[\w+\-.]+[ \t]*)?\r?")
_FENCE_CHARS: Final = "`~"
"""What a fence is a run of (CommonMark, ``agent_core.fences``): backticks or tildes."""
_FENCE_CLOSERS: Final = frozenset({"```", "~~~"})
_CANDIDATE_FENCES: Final = frozenset({"", "json", "json5", "jsonc", "tool_call", "tool_code"})
_CALL_FENCES: Final = frozenset({"tool_call", "tool_code"})
"""Fences that announce a call: their block may hold a code call (Gemini's ```tool_code)."""


def _skip_chars(text: str, i: int, chars: str) -> int:
    while i < len(text) and text[i] in chars:
        i += 1
    return i


_BETWEEN_WORDS: Final = " _-" + LABEL_SPACES
"""What ``_label_end`` skips between a label's words."""
_BEFORE_COLON: Final = " \t*_0123456789" + LABEL_SPACES
"""What ``_label_end`` skips between a label's last word (and any ``s``) and its colon."""


def _label_end(seg: str, words: tuple[str, ...], alone: bool = False) -> tuple[int, bool] | _Need | None:
    """Match one label at the start of lower-cased ``seg``: (end, ran out in the tail) or _NEED/None.

    With ``alone``, the label may also end its line with no colon (``### Final Answer``)."""
    j = 0
    for k, word in enumerate(words):
        if k:
            j = _skip_chars(seg, j, _BETWEEN_WORDS)
        part = seg[j : j + len(word)]
        if not word.startswith(part):
            return None
        if len(part) < len(word):
            return _NEED
        j += len(word)
    j = _skip_chars(seg, j, "s")
    j = _skip_chars(seg, j, _BEFORE_COLON)
    if j >= len(seg):
        return _NEED
    if alone and seg[j] == "\n":
        return j + 1, False
    if alone and seg.startswith("\r\n", j):
        return j + 2, False
    if seg[j] not in ":：":
        return None
    j = _skip_chars(seg, j + 1, "*")
    j = _skip_chars(seg, j, " \t")
    return j, j >= len(seg)


_Labels = tuple[tuple[str, tuple[str, ...]], ...]


class _LabelTable(NamedTuple):
    """What ``_match_label`` looks a label table up by."""

    labels: _Labels
    by_start: dict[str, _Labels]
    """The labels whose first word starts with a character, in the table's order."""
    by_two: dict[str, _Labels]
    """The labels whose first word starts with two characters, in the table's order (every first
    word has two or more: a line's first two tell ``pensamiento`` from ``Paris``)."""
    whole: tuple[re.Pattern[str], re.Pattern[str]]
    """Without and with ``alone``: the table as one pattern that matches where ``_label_end``
    returns an end, each label in a group of its own, in the table's order."""


def _label_pattern(labels: _Labels, alone: bool) -> re.Pattern[str]:
    """``labels`` as ``_label_end`` reads each: its words, separated by any run of `` _-`` or
    ``LABEL_SPACES``; any ``s`` and `` \t*_``, ``LABEL_SPACES`` or digits; a colon (``:`` or ``：``), then any ``*`` and `` \t``; or,
    ``alone``, for a final-answer label, the end of its line. The runs are greedy in
    ``_label_end`` and cannot give a character back here (no word starts with one of them),
    so the first label that matches and its end are the ones ``_label_end`` finds."""
    groups = []
    for kind, words in labels:
        line_end = r"|\r?\n" if alone and kind == "final_answer" else ""
        body = rf"[ _\-{LABEL_SPACES}]*".join(re.escape(word) for word in words)
        groups.append(f"({body}s*[ \\t*_0-9{LABEL_SPACES}]*(?:[:：]\\**[ \\t]*{line_end}))")
    return re.compile("|".join(groups))


_LABEL_TABLES: dict[int, _LabelTable] = {}
"""Label tables seen by ``_match_label``, by ``id`` (each kept alive in its entry)."""


def _label_table(labels: _Labels) -> _LabelTable:
    """The ``_LabelTable`` of ``labels``, made on first use."""
    table = _LABEL_TABLES.get(id(labels))
    if table is None or table.labels is not labels:
        index: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        index_two: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for label in labels:
            index.setdefault(label[1][0][:1], []).append(label)
            index_two.setdefault(label[1][0][:2], []).append(label)
        by_start = {start: tuple(group) for start, group in index.items()}
        by_two = {start: tuple(group) for start, group in index_two.items()}
        whole = (_label_pattern(labels, False), _label_pattern(labels, True))
        table = _LABEL_TABLES[id(labels)] = _LabelTable(labels, by_start, by_two, whole)
    return table


_REACT_TABLE: Final = _label_table(_LABELS)


def _match_label(
    text: str, i: int, eof: bool, labels: _Labels = _LABELS, alone: bool = False
) -> _Marker | _Need | None:
    """One of ``labels`` (case-insensitive, ``:`` or ``：``) at ``text[i:]``, after any markdown;
    with ``alone``, also a final-answer label ending its line with no colon.

    A whole label is found in one step (``_LabelTable.whole``); where none is, each label whose
    first word starts with the line's first two characters (its first one, while only one has
    come; any other fails on them) is read by ``_label_end``, to tell whether it may still come:
    a line of prose tries none."""
    seg = text[i : i + _LABEL_MAX].lower()
    cut = len(text) - i > _LABEL_MAX
    table = _REACT_TABLE if labels is _LABELS else _label_table(labels)
    found = table.whole[alone].match(seg)
    if found is not None:
        end = found.end()
        if end == len(seg) and seg[end - 1] != "\n" and not eof and not cut:
            return _NEED  # the colon ends the text so far: what follows it may still be a tail
        return _Marker(labels[found.lastindex - 1][0], i + end)
    partial = False
    tried = (table.by_two.get(seg[:2], ()) if len(seg) > 1 else table.by_start.get(seg, ())) if seg else labels
    for kind, words in tried:
        found = _label_end(seg, words, alone and kind == "final_answer")
        if isinstance(found, tuple):
            end, open_tail = found
            if open_tail and not eof and not cut:
                return _NEED
            return _Marker(kind, i + end)
        partial = partial or found is _NEED
    if not partial or cut:
        return None
    if not eof:
        return _NEED
    word = seg.strip()
    return _Marker("stop_partial", len(text)) if len(word) >= 2 and "observation".startswith(word) else None


def _classify_fence(text: str, i: int, eof: bool) -> _Marker | _Need | None:
    """A fence line (`````json``, ``~~~json``) at ``text[i:]``, complete with its newline; its
    marker's ``fence`` is the closer it needs (three of its character)."""
    match = _FENCE.match(text, i)
    if match is None and eof:
        match = _FENCE_AT_END.match(text, i)
    if match:
        return _Marker("fence", match.end(), (match.group(2) or "").lower(), match.group(1)[:3])
    if not eof and len(text) - i < _LABEL_MAX and _FENCE_PARTIAL.fullmatch(text, i):
        return _NEED
    return None


_CALL_PREFIXES: Final = (("[TOOL_CALLS]", "[TOOL_CALLS]"), ("functools[", "functools"))
"""What announces a list of calls at a line start, and the part of it dropped like
``<|python_tag|>``: Mistral's special token, and Phi-4-mini's ``functools[...]`` (the form
vLLM's ``phi4_mini_json`` tool parser reads)."""
_CALL_PREFIX_STARTS: Final = frozenset(prefix[0] for prefix, _ in _CALL_PREFIXES)


_LINE_OPENERS: Final = (
    frozenset(_MD_CHARS + INVISIBLE_MARKS + "{[`~0123456789" + CJK_PICTOGRAPHS) | _CALL_PREFIX_STARTS
)
"""The characters ``_classify_line`` looks at before it looks for a label there; a pictograph
(told by the ``agent_core.emoji`` bounds) is looked at too: an emoji may come before a label, and
a digit may be a keycap's (``1️⃣``)."""
_BLANK_PREFIX: Final = " \t" + INVISIBLE_MARKS
"""What a line prefix of only these holds nothing visible: a call list, a brace or a fence may follow."""
LINE_PREFIX = re.compile(rf"(?:[{re.escape(_MD_CHARS)}{INVISIBLE_MARKS}]|{EMOJI_CHAR}|[0-9]{{1,3}}+(?:[.)](?=[ \t]|\Z)|\Z))*+")
"""What a label may come after at a line start: markdown (``## ``, ``**``, ``> ``, ``- ``, an
ordered list's ``1.`` or ``2)`` before a blank: ``1. **Action:** search``, wave 39; digits at the
text's end wait for what follows), ``INVISIBLE_MARKS`` (``\\u200fFinal Answer:``) and emoji
(``💭 Thought:``, ``👉 **Action:**``, ``1️⃣ Thought:``: ``agent_core.emoji``), in any order.
Public: Function Calling's readers of ReAct-style steps (``function_calling.turn``,
``function_calling.react_steps``) use it, so both strategies read the same line starts."""


def _classify_line(
    text: str, i: int, eof: bool, alone: bool = False, headed: frozenset[str] = frozenset()
) -> _Marker | _Need | None:
    """What a line starting at ``text[i]`` begins with: a label, ``{``/``[``, a fence, or nothing.

    ``alone``: a final-answer label may also stand alone on its line (``### Final Answer``), as
    models write it once they follow the format. In prose it is a heading of the prose
    (``**Final Answer**\n\\boxed{4}`` after a worked solution), so it counts only after a label.
    ``headed``: the label kinds that may also be a heading line holding the label alone, no colon
    needed (``### Thought``, ``**Action**``: ``_heading_label``)."""
    if (
        i < len(text)
        and text[i] not in _LINE_OPENERS
        and not SYMBOLS_FROM <= text[i] < SYMBOLS_TO
        and text[i] < PICTOGRAPHS_FROM
    ):  # the usual line: no markdown, no emoji, only a label to look for
        return _match_label(text, i, eof, alone=alone)
    limit = min(len(text), i + _PREFIX_MAX)
    j = LINE_PREFIX.match(text, i, limit).end()  # markdown and emoji: a line of them so far waits
    if j >= len(text):
        return None if eof else _NEED
    if j >= limit:
        return None
    plain = not text[i:j].strip(_BLANK_PREFIX)
    if plain and text[j] in _CALL_PREFIX_STARTS:
        for prefix, dropped in _CALL_PREFIXES:
            if text.startswith(prefix, j):
                return _Marker("special", j + len(dropped))
            if not eof and len(text) - j < len(prefix) and prefix.startswith(text[j:]):
                return _NEED
    if plain and text[j] in "{[":
        return _Marker("brace", j)
    if plain and text[j] in _FENCE_CHARS:
        return _classify_fence(text, j, eof)
    found = _match_label(text, j, eof, alone=alone)
    return _heading_label(text, i, j, headed) if found is None and headed and j > i else found


def _heading_pattern(labels: _Labels) -> re.Pattern[str]:
    """A line that is one of ``labels`` alone: its words, any colon, a closing ``**`` or ``__``,
    the line's end; each label in a group of its own, in the table's order."""
    groups = "|".join("(" + rf"[ _\-{LABEL_SPACES}]*".join(re.escape(word) for word in words) + ")" for _, words in labels)
    return re.compile(f"(?:{groups})[ \t{LABEL_SPACES}]*+[:：]?[ \t]*+(?:\\*\\*|__)?[ \t]*+\r?\n")


_HEADING: Final = _heading_pattern(_LABELS)
HEADING_MARKS = re.compile(rf"[ \t]*+(?:#{{1,6}}+[ \t]++|\*\*|__)(?:[ \t]|{EMOJI_CHAR})*+")
"""A heading's or bold line's marks before its label, and any emoji after them (``### 💭 Thought``,
``**🔧 Action**``: ``agent_core.emoji``). Public: ``fallback`` and ``function_calling.turn`` read
heading labels with it."""
_HEADED_ALL: Final = frozenset(kind for kind, _ in _LABELS)
_HEADED_FIRST: Final = frozenset({"thought"})
"""Before any label, only a ``Thought`` heading opens a step: a prose answer may have an
``## Answer`` or ``### Action`` heading of its own."""


def _heading_label(text: str, i: int, j: int, kinds: frozenset[str]) -> _Marker | None:
    """A markdown heading (``### ``) or bold line (``**``) from ``text[i]``, its text from
    ``text[j]``, that holds one ReAct label of ``kinds`` alone and ends its line (``### Thought``,
    ``**Action Input**``, ``## Final Answer:``, after an emoji or not: ``### 💭 Thought``): a
    label, its text on the lines below. A heading with other words (``## Thought process``,
    ``### Actions taken``) is none."""
    if HEADING_MARKS.fullmatch(text, i, j) is None:
        return None
    found = _HEADING.match(text[j : j + _LABEL_MAX].lower())
    if found is None or _LABELS[found.lastindex - 1][0] not in kinds:
        return None
    return _Marker(_LABELS[found.lastindex - 1][0], j + found.end())


_INPUT_LABELS: Final = tuple(
    ("action_input", words)
    for words in (("tool", "input"), ("input",), ("parameters",), ("params",), ("arguments",), ("args",))
)
"""What models write for ``Action Input`` on the line after ``Action: <name>``; read only there."""


_QUESTION_LABELS: Final = (("question", ("question",)), ("question", ("问题",)))
"""The format's ``Question:``; read only inside a final answer, where it may begin a run-on."""

for _table in (_LABELS, _INPUT_LABELS, _QUESTION_LABELS):
    _label_table(_table)  # compiled once, at import

_RUN_ON_KINDS: Final = frozenset({"thought", "action_input", "observation"})
"""Labels that end a final answer: the model went on writing the format past its answer. Not
``Action:``, which an answer may use as a word of its own (an action plan's "Action: call the
supplier")."""


def _action_written_on(held: list[str], marker: _Marker) -> bool:
    """Whether an answer's held text from an ``Action:`` line on (``held``, its pieces), with the
    run-on ``marker`` on the line after it, is the format's next step written on past the
    answer: the ``Action:`` line alone, then ``Action Input:`` or ``Observation:`` (the ReAct
    format's order, langchain#21912). Otherwise (a ``Thought:`` after it, or more lines of the
    answer between them: meeting minutes' "Action: John to send the notes") the held text is
    the answer's own."""
    lines = [line for line in "".join(held).splitlines() if line.strip()]
    return len(lines) <= 1 and marker.kind in ("action_input", "observation")


def _input_label(
    text: str, i: int, eof: bool, labels: tuple[tuple[str, tuple[str, ...]], ...] = _INPUT_LABELS
) -> _Marker | _Need | None:
    """``Input:`` / ``Parameters:`` / ``Arguments:`` ... at ``text[i:]`` (after markdown and
    emoji, as ``_classify_line`` skips them: ``📥 Input:``), as an ``action_input`` marker; or one
    of other ``labels`` read only in one place (``❓ Question:``)."""
    limit = min(len(text), i + _PREFIX_MAX)
    j = LINE_PREFIX.match(text, i, limit).end()
    if j >= limit:
        return None if eof or j < len(text) else _NEED  # a line of them so far waits, as there
    return _match_label(text, j, eof, labels)


_INLINE_FINAL: Final = ("Final Answer:", "Final Answer：")
_BEFORE_INLINE_LABEL: Final = frozenset(" \t.。!！?？:：;；,，)）*")


def _inline_final_answer(text: str, i: int, eof: bool) -> int | _Need | None:
    """``Final Answer:`` inside a line (exact case, after a space or punctuation), as LangChain reads it."""
    seg = text[i : i + 16]
    for label in _INLINE_FINAL:
        if seg.startswith(label):
            end = _skip_chars(seg, len(label), "*")  # **Final Answer:**
            return _NEED if end == len(seg) < 16 and not eof else i + end
        if len(seg) < len(label) and label.startswith(seg) and not eof:
            return _NEED
    return None


def _fence_at(text: str, i: int, eof: bool, closer: str = "```") -> int | _Need | None:
    """End of a closing fence ``closer`` (````` or ``~~~``) at the line starting at ``text[i]``
    (after spaces)."""
    j = _skip_chars(text, i, " \t")
    tail = text[j : j + 3]
    if tail == closer:
        return j + 3
    if len(tail) < 3 and closer.startswith(tail) and not eof:
        return _NEED
    return None


_FENCE_LINE = re.compile(r"[ \t]*+(?:`{3,}|~{3,})[ \t]*+([\w+\-.]*+)[ \t]*+(?:\r?\n|\Z)")
_FENCE_LINE_PARTIAL = re.compile(r"[ \t]*+(?:`{1,2}|~{1,2}|(?:`{3,}|~{3,})[ \t]*+[\w+\-.]*+[ \t]*+\r?)?")


def _fence_line(text: str, i: int, eof: bool) -> tuple[int, str] | _Need | None:
    """A whole fence line at the line start ``text[i]``: (its end, after the newline; its language)."""
    match = _FENCE_LINE.match(text, i)
    if match and (eof or match.end() < len(text) or text.endswith("\n")):
        return match.end(), match.group(1).lower()
    if not eof and len(text) - i < _LABEL_MAX and _FENCE_LINE_PARTIAL.fullmatch(text, i):
        return _NEED
    return None


_TAGS: Final = (
    ("<tool_call>", "tool", "</tool_call>"),
    ("<tool_code>", "tool", "</tool_code>"),
    ("<action>", "tool", "</action>"),
    ("</tool_call>", "drop", ""),
    ("</tool_code>", "drop", ""),
    ("</action>", "drop", ""),
)
_TAG_MAX: Final = 48
_INPUT_TAG: Final = "<action_input>"
_INPUT_CLOSER: Final = "</action_input>"
# ``<|eot_id|>``, and DeepSeek's full-width ``<｜end▁of▁sentence｜>`` (DeepSeek-R1#557)
_SPECIAL_TOKEN = re.compile(r"<[|｜][\w.\-▁]{1,40}[|｜]>")
_SPECIAL_PARTIAL = re.compile(r"<(?:[|｜][\w.\-▁]{0,40}[|｜]?)?")
_EOS: Final = "</s>"  # Llama 2 / Mistral end of sequence, but also HTML: dropped only at the very end
_NO_RUN_ON: Final[tuple[str, ...]] = ()
"""The held run-on tail when there is none (one object: ``_answer_in_code`` knows it again)."""


def _last_chars(groups: tuple[Sequence[str], ...]) -> str:
    """The last ``QUOTE_LOOK_BACK`` characters of the text the pieces of ``groups`` join to, in
    order; only the last pieces are looked at (no copy of the lists)."""
    taken: list[str] = []
    size = 0
    for pieces in reversed(groups):
        for index in range(len(pieces) - 1, -1, -1):
            taken.append(pieces[index][-QUOTE_LOOK_BACK:])
            size += len(pieces[index])
            if size >= QUOTE_LOOK_BACK:
                return "".join(reversed(taken))[-QUOTE_LOOK_BACK:]
    return "".join(reversed(taken))


def _tail(pieces: list[str], unread: int) -> str:
    """The last ``QUOTE_LOOK_BACK`` characters of the text ``pieces`` join to, less its last
    ``unread`` characters; only those characters are copied (a tag met often in a long piece
    costs no copy of the piece)."""
    index = len(pieces) - 1
    while index >= 0 and unread >= len(pieces[index]):  # pieces wholly unread
        unread -= len(pieces[index])
        index -= 1
    if index < 0:
        return ""
    end = len(pieces[index]) - unread
    taken, size = [pieces[index][max(0, end - QUOTE_LOOK_BACK) : end]], end
    while index > 0 and size < QUOTE_LOOK_BACK:
        index -= 1
        taken.append(pieces[index][-QUOTE_LOOK_BACK:])
        size += len(pieces[index])
    return "".join(reversed(taken))[-QUOTE_LOOK_BACK:]


_QUOTED_LINE = re.compile(r" {0,3}>")
"""A blockquote line's start (CommonMark): a call tag on it is quoted output, not a call."""
_TEXT_TAGS: Final = frozenset({"tool", "drop", "special"})
_ANSWER_TAGS: Final = frozenset({"drop", "special"})
_TOOL_TAGS: Final = frozenset({"tool"})
_TAG_SECONDS: Final = frozenset({"", "t", "T", "a", "A", "/", "|", "｜"})
"""What may follow the ``<`` of a tag in ``_TAGS``, a special token or ``</s>`` (``""``: nothing yet).
No other character lowers to one of these."""
_LT_RUN = re.compile(r"<+(?=<)")
"""``<`` characters each followed by another: none opens a tag (``_TAG_SECONDS``)."""


def _classify_tag(text: str, i: int, eof: bool, kinds: frozenset[str]) -> _Tag | _Need | None:
    """A known tag of ``kinds`` at ``text[i] == "<"``; special tokens (``<|eot_id|>``) are "drop".

    ``</s>`` is a special token only when nothing but whitespace follows it to the end of the
    reply; before other text it is HTML (``<s>old</s> new``).
    """
    if text[i + 1 : i + 2] not in _TAG_SECONDS:  # "<" and a space, a letter, another "<": no tag
        return None
    seg = text[i : i + _TAG_MAX].lower()
    partial = False
    for tag, kind, closer in _TAGS:
        if kind not in kinds:
            continue
        if seg.startswith(tag):
            return _Tag(kind, len(tag), closer)
        partial = partial or (len(seg) < len(tag) and tag.startswith(seg))
    if "special" in kinds:
        special = _SPECIAL_TOKEN.match(seg)
        if special:
            return _Tag("drop", special.end())
        partial = partial or (len(seg) < _TAG_MAX and bool(_SPECIAL_PARTIAL.fullmatch(seg)))
        if seg.startswith(_EOS):
            end = _WHITESPACE.match(text, i + len(_EOS)).end()
            if end == len(text):  # nothing but whitespace after it, so far
                return _Tag("drop", end - i) if eof else _NEED
        partial = partial or (len(seg) < len(_EOS) and _EOS.startswith(seg))
    return _NEED if partial and not eof else None


_PROSE_AFTER = re.compile(r"[ \t]+\w")
_PROSE_AFTER_PARTIAL = re.compile(r"[ \t]*")


def _prose_goes_on(text: str, at: int, eof: bool) -> bool | _Need:
    """Whether a special token that follows a space in a line of prose is followed by more of it
    (spaces, then a word) from ``text[at]``: then the token is a word the answer writes (``Kimi
    ends a message with <|close|> and goes on``), kept as text. A token that ends the reply or
    its line, or is glued to what follows (``<|python_tag|>{...}``, ``<|im_start|>user``), is
    the server's, dropped as before. ``_NEED`` while only spaces follow so far."""
    if _PROSE_AFTER.match(text, at) is not None:
        return True
    return _NEED if not eof and _PROSE_AFTER_PARTIAL.fullmatch(text, at) is not None else False


_SPLIT_INPUT_LABEL = re.compile(r"action[ _\-]?inputs?[ \t*]*[:：]\**", re.I)
_INLINE_OBSERVATION = re.compile(r"(?<=[ \t])\**observations?(?:[ \t]*\d+)?[ \t*]*[:：]", re.I)
"""An observation label after the action on its line (``Search[x] Observation 2: ...``): what
follows is a result the model made up, not part of the action's name or input."""
_NAME_TRIM: Final = " \t\r\n`*\"'.,;:([{"  # around a tool name: markdown, quotes, punctuation


def _split_name_line(line: str) -> tuple[str, bool, str | None, bool]:
    """The text after ``Action:`` -> (name, has an inline input label, inline input, whether
    the name was written with markdown escapes).

    Handles ``search Action Input: {...}`` on one line and ``Search[query]`` / ``search(query)``;
    an observation label later on the line ends it.
    """
    line = without_trailing_tokens(line)
    observed = _INLINE_OBSERVATION.search(line)
    if observed:  # the model went on to write the tool's result on the action's line (dspy#535)
        line = line[: observed.start()]
    bracketed = _BRACKETED_NAME.fullmatch(line.strip())
    if bracketed:  # only reached for a node tool's name (``_bracketed_tool``)
        return bracketed.group(1).strip(), False, None, False
    label = _SPLIT_INPUT_LABEL.search(line)
    call = None if label else CALL_FORM.fullmatch(line.strip(" \t`*"))  # `search[query]` (hello-agents#127)
    if call:
        return call.group(1), False, call.group(2), False
    written = (line[: label.start()] if label else line).strip(_NAME_TRIM)
    name = _MD_ESCAPE.sub(r"\1", written)
    return name, label is not None, line[label.end() :].strip() if label else None, name != written


_BRACKETED_NAME = re.compile(r"\[([^\[\]\n{}\"'`]{1,80})\]")
_BRACKETED_PARTIAL = re.compile(r"\[[^\[\]\n{}\"'`]{0,80}\]?[ \t\r]*")


def _bracketed_tool(text: str, i: int, eof: bool, tools: Collection[str]) -> bool | _Need:
    """Whether the line at ``text[i] == "["`` after ``Action:`` is only a node tool's name in
    square brackets (``Action: [Search]``): LangChain's ReAct prompt says the action is "one of
    [{tool_names}]", and a model copies the brackets (langchain-ai/langchain#998). Anything else
    there (a JSON list of calls, ``[not_a_tool]``, ``[a, b]``) is read as before. ``_NEED`` while
    the line is still short enough to be such a name and has not ended."""
    end = text.find("\n", i)
    line = text[i:] if end < 0 else text[i:end]
    if end < 0 and not eof:
        return _NEED if _BRACKETED_PARTIAL.fullmatch(line) else False
    named = _BRACKETED_NAME.fullmatch(line.rstrip())
    return bool(named) and named.group(1).strip() in tools


_PLACEHOLDER = re.compile(r"\$[A-Za-z_]\w*")
"""A prompt's placeholder written where the tool's name goes (``Action: $JSON_BLOB`` above the
action JSON, langchain-ai/langchainjs#1399): no name; the JSON that follows names the tool."""

_MD_ESCAPE = re.compile(r"\\([_*`])")
_CONVERSATIONAL_STEP = re.compile(
    r"\s*+[#*_ \t]*+(?:thought[ \t*_]*+[:：][ \t\u00a0*_]*+)?do[ \t]+i[ \t]+need[ \t]+to[ \t]+use[ \t]+a[ \t]+tool\?[ \t*_]*+no"
    r"[ \t.*_]*+\r?\n[ \t#*_>]*+ai[ \t*_]*+[:：](?:\*\*|__)?[ \t\u00a0]*+",
    re.IGNORECASE,
)
"""LangChain's conversational agent's answer step: ``Thought: Do I need to use a tool? No`` and the
next line's ``AI:`` label, up to the answer's text (a no-break space after a colon is a space).
The ``Thought:`` label may be left out at the reply's start: the prompt ends with it, so a
completion writes on after it (gpt-4-0613 in langchaingo's recorded
``TestConversationalWithMemory``)."""
_STEP_LINE = re.compile(
    r"\n[ \t#*_>]*+(thought|action|observation|final[ \t_]*+answer|answer|question|ai|human)[ \t\d*_]*+[:：]",
    re.IGNORECASE,
)
"""A line opening with a ReAct or conversational label and its colon (group 1: the label)."""


_FINISH_WHOLE = re.compile(r"finish\[(.*)\]", re.IGNORECASE | re.DOTALL)
"""A reply that is only the ReAct paper's answer action, with no ``Action:`` label before it
(``Finish[answer]``: qwen3-30b-a3b-instruct-2507, datawhalechina/hello-agents#311)."""


def conversational_answer(text: str) -> str | None:
    """The answer of a reply written in LangChain's conversational format (``Thought: Do I need
    to use a tool? No``, its label may be left out at the start, then ``AI: <answer>``,
    langchain-ai/langchain#1477): the text after the ``AI:`` label, up to an invented ``Human:``
    turn (the model writing on as the user: that line and all after it are no answer, as an
    invented ``Observation:`` after a final answer is not); None for any other reply, for an
    empty answer, or when another labelled line follows it (a second step). ``AI:`` is an answer
    label only there: an ``AI:`` line elsewhere is text. Time linear in ``text``."""
    read = _conversational_step(text)
    return read[0] if read is not None else None


def _conversational_step(text: str) -> tuple[str, int] | None:
    """``conversational_answer``'s answer and where the invented ``Human:`` turn after it starts
    in ``text`` (``len(text)`` when none follows); None when it gives no answer."""
    step = _CONVERSATIONAL_STEP.match(text)
    if step is None:
        return None
    line = _STEP_LINE.search(text, step.end())
    if line is not None and line.group(1).lower() != "human":
        return None
    end = line.start() if line is not None else len(text)
    answer = text[step.end() : end].strip()
    return (answer, end) if answer else None
"""A markdown escape in a tool name (``mindsdb\\_sql``, MindsDB PR #9753): names hold no
backslashes, so the escape goes. A text input loses the same escapes only when its name had
one (the model wrote the whole action as markdown: ``AVG(sales\\_price)``); otherwise it keeps
its backslashes (SQL ``LIKE 'a\\_%'``, regular expressions)."""


# --------------------------------------------------------------------------------------------
# The state machine
# --------------------------------------------------------------------------------------------


class _S(Enum):
    """Parser states; each value names its handler ``_s_<value>``."""

    TEXT = "text"  # visible thought or prose
    HEAD = "head"  # the start of a reply that continues a cut answer: a label, or the answer's rest
    ACTION_HEAD = "action_head"  # after "Action:", before its name or blob
    ACTION_NAME = "action_name"  # reading the name line
    AFTER_NAME = "after_name"  # after the name line: an input label, JSON, or nothing
    INPUT_HEAD = "input_head"  # after "Action Input:"
    STRING_INPUT = "string_input"  # a text input, up to the next label or the end
    FENCE_OPEN = "fence_open"  # after a ```json line
    TAG_OPEN = "tag_open"  # after <tool_call> / <action>
    JSON = "json"  # inside a JSON value: brackets, strings, escapes tracked
    DELIMITED = "delimited"  # non-JSON block content up to a closing fence or tag
    CLOSER = "closer"  # after a blob: skip its closing fence or tag
    AFTER_CALL = "after_call"  # the rest of the line after an action's JSON: another call object?
    ANSWER = "answer"  # final answer text
    DONE = "done"  # everything else is ignored

    # Members are singletons compared by identity: hashing by identity too keeps the handler
    # lookup in ``_run`` (once per step) in C instead of ``Enum.__hash__``'s Python call.
    __hash__ = object.__hash__


_INPUT_TEXT: Final = frozenset({_S.JSON, _S.STRING_INPUT, _S.DELIMITED})
"""States inside an action's input: a ``</think>`` with no block open met there is the input's own
text (an argument's value), not the end of reasoning a template opened."""
_RESTING: Final = frozenset({_S.TEXT, _S.HEAD, _S.ANSWER, _S.DONE, _S.CLOSER, _S.AFTER_CALL})
_RESTART_KINDS: Final = frozenset({"thought", "action", "action_input", "final_answer", "answer", "special", "brace"})
"""Line markers that, opening a reply that continues a cut answer, make it a turn of the format
again (``_s_head``): a label, a special token announcing a call, a call object."""
_RESTART_IN_CODE: Final = frozenset({"thought", "final_answer"})
"""The markers that still restart the format at the head of a rest whose cut answer left a code
block open: in it an ``Action:`` line, a call object or a fence with an info string is the code's
text (a ReAct trace the answer shows, JSON), as CommonMark reads it (wave 39: ``Action Input:``
there ended the answer and its rest was lost)."""
_RESTART_FENCES: Final = _CANDIDATE_FENCES - {""}
"""Fences that, opening such a reply, may hold a call; a bare fence there closes the answer's code block."""
_CALL_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')
_CALL_NAME_WINDOW: Final = 400
"""Characters after call markup in a final answer read for the called tool's name."""
_TEXT_STOP = re.compile(r"[\n<]")
_THOUGHT_STOP = re.compile(r"[\n<F]")
_THOUGHT_RUN = re.compile(r"[^\n<F]+\n?")
"""Thought text up to a ``_THOUGHT_STOP`` character, and the line break when that is one: at a
line break, a step of ``_s_text`` (not at a line start, not at an ``F``) takes it alone."""
_NAME_STOP = re.compile(r"[\n{]")
_JSON_SPECIAL = re.compile(r"[{}\[\]\"'\n<]")
_STRING_SPECIAL: Final = {'"': re.compile(r'[\\"\n]'), "'": re.compile(r"[\\'\n]")}
_STRING_BODY = re.compile(r'[^"\\\n]*(?:\\[^\n][^"\\\n]*)*')
"""Text of a double-quoted JSON string up to its closing quote, a raw newline, or a backslash
followed by a newline or by nothing yet (an escape takes the character after it)."""
_JSON_RUN = re.compile(r'(?:[^{}\[\]"\'\n<]+|"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*")*')
"""JSON text outside strings up to a character ``_JSON_SPECIAL`` stops at, taking each whole
double-quoted string (its ``_STRING_BODY`` and closing quote) on the way."""
_SINGLE_QUOTE_CLOSERS: Final = ",:}] \t\r\n"
_WHITESPACE = re.compile(r"\s*")
_CALL_JOINT = re.compile(r"[ \t]*(?:[,;][ \t]*)?")
"""What may join a call object to the next one on its line: spaces, then at most one ``,`` or ``;``."""
_UNDECODED: Final = object()
_CANDIDATE_SECOND: Final = {"[": ("{",), "{": ('"', "}")}
"""What an unlabelled candidate's opening bracket must be followed by (after whitespace) for it to
decode as strict JSON that may be a call: an object, or a list of them."""
_CLOSING_BRACKET: Final = {"{": "}", "[": "]"}
"""The bracket a JSON object or array ends with: a buffer without it after the opener holds no
whole value (``_whole_json_end``)."""
_CLOSER_LOOK: Final = 4096
"""Characters after an opener ``_whole_json_end`` looks through for its closing bracket before
decoding (a longer rest is decoded as before: the look stays linear in a long reply)."""


class ReactStreamParser:
    """Incremental ReAct parser: one method per state, each consuming from the buffer front.

    A state handler returns False when it cannot decide without more text; everything it
    consumes goes through ``_take``, which also records the current action's raw text.
    Linear in the input: held-back text is at most a line prefix or a tag.
    """

    # A parser is made for every model turn and sets some 85 attributes: in slots, not an instance
    # dict grown past the shared-keys size, making one cost about half as much.
    __slots__ = ("_acc", "_action_fence", "_actions", "_after_actions", "_after_answer", "_after_closer", "_alone",
        "_answer", "_answer_closed", "_answer_code", "_answer_fed", "_answer_fence_open", "_answer_lines",
        "_answer_quote", "_answer_ws", "_answering", "_block_end_at", "_buf", "_call_fence", "_call_held", "_call_input",
        "_calls_after_answer", "_candidate_marked", "_closer", "_depth", "_element", "_ended_inside", "_fence_chars",
        "_fence_held", "_fence_offset", "_fence_quote", "_fence_read", "_finished", "_glued", "_group", "_group_cls", "_held_answer", "_hint",
        "_in_thought", "_inner_fence", "_input_fence", "_joint", "_label_unfenced", "_labels_before_tag",
        "_labels_seen", "_last", "_line_start", "_marked", "_markup", "_multi", "_name", "_name_escaped",
        "_name_kind", "_none_action", "_out", "_plain_from", "_pos", "_probe", "_purpose", "_quote", "_raw",
        "_reasoning", "_recover", "_recovered", "_revised", "_run_on", "_run_on_action", "_run_on_question",
        "_run_on_quote", "_shown_closer", "_single_line", "_span", "_state", "_stray_at", "_streamed_before_stray",
        "_tag_opened_line", "_tagged", "_text_fence", "_think", "_thought", "_tool_names", "_turn", "_turn_invented",
        "_unlabelled", "_value_open", "_visible", "_visible_chars", "_wrapped", "held_fence")

    def __init__(
        self,
        *,
        allow_multiple_actions: bool = False,
        reasoning_opened: bool = False,
        tool_names: Collection[str] | Mapping[str, Any] | None = None,
        recipient_in_prompt: bool = False,
        continues_answer: bool = False,
        answer_code: Opening | None = None,
    ) -> None:
        self._multi = allow_multiple_actions
        # call markup inside a final answer is a call only to one of these, and a line opening an
        # element named after one is a call (``_open_element``), its values typed by the tool's
        # declaration when ``tool_names`` maps each name to it
        self._tool_names = tool_names
        self._recover = True
        self._buf = ""
        self._pos = 0
        self._line_start = True
        self._last = "\n"  # the last character consumed
        self._state = _S.HEAD if continues_answer else _S.TEXT  # see _s_head
        self._markup = CallMarkup(  # a family's own call markup, as <tool_call> blocks
            recipient_in_prompt=recipient_in_prompt, python_tag_lines=True, names=tool_names
        )
        self._plain_from: tuple[int, str] | None = None  # where plain text began after a stray </think>
        self._input_fence: Opening | None = None  # the code block open inside a text Action Input
        self._answer_lines: list[tuple[int, int]] = []  # "Answer:" lines in plain text: (thought index, label length)
        self._think = ThinkSplitter(opened=reasoning_opened, thoughts=True)
        self._visible: list[str] = []  # the visible text read so far, a line break where a block ended
        self._visible_chars = 0
        self._fence_quote = CodeQuote()  # the visible text read by _text_quote so far
        self._fence_read = 0  # ... its pieces (of _visible)
        self._fence_offset = 0  # ... and characters of the next piece
        self._fence_chars = 0  # ... and characters
        self._stray_at: int | None = None  # visible characters before a bare </think> met after labels
        self._held_answer: list[str] | None = None  # answer text after that </think>, not streamed yet
        self._fence_held = ""  # the answer holds a code block that may be a call: "call", or its python language
        self.held_fence: str | None = None
        """After ``finish(cut=True)``: the answer text held from a fence line whose block never
        closed (``_answer_fence_line``: ``"\\n```tool_code\\nlookup(q='a"``), not streamed; None
        when none was held. The caller shows it, or reads it as a cut call and shows none of it.
        An attribute, not a property: read once a turn, it costs no call."""
        self._revised = False
        self._streamed_before_stray = False  # answer text had streamed when a bare </think> came
        self._raw: list[str] = []
        self._out: list[ReactEvent] = []
        self._group: list[str] = []
        self._group_cls: type | None = None
        self._thought: list[str] = []
        self._reasoning: list[str] = []
        self._tagged: list[str] = []  # the reasoning written in <thought> blocks (_thought_tagged)
        self._recovered = False  # the turn was taken from inside the reasoning (_recover_from_reasoning)
        self._answer: list[str] = []
        self._answer_ws = ""  # answer text held back until more comes: whitespace, an opening fence
        self._answer_quote = CodeQuote()  # the answer pieces read by _answer_in_code so far
        self._answer_fed = 0  # ... how many
        # ... and the held run-on tail: (its list, the whitespace before it, its tracker, pieces read)
        self._run_on_quote: tuple[Sequence[str], str, CodeQuote, int] | None = None
        self._answer_fence_open = False
        self._run_on: list[str] | None = None  # answer text from a "Question:" or "Action:" line on, held (_s_answer)
        self._run_on_action = False  # the held text starts with an "Action:" line
        self._run_on_question: int | None = None  # where a "Question:" line starts in the held text
        # the code block open in the answer (fences.after_line); a continuation starts in the one
        # the cut answer left open (``answer_code``), where a label is the code's text
        self._answer_code: Opening | None = answer_code if continues_answer else None
        self._shown_closer = ""  # the closing tag of a call tag written in a code span (text, as it is)
        self._wrapped = False  # a fence line opened in the visible text and not closed yet
        self._text_fence: Opening | None = None  # while _wrapped: the block its fence line opened
        self._action_fence: Opening | None = None  # the thought's code block the Action: label stands in
        self._label_unfenced = False  # a label was read outside a code block of the thought
        self._answering = False
        self._answer_closed = False  # the answer ended before the reply did (ReactTurn.answer_ended)
        self._after_answer: list[str] | None = None  # the text after it, not read (ReactTurn.after_answer)
        self._after_actions: list[str] | None = None  # after an invented Observation (ReactTurn.after_actions)
        self._turn_invented = False  # a conversational answer ended at an invented Human: turn
        self._after_closer = ""  # what closes the block a JSON answer stood in, before that text
        self._calls_after_answer: tuple[str, ...] = ()  # a JSON list's calls after its answer object
        self._actions: list[ActionFound] = []
        # calls read from bare JSON, and the thought text after them, held (see _deliver)
        self._unlabelled: list[tuple[list[Call], str] | str] = []
        self._alone: list[Call] = []  # {"name": X} calls read once a call object comes (_beside)
        self._marked = False  # a special token just announced a call
        self._candidate_marked = False  # the bare JSON being read follows such a token
        self._call_fence = False  # the candidate is a ```tool_code / ```tool_call block
        self._element = ""  # the tool whose element (<read_file>...) is being read
        self._tag_opened_line = False  # the <action> tag being read opened a line outside a fence
        self._labels_before_tag = False  # _labels_seen before that tag
        self._in_thought = False  # the last label was "Thought:"
        self._span: list[str] | None = None  # raw text of the construct being read
        self._joint = ""  # what joined a call object to the one before it on its line (_s_after_call)
        self._glued = False  # the JSON read now stands on the line of an action's JSON, after it (_s_after_call)
        self._acc: list[str] = []  # its content: name line, input, JSON or block text
        self._name = ""
        self._name_escaped = False  # the name was written with markdown escapes (_MD_ESCAPE)
        self._call_input: Any = None  # from "Action: search[query]"
        self._name_kind = "tool"  # tool | none | orphan | noname
        self._purpose = "blob"  # blob | candidate | input
        self._closer = ""  # what follows the construct: "```", "</tool_call>" ...
        self._value_open = 0  # 1 + the _acc pieces read for an open <arg_value>/<parameter=; 0: none known
        self._depth = 0
        self._quote = ""
        self._inner_fence = False  # a code block open inside a JSON string
        self._probe = ""
        self._single_line = False
        self._labels_seen = False
        self._block_end_at = -1  # _visible_chars when a reasoning block of the reply last closed; -1: none
        self._none_action = False
        self._hint: str | None = None
        self._finished = False
        self._call_held = False  # finish(stopped=True): call markup was held open
        self._ended_inside = False
        self._turn: ReactTurn | None = None

    # ---- public API ------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[ReactEvent]:
        """Consume one chunk; return the events it made certain."""
        if self._finished or not chunk:
            return []
        self._raw.append(chunk)
        self._read_pieces(self._think.pieces(self._markup.feed(chunk)))  # _split
        if self._group and self._group_cls is not None:  # _drain, inline: once per chunk
            self._out.append(self._group_cls("".join(self._group)))
        self._group, self._group_cls = [], None
        out, self._out = self._out, []
        return out

    def note_reasoning_apart(self) -> None:
        """Reasoning came apart from the content (``reasoning_content``): content still to come
        starts after that reasoning, and a reply held for a reasoning block opened in the prompt
        is held for its first characters only (``ThinkSplitter.note_reasoning_apart``: the rest
        of the reasoning may still come in the content up to a bare ``</think>``)."""
        self._think.note_reasoning_apart()

    def finish(self, *, cut: bool = False, stopped: bool = False) -> list[ReactEvent]:
        """Flush: decide what was held back, close any open construct, settle the turn.
        ``cut``: the reply stopped at the output limit: one held for a reasoning block opened
        in the prompt (``reasoning_opened``) stopped inside that block, and no turn is taken
        from the reasoning of a reply that showed nothing. ``stopped`` (with ``cut``): the reply's
        stream failed or the run's deadline came: of what the call markup reader held only the
        reply's start that is text is read (``CallMarkup.stopped``: no call markup, no reasoning),
        and ``call_held`` tells whether it held call markup; it does too for a reply ``cut`` alone."""
        if self._finished:
            return []
        self._finished = True
        if stopped:
            self._call_held = self._markup.holds_block
            self._split(self._markup.stopped())
        else:  # cut inside a call's markup (a later call of the block never closed): told the caller
            self._call_held = cut and self._markup.holds_block
            self._split(self._markup.finish())
        if cut:  # nothing in the reasoning is taken as the turn (_recover_from_reasoning): it was cut
            self._recover = False
            if self._think.holding:
                self._emit_reasoning(self._think.release(as_reasoning=True).reasoning)
        self._read_pieces(self._think.release_pieces(ended=True))
        tail = self._think.finish()
        self._emit_reasoning(tail.reasoning)
        self._note_visible(tail.visible)
        self._consume(tail.visible, eof=True)
        self._pos = len(self._buf)
        self._ended_inside = self._state not in _RESTING
        for _ in range(4):
            if self._state in _RESTING:
                break
            self._close_construct()
        self._commit_unlabelled()
        if self._run_on is not None:  # no format followed the "Question:" or "Action:": the answer's own text
            held, self._run_on = "".join(self._run_on), None
            self._emit_answer(held)
        if self._fence_held and not cut:  # a code-call block that ended the reply unclosed: shown as it was
            self._release_fence()
        elif self._fence_held:  # cut inside it: the caller decides (held_fence)
            self.held_fence = "".join(self._held_answer or ())
        self._turn = self._settle()
        if self._stray_at is not None:
            self._turn = self._reread_after_stray(self._turn)
        return self._drain()

    @property
    def call_held(self) -> bool:
        """Whether the reply, finished as ``stopped`` or ``cut``, was writing call markup when it
        stopped (``CallMarkup.holds_block``): its step was a call, not an answer; a call it read
        before in the same block may lack the calls the model meant with it."""
        return self._call_held

    @property
    def revised(self) -> bool:
        """Whether answer text already emitted turned out to be a draft: call markup came in the
        final answer (``_call_after_answer``), or the turn was read again after a bare
        ``</think>`` that followed labels (``_reread_after_stray``). The events then tell the
        draft before the turn (what a consumer streamed cannot be taken back)."""
        return self._revised

    @property
    def open_reasoning(self) -> str:
        """The reasoning of the block the reply ended inside (``""`` if it ended outside one)."""
        return self._think.open_block

    @property
    def ended_in_reasoning(self) -> bool:
        """Whether a turn-end token came while a reasoning block was open: the model never left
        its reasoning (``call_markup.ends_turn``)."""
        return self._markup.ended and self._think.inside

    def result(self) -> ReactTurn:
        """The turn; valid after ``finish()``."""
        if self._turn is None:
            raise RuntimeError("ReactStreamParser.result() called before finish()")
        return self._turn

    # ---- plumbing --------------------------------------------------------------------------

    def _split(self, text: str) -> None:
        """Send reasoning blocks to the log and the rest through the state machine."""
        self._read_pieces(self._think.pieces(text))

    def _read_pieces(self, pieces: list[tuple[str, str]]) -> None:
        for kind, piece in pieces:
            if kind == VISIBLE:  # the usual piece: first
                self._visible.append(piece)  # _note_visible, inline: once per chunk
                self._visible_chars += len(piece)
                self._buf = self._buf[self._pos :] + piece  # _consume and _run, inline: once per chunk
                self._pos = 0
                handlers = _STATE_HANDLERS
                while self._pos < len(self._buf):
                    if not handlers[self._state](self, False):
                        break
            elif kind == REASONING:
                self._emit_reasoning(piece)
            elif kind == THOUGHT:  # the XML-tagged step's <thought>: read as reasoning, shown as the thought
                self._tagged.append(piece)
                self._emit_reasoning(piece)
            elif kind == BLOCK_END:
                self._after_block()
                self._note_visible("\n")
                self._block_end_at = self._visible_chars
            elif kind == STRAY_END:
                if self._state in _INPUT_TEXT:  # the tag is the action input's own text
                    self._read_pieces([(VISIBLE, self._think.stray_written)])
                elif not self._text_after_block():
                    self._reasoning_before()

    def _text_after_block(self) -> bool:
        """Whether the reply closed a reasoning block of its own and wrote text after it (only
        on a stray closing tag, so rare): then no template opened a block in the prompt, and the
        text before the stray tag is the answer's, not reasoning. The tag is dropped, as Function
        Calling drops it (nanobrowser/nanobrowser PR #333: ``<think>reason</think>Here is
        answer</think>done`` lost ``Here is answer``)."""
        if self._block_end_at < 0:
            return False
        return bool("".join(self._visible)[self._block_end_at :].strip())

    def _note_visible(self, text: str) -> None:
        if text:
            self._visible.append(text)
            self._visible_chars += len(text)

    def _consume(self, text: str, eof: bool) -> None:
        """Run the state machine over visible text (reasoning blocks already taken out)."""
        self._buf = self._buf[self._pos :] + text
        self._pos = 0
        self._run(eof=eof)

    def _reasoning_before(self) -> None:
        """A ``</think>`` with no ``<think>`` (the model's template opened the block in the
        prompt: DeepSeek-R1 distills, QwQ, dify#17660): plain text before it was reasoning, so a
        reply with no label answers with the text after it only (``_fallback``). The text before
        stays in the thought, as it was streamed to the log."""
        if self._labels_seen or self._actions or self._answering:
            # labels came before it: they were part of the reasoning (a draft "Final Answer:"),
            # and the reply proper follows; it is read again at the end (_reread_after_stray).
            # Not inside an action's input: there the tag is the input's own text.
            if self._state not in _RESTING:
                return
            self._stray_at = self._visible_chars
            self._streamed_before_stray = self._streamed_before_stray or bool(self._answer)
            if self._held_answer is None:
                self._held_answer = []
            return
        self._plain_from = (len(self._thought), self._buf[self._pos :])

    def _after_block(self) -> None:
        """A reasoning block just closed: what follows starts a line (``</think>Action: ...``)."""
        if self._pos >= len(self._buf):
            self._line_start = True

    def _run(self, eof: bool) -> None:
        handlers = _STATE_HANDLERS
        while self._pos < len(self._buf):
            if not handlers[self._state](self, eof):
                break

    def _take(self, end: int, record: bool = True) -> str:
        """Consume up to ``end``; recorded into the current span (the action's raw text)."""
        text = self._buf[self._pos : end]
        self._pos = end
        if text:
            if record and self._span is not None:
                self._span.append(text)
            self._last = text[-1]
            self._line_start = self._last == "\n"
        return text

    def _skip_ws(self, into: list[str] | None = None) -> bool:
        """Consume whitespace; True when a non-space character is next."""
        end = _WHITESPACE.match(self._buf, self._pos).end()
        if end > self._pos:
            at_line_start = self._line_start
            taken = self._take(end)
            self._line_start = at_line_start or "\n" in taken  # labels may follow indentation
            if into is not None:
                into.append(taken)
        return self._pos < len(self._buf)

    def _delta(self, cls: type, text: str) -> None:
        if self._group_cls is not cls:
            self._flush_group()
            self._group_cls = cls
        self._group.append(text)

    def _flush_group(self) -> None:
        if self._group and self._group_cls is not None:
            self._out.append(self._group_cls("".join(self._group)))
        self._group, self._group_cls = [], None

    def _emit(self, event: ReactEvent) -> None:
        self._flush_group()
        self._out.append(event)

    def _drain(self) -> list[ReactEvent]:
        if self._group and self._group_cls is not None:  # _flush_group, inline: once per chunk
            self._out.append(self._group_cls("".join(self._group)))
        self._group, self._group_cls = [], None
        out, self._out = self._out, []
        return out

    def _emit_thought(self, text: str) -> None:
        if text:
            self._marked = self._marked and not text.strip()  # a call token counts for what follows it
            if self._unlabelled:  # kept in order behind a held call (see _deliver)
                self._unlabelled.append(text)
                return
            self._thought.append(text)
            self._delta(ThoughtDelta, text)

    def _emit_reasoning(self, text: str) -> None:
        if text:
            self._reasoning.append(text)
            self._delta(ReasoningDelta, text)

    def _emit_answer(self, text: str) -> None:
        """Stream answer text: leading whitespace dropped, trailing whitespace kept until more comes."""
        if not self._answer and not self._answer_ws:
            text = text.lstrip()
        body = text.rstrip()
        if not body:
            self._answer_ws += text
            return
        piece = self._answer_ws + body
        self._answer_ws = text[len(body) :]
        self._answer.append(piece)
        if self._held_answer is not None:  # after a bare </think>, or a code-call block: held
            self._held_answer.append(piece)
            if self._fence_held in PYTHON_FENCES:  # a python block, not told yet whether it is a call
                self._held_python()
            return
        self._delta(AnswerDelta, piece)

    def _answer_whole(self, text: str) -> None:
        self._answering = True
        self._emit_answer(text.strip())

    def _start_span(self) -> None:
        self._span, self._acc, self._closer, self._single_line, self._joint = [], [], "", False, ""
        self._glued = False

    def _end_span(self) -> str:
        raw = "".join(self._span or ()).strip()
        self._span = None
        return raw

    def _note(self, problem: str | None) -> None:
        """Remember what went wrong; the first problem is the one reported."""
        self._hint = self._hint or problem

    def _resume(self) -> None:
        """After a construct that was not delivered: back to text, past its closer."""
        self._span = None
        self._state = _S.CLOSER if self._closer else _S.TEXT

    # ---- states: visible text, reasoning, answer -----------------------------------------

    def _s_head(self, eof: bool) -> bool:
        """The start of a reply that continues an answer the output limit cut
        (``continues_answer``), after any leading whitespace and reasoning block. A label there
        (``Thought:``, ``Final Answer:``, ``Action:``), a special token or a call object (a fence
        of JSON) means the model wrote a turn of the format again: it is read as any reply (a
        ``Final Answer:`` label opens the answer, not shown); inside a code block the cut answer
        left open (``answer_code``) only ``Thought:`` and ``Final Answer:`` do (``_RESTART_IN_CODE``). Anything else is the answer's rest,
        read in the final-answer state, where the answer's rules hold: an ``Action:`` /
        ``Action Input:`` step written after it ends it, unrun and unshown."""
        if not self._skip_ws():
            return False
        marker = _classify_line(self._buf, self._pos, eof, False, _HEADED_FIRST)
        if marker is _NEED:
            return False
        kind = marker.kind if isinstance(marker, _Marker) else ""
        restart = kind in _RESTART_KINDS or (kind == "fence" and marker.info in _RESTART_FENCES)
        if restart and self._answer_code is not None:  # in the code block the cut answer left open
            restart = kind in _RESTART_IN_CODE
        if restart:
            self._state = _S.TEXT
        else:
            self._answering, self._state = True, _S.ANSWER
        return True

    def _s_text(self, eof: bool) -> bool:
        if self._line_start:
            headed = _HEADED_ALL if self._labels_seen else _HEADED_FIRST
            marker = _classify_line(self._buf, self._pos, eof, self._labels_seen, headed)
            if marker is _NEED:
                return False
            if isinstance(marker, _Marker) and self._on_line_marker(marker):
                return True
        elif self._buf[self._pos] == "F" and self._last in _BEFORE_INLINE_LABEL:
            end = _inline_final_answer(self._buf, self._pos, eof)
            if end is _NEED:
                return False
            if isinstance(end, int):
                self._labels_seen = True
                self._on_label("final_answer", end)
                return True
        run = _THOUGHT_RUN.match(self._buf, self._pos)
        if run is not None:  # what _scan passes on, with the line break after it (its own step there)
            self._emit_thought(self._take(run.end()))
            return True
        return self._scan(eof, self._emit_thought, _TEXT_TAGS, _THOUGHT_STOP)

    def _scan(
        self, eof: bool, sink: Callable[[str], None], kinds: frozenset[str], stops: re.Pattern[str] = _TEXT_STOP
    ) -> bool:
        """Pass text to ``sink`` up to the next stop character; handle a tag there."""
        stop = stops.search(self._buf, self._pos)
        end = stop.start() if stop else len(self._buf)
        if end > self._pos:
            sink(self._take(end))
            return True
        if self._buf[self._pos] != "<":
            sink(self._take(self._pos + 1))
            return True
        tag = _classify_tag(self._buf, self._pos, eof, kinds)
        if tag is _NEED:
            return False
        if tag is None:
            if self._line_start and kinds is _TEXT_TAGS and self._tool_names and not self._wrapped:  # a rare "<"
                opened = self._open_element(eof, "candidate")
                if opened is not None:
                    return opened
            run = _LT_RUN.match(self._buf, self._pos + 1)  # "<<<<": one step, not one a character
            sink(self._take(self._pos + 1 if run is None else run.end()))
            return True
        if kinds is _ANSWER_TAGS and self._answer_in_code():  # a token the answer shows as code
            sink(self._take(self._pos + tag.length))
            return True
        if kinds is _TEXT_TAGS and self._shown_in_text(tag):  # a token or call tag the text shows as code
            sink(self._take(self._pos + tag.length))
            return True
        if (prose := self._token_in_prose(tag, eof)) is not False:  # "ends with <|close|> and goes on"
            if prose is True:
                sink(self._take(self._pos + tag.length))
            return prose is True
        if (
            self._last == "`"
            or (self._last == '"' and tag.closer == "</tool_call>")  # a string's text (text_calls.in_a_string)
            or (tag.kind == "drop" and self._shown_closer and self._shown_closer == self._buf[self._pos : self._pos + tag.length].lower())
        ):
            # `<tool_call>` in a code span (or right after a quote) is a tag named, as is its closing tag after it
            self._shown_closer = tag.closer if tag.kind == "tool" else ""
            sink(self._take(self._pos + tag.length))
            return True
        self._on_tag(tag)
        return True

    def _token_in_prose(self, tag: _Tag, eof: bool) -> bool | _Need:
        """Whether ``tag`` at the read position is a special token written as a word of a
        sentence that goes on (after a space inside a line, then spaces and a word:
        ``_prose_goes_on``): the answer's text, not a token to drop. ``_NEED`` while that cannot be
        told yet."""
        if tag.kind != "drop" or self._line_start or self._last not in " \t":
            return False
        if self._buf[self._pos + 1 : self._pos + 2] not in ("|", "｜"):
            return False
        return _prose_goes_on(self._buf, self._pos + tag.length, eof)

    def _open_element(self, eof: bool, purpose: str) -> bool | None:
        """``<`` where an action may stand (a line start in text, or after ``Action:``): a call
        written as an element named after one of the node's tools (``<read_file>``, Cline's and
        Roo-Code's format: ``text_calls.element_arguments``) opens a block read to its closing tag
        (``_block_done``). False while the tag may still become one; None when it is none."""
        name = element_opening(self._buf, self._pos, self._tool_names or ())
        if name == "":
            return None if eof else False
        if name is None:
            return None
        if purpose == "candidate":
            self._candidate_marked, self._marked, self._call_fence = self._marked, False, False
            self._start_span()
        self._take(self._pos + len(name) + 2)
        self._purpose, self._element = purpose, name
        self._closer, self._acc, self._state = f"</{name}>".lower(), [], _S.DELIMITED  # compared lowered
        return True

    def _answer_in_code(self) -> bool:
        """Whether the final answer so far leaves a code span or block open (``CodeQuote``): a
        special token or a stray closing tag there is text it shows (a chat template), not one
        to drop. Each piece of the answer (and of a held run-on tail) is read once, however many
        such tags come; the held whitespace between them is read again at each (it is short)."""
        quote, answer = self._answer_quote, self._answer
        while self._answer_fed < len(answer):
            quote.feed(answer[self._answer_fed])
            self._answer_fed += 1
        run_on = self._run_on if self._run_on is not None else _NO_RUN_ON
        if self._run_on_quote is None or self._run_on_quote[0] is not run_on or self._run_on_quote[1] != self._answer_ws:
            held = quote.copy()  # a new held tail, or the text before it changed: read it from its start
            held.feed(self._answer_ws)
            self._run_on_quote = (run_on, self._answer_ws, held, 0)
        _, ws, held, fed = self._run_on_quote
        for piece in run_on[fed:]:
            held.feed(piece)
        self._run_on_quote = (run_on, ws, held, len(run_on))
        if held.open:
            return True
        return in_quoted_line(_last_chars((answer, (self._answer_ws,), run_on)))

    def _shown_in_text(self, tag: _Tag) -> bool:
        """Whether ``tag``, met in text (not in an answer), is text the reply shows: a special
        token or a stray closing tag in a code span, a fenced block, a blockquote or an indented
        code block, or a call tag in a code span (`` `<tool_calls><tool_call>{...}` ``: quoted
        text) or a blockquote line (quoted output). A call tag in a fence or an indented block
        stays a call: a genuine step is often written so, unless MiniMax-M3's token stands right
        before it (``text_calls.after_m3_token``: the token is kept only in code)."""
        quote = self._text_quote()
        if quote.in_span or (tag.kind == "drop" and quote.in_fence):
            return True
        text = _tail(self._visible, len(self._buf) - self._pos)  # the visible text before the tag, its end
        if tag.kind == "drop":
            return in_quoted_line(text)
        if quote.in_fence and after_m3_token(text, len(text)):  # MiniMax-M3's markup shown in a code block
            return True
        return _QUOTED_LINE.match(text, text.rfind("\n") + 1) is not None

    def _text_quote(self) -> CodeQuote:
        """The code the visible text before the buffer's read position leaves open (``CodeQuote``:
        a code span or a fenced block): a special token or a call tag there is text the reply
        shows (a family's call tokens in a tutorial), not one to drop or run. Asked only at such a
        tag (rare); each character of the visible text is read once, as far as it has been
        consumed."""
        upto = self._visible_chars - (len(self._buf) - self._pos)
        pieces, quote = self._visible, self._fence_quote
        while self._fence_chars < upto and self._fence_read < len(pieces):
            piece = pieces[self._fence_read]
            end = min(len(piece), self._fence_offset + upto - self._fence_chars)
            quote.feed(piece[self._fence_offset : end] if self._fence_offset or end < len(piece) else piece)
            self._fence_chars += end - self._fence_offset
            self._fence_read, self._fence_offset = (self._fence_read + 1, 0) if end == len(piece) else (self._fence_read, end)
        return quote

    def _on_tag(self, tag: _Tag) -> None:
        if tag.kind == "tool":
            if self._answering:  # "Final Answer: Let me look it up. <tool_call>...": a call, not the answer
                self._call_after_answer()
            self._tag_opened_line = self._line_start and not self._wrapped
            self._labels_before_tag = self._labels_seen
            self._labels_seen = True
            self._start_span()
            self._take(self._pos + tag.length)
            self._purpose, self._closer, self._state = "blob", tag.closer, _S.TAG_OPEN
        else:  # a stray closing tag or a special token: dropped, leaving the line start as it was
            at_line_start = self._line_start
            token = self._take(self._pos + tag.length, record=False).lower()
            self._line_start = at_line_start  # <|python_tag|>{"name": ...} still opens a line
            self._marked = "python" in token or "tool" in token  # a token announcing a call

    def _call_after_answer(self) -> None:
        """A call's markup came inside the final answer: the model was announcing the call, so
        the turn is the call; the answer text (already streamed: ``revised``) joins the thought."""
        self._answering, self._revised, self._run_on = False, True, None
        self._thought.append("".join(self._answer))
        self._answer, self._answer_ws = [], ""
        self._answer_quote, self._answer_fed = CodeQuote(), 0

    def _on_line_marker(self, marker: _Marker) -> bool:
        """Act on a marker at a line start in text; False when the line is plain text after all."""
        kind = marker.kind
        if kind == "stop_partial":
            self._take(marker.end, record=False)
        elif kind == "special":  # dropped; what follows still starts the line
            self._take(marker.end, record=False)
            self._line_start = True
            self._marked = True  # <|python_tag|>, [TOOL_CALLS]: what follows is meant as a call
        elif kind in ("brace", "fence"):
            self._wrapped = self._wrapped != (kind == "fence")
            if kind == "fence":  # the block a later Action: label stands in (_action_fence)
                self._text_fence = after_line(None, self._buf[self._pos : marker.end]) if self._wrapped else None
            return self._start_candidate(marker)
        elif kind == "answer" and not self._labels_seen and "".join(self._thought).strip():
            # "Answer:" after plain text: the answer if it is the reply's only one (llama_index
            # #22563), text if there are several (a quiz, an FAQ); read as text until the end
            self._answer_lines.append((len(self._thought), marker.end - self._pos))
            return False
        else:
            self._labels_seen = True
            self._on_label("final_answer" if kind == "answer" else kind, marker.end)
        return True

    def _on_label(self, kind: str, end: int) -> None:
        self._label_unfenced = self._label_unfenced or not self._wrapped
        if kind in ("action", "action_input"):
            self._drop_unlabelled()
        elif kind != "thought":
            self._commit_unlabelled()
        self._in_thought = kind == "thought"
        if kind == "thought":
            self._take(end)
        elif kind == "observation":
            if not self._actions:
                self._note(PROBLEM_INVENTED_OBSERVATION)
            elif self._after_actions is None:  # made up after the actions: kept to be named, not read
                self._after_actions = []
            self._state = _S.DONE
        elif kind == "final_answer":
            self._take(end)
            self._answering = not self._actions
            self._state = _S.ANSWER if self._answering else _S.DONE
            if self._actions and self._after_actions is None:  # an answer before the results: kept to be named
                self._after_actions = []
        else:
            self._start_span()
            self._take(end)
            self._name, self._name_kind = "", "orphan"
            self._state = _S.ACTION_HEAD if kind == "action" else _S.INPUT_HEAD
            if kind == "action":
                self._action_fence = self._text_fence if self._wrapped else None

    def _start_candidate(self, marker: _Marker) -> bool:
        """A bare ``{`` or a ```json fence at a line start: may be an action, verified when closed."""
        if marker.kind == "fence" and marker.info not in _CANDIDATE_FENCES:
            return False
        self._start_span()
        self._take(marker.end)
        self._purpose = "candidate"
        self._candidate_marked, self._marked = self._marked, False
        self._call_fence = marker.kind == "fence" and marker.info in _CALL_FENCES
        if marker.kind == "fence":
            self._closer, self._state = marker.fence, _S.FENCE_OPEN
        else:
            self._begin_json()
        return True

    def _abort_candidate(self) -> None:
        """Not an action after all: its text, held back so far, is thought text."""
        self._element = ""
        self._emit_thought(self._joint + "".join(self._span or ()))
        self._span, self._closer, self._state = None, "", _S.TEXT

    def _s_answer(self, eof: bool) -> bool:
        if self._wrapped and (self._line_start or not (self._answer or self._answer_ws)):
            fence = _fence_line(self._buf, self._pos, eof)
            if fence is _NEED:
                return False
            if isinstance(fence, tuple):
                self._answer_fence(self._take(fence[0]))
                return True
        if self._line_start:
            marker = _classify_line(self._buf, self._pos, eof)
            if marker is _NEED:
                return False
            if isinstance(marker, _Marker) and marker.kind == "stop_partial":
                self._take(marker.end, record=False)
                return True
            if isinstance(marker, _Marker) and marker.kind == "fence":
                # labels in a code block are its text; a ```json line in it is too (CommonMark)
                self._answer_fence_line(marker)
            elif not self._answer_code:
                ended = self._answer_line(marker, eof)
                if ended is not None:
                    return ended
        if self._buf.startswith("<", self._pos) and self._may_announce_call():
            announced = self._call_in_answer(eof)
            if announced is not None:
                return announced
        return self._scan(eof, self._emit_answer if self._run_on is None else self._run_on.append, _ANSWER_TAGS)

    def _answer_fence_line(self, marker: _Marker) -> None:
        """A fence line at a line start in the answer (``marker``): it opens a code block, closes
        the one open, or is that block's text (CommonMark). A block announcing a call
        (``_CALL_FENCES``: Gemini's ```tool_code) is held back from its fence line to its closing
        one; a ``PYTHON_FENCES`` block of a node that has tools, until its code shows it is no
        call of one (``_held_python``). A block the output limit cut while held is a cut call or
        not (``held_fence``), the caller decides. Held in ``_held_answer``, which
        ``_emit_answer`` checks already: ordinary text pays nothing, only a fence line comes
        here. Not while that list holds an answer after a bare ``</think>`` for its own reason."""
        opened = self._answer_code
        self._answer_code = after_line(opened, self._buf[self._pos : marker.end])
        if opened is not None:
            if self._answer_code is None and self._fence_held:
                self._release_fence()
            return
        info = marker.info
        held = info in _CALL_FENCES or (info in PYTHON_FENCES and bool(self._tool_names))
        if held and self._answer_code is not None and self._held_answer is None and self._run_on is None:
            self._fence_held, self._held_answer = "call" if info in _CALL_FENCES else info, []

    def _held_python(self) -> None:
        """A piece of a held python block: released once its code cannot open a call of a node
        tool (``code_call_start``: ``import os``), held to its closing fence once it does."""
        body = "".join(self._held_answer or ()).lstrip("\n").partition("\n")[2]
        if body.strip():
            start = code_call_start(body.lstrip(), self._tool_names or ())
            if start is False:
                self._release_fence()
            elif start:
                self._fence_held = "call"

    def _release_fence(self) -> None:
        """The held code block closed, or proved ordinary code: what was held streams now."""
        held, self._fence_held = self._held_answer or [], ""
        if self._stray_at is not None:  # a bare </think> came inside the block: held for that now
            return
        self._held_answer = None
        for piece in held:
            self._delta(AnswerDelta, piece)

    def _may_announce_call(self) -> bool:
        """Whether call markup starting here may be a call rather than the answer's text: after
        whitespace, outside code (a fence, an indented line, `` `<tool_call>` ``, ``<pre>``)."""
        if self._answer_code or self._last not in " \t\n":
            return False
        line = self._answer_ws.rpartition("\n")[2] if "\n" in self._answer_ws else ""
        return not line.startswith(("    ", "\t")) and not self._answer_in_code()

    def _call_in_answer(self, eof: bool) -> bool | None:
        """Call markup in the final answer, a JSON object right after the tag (``Let me look it
        up. <tool_call>{"name": ...``): the turn is that call. False when more text is needed;
        None when it is no such markup (a tag named in prose, or written as code, is text)."""
        tag = _classify_tag(self._buf, self._pos, eof, _TOOL_TAGS)
        if tag is _NEED:
            return False
        if not isinstance(tag, _Tag):
            return None
        after = self._buf[self._pos + tag.length :].lstrip()
        if not after:
            return None if eof else False
        if after[0] != "{":
            return None
        if self._tool_names is not None:  # markup shown as an example names no tool of the node
            named = _CALL_NAME.search(after, 0, _CALL_NAME_WINDOW)
            if named is None:
                return None if eof or len(after) >= _CALL_NAME_WINDOW else False
            if named.group(1) not in self._tool_names:
                return None
        self._on_tag(tag)
        return True

    def _answer_line(self, marker: _Marker | None, eof: bool) -> bool | None:
        """A line of the answer (outside a code block) that may show the model writing on into
        the format: False when more text is needed, True when the answer ended, else None."""
        if marker is not None and marker.kind in _RUN_ON_KINDS:
            # the model wrote on past its answer (an invented observation, a next thought): the
            # answer ends here, and a held "Question:" tail goes with it; a held "Action:" tail
            # only when it is the format's step (`_action_written_on`), else it is answer text
            step = self._run_on is not None and self._run_on_action and _action_written_on(self._run_on, marker)
            dropped = self._run_on or []
            if self._run_on is not None and self._run_on_action and not step:
                # the answer's own lines, up to a "Question:" line among them (a next question)
                self._emit_answer("".join(self._run_on[: self._run_on_question]))
                dropped = self._run_on[self._run_on_question :] if self._run_on_question is not None else []
            self._after_answer = list(dropped)  # and what _s_done takes from here on
            # an invented observation or a next thought closed the answer; a step the model began
            # after it (an action written on, a bare "Action Input:") may be what the limit cut
            self._answer_closed = not step and marker.kind != "action_input"
            self._run_on, self._state = None, _S.DONE
            return True
        if self._run_on is not None:
            if self._run_on_action and self._run_on_question is None and marker is None:
                question = _input_label(self._buf, self._pos, eof, _QUESTION_LABELS)
                if question is _NEED:
                    return False
                if question is not None:
                    self._run_on_question = len(self._run_on)
                elif self._buf[self._pos] not in "\r\n":
                    # a line of prose right under the "Action:" line: not the format's step
                    # (`_action_written_on`), so the held line is the answer's own and streams now
                    held, self._run_on = "".join(self._run_on), None
                    self._emit_answer(held)
            return None
        if marker is not None and marker.kind == "action":
            # "Action: get_weather" under an answer: held until the turn shows what it is, the
            # format written on (an "Action Input:" follows, langchain#21912) or the answer's own
            # line (an action plan's "Action: call the supplier")
            self._run_on, self._run_on_action, self._run_on_question = [], True, None
        elif marker is None:
            question = _input_label(self._buf, self._pos, eof, _QUESTION_LABELS)
            if question is _NEED:
                return False
            if question is not None:  # a next question: held until the turn shows what it is
                self._run_on, self._run_on_action = [], False
        return None

    def _answer_fence(self, line: str) -> None:
        """A fence line in the answer of a reply wrapped whole in a fence (llamaindex14736). One
        that would open a block waits for the block's text: with none, it closed the wrapper."""
        self._answer_fence_open = not self._answer_fence_open
        if self._answer_fence_open:
            self._answer_ws += line
        else:
            self._emit_answer(line)

    def _s_done(self, eof: bool) -> bool:
        taken = self._take(len(self._buf), record=False)
        if self._after_answer is not None:
            self._after_answer.append(taken)
        elif self._after_actions is not None:
            self._after_actions.append(taken)
        return True

    # ---- states: the action -----------------------------------------------------------------

    def _s_action_head(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        if self._line_start:
            marker = _classify_line(self._buf, self._pos, eof, headed=_HEADED_ALL)
            if marker is _NEED:
                return False
            kind = marker.kind if isinstance(marker, _Marker) else ""
            if kind == "stop_partial":
                self._take(marker.end, record=False)
                return True
            if kind in _LABEL_KINDS:
                self._note(PROBLEM_NO_NAME)
                self._span, self._state = None, _S.TEXT
                return True
            return self._dispatch_action(eof, marker)
        return self._dispatch_action(eof)

    def _dispatch_action(self, eof: bool, line: _Marker | _Need | None = _NEED) -> bool:
        """First character after ``Action:``: a JSON blob, a fence, a tag, or a tool name.

        ``line``: what ``_classify_line`` found at this line start, if it was asked: at a
        backtick (no markdown before it) that is what ``_classify_fence`` finds here."""
        ch = self._buf[self._pos]
        if ch == "[" and self._tool_names:  # [search]: the prompt's "one of [tools]" copied
            named = _bracketed_tool(self._buf, self._pos, eof, self._tool_names)
            if named is _NEED:
                return False
            if named:
                self._acc, self._state = [], _S.ACTION_NAME
                return True
        if ch in "{[":
            self._purpose = "blob"
            self._begin_json()
            return True
        if ch in _FENCE_CHARS:
            fence = _classify_fence(self._buf, self._pos, eof) if line is _NEED else line
            if fence is _NEED:
                return False
            if isinstance(fence, _Marker) and fence.kind == "fence":
                self._take(fence.end)
                self._purpose, self._closer, self._state = "blob", fence.fence, _S.FENCE_OPEN
                return True
        if ch == "<":
            tag = _classify_tag(self._buf, self._pos, eof, _TOOL_TAGS)
            if tag is _NEED:
                return False
            if isinstance(tag, _Tag):
                self._take(self._pos + tag.length)
                self._tag_opened_line = self._labels_before_tag = True
                self._purpose, self._closer, self._state = "blob", tag.closer, _S.TAG_OPEN
                return True
            opened = self._open_element(eof, "blob") if self._tool_names else None
            if opened is not None:
                return opened
        self._acc, self._state = [], _S.ACTION_NAME
        return True

    def _s_action_name(self, eof: bool) -> bool:
        stop = _NAME_STOP.search(self._buf, self._pos)
        end = stop.start() if stop else len(self._buf)
        if end > self._pos:
            self._acc.append(self._take(end))
            return True
        newline = self._buf[self._pos] == "\n"
        if newline:
            self._take(self._pos + 1)
        self._name_done(json_follows=not newline)
        return True

    def _name_done(self, json_follows: bool) -> None:
        """The name line is complete: decide where the input comes from."""
        name, has_label, inline, self._name_escaped = _split_name_line("".join(self._acc))
        self._name, self._call_input = name, None
        self._name_kind = "none" if _is_none_name(name) else ("tool" if name and not _PLACEHOLDER.fullmatch(name) else "noname")
        self._none_action = self._none_action or self._name_kind == "none"
        self._single_line = self._name_kind == "none"
        if json_follows:
            self._purpose = "input"
            self._begin_json()
        elif inline is not None and not has_label:  # search[query]: unless an input follows
            self._state = _S.AFTER_NAME
            self._call_input = None if self._name_kind == "none" else call_arguments(inline)
        elif inline and self._single_line:
            self._input_done(decode_input(inline))
        elif inline:
            self._acc, self._state, self._input_fence = [inline], _S.STRING_INPUT, None
        else:
            self._state = _S.INPUT_HEAD if has_label else _S.AFTER_NAME

    def _s_after_name(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        if self._buf[self._pos] == "<":  # <action_input>: the XML-tagged step's input element
            seg = self._buf[self._pos : self._pos + len(_INPUT_TAG)].lower()
            if seg == _INPUT_TAG:
                self._take(self._pos + len(_INPUT_TAG))
                self._purpose, self._closer, self._state = "input", _INPUT_CLOSER, _S.TAG_OPEN
                return True
            if len(seg) < len(_INPUT_TAG) and _INPUT_TAG.startswith(seg) and not eof:
                return False
        marker = _classify_line(self._buf, self._pos, eof, headed=_HEADED_ALL) if self._line_start else None
        if marker is _NEED:
            return False
        if marker is None and self._line_start:  # "Input:", "Parameters:" ... right under the name
            marker = _input_label(self._buf, self._pos, eof)
            if marker is _NEED:
                return False
        kind = marker.kind if isinstance(marker, _Marker) else ""
        if kind == "action_input":
            self._take(marker.end)
            self._state = _S.INPUT_HEAD
        elif kind == "fence" and self._closes_action_fence(marker):
            self._input_done(self._call_input)  # the block the action stood in ends: no input in it
        elif kind in ("brace", "fence"):
            self._input_block(marker)
        else:
            self._input_done(self._call_input)
        return True

    def _closes_action_fence(self, marker: _Marker) -> bool:
        """Whether the fence line at the read position (``marker``) closes the code block of the
        thought that the action's ``Action:`` label stands in: an answer showing a step in a block
        (```` ```\nAction: search[x]\n``` ````), whose input ends there, not at the prose after it."""
        return self._action_fence is not None and after_line(self._action_fence, self._buf[self._pos : marker.end]) is None

    def _input_block(self, marker: _Marker) -> None:
        """An input written as JSON or in a fence (no "Action Input:" label needed)."""
        self._purpose = "input"
        if marker.kind == "fence":
            self._take(marker.end)
            self._closer, self._state = marker.fence, _S.FENCE_OPEN
        else:
            self._begin_json()

    def _s_input_head(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        ch = self._buf[self._pos]
        if ch in "{[":
            self._input_block(_Marker("brace", self._pos))
            return True
        marker = _classify_line(self._buf, self._pos, eof, headed=_HEADED_ALL) if self._line_start else None
        if ch in _FENCE_CHARS and not self._line_start:
            marker = _classify_fence(self._buf, self._pos, eof)
        if marker is _NEED:
            return False
        kind = marker.kind if isinstance(marker, _Marker) else ""
        if kind == "fence":
            self._input_block(marker)
        elif kind in _LABEL_KINDS:
            self._input_done(None)
        else:
            self._acc, self._state, self._input_fence = [], _S.STRING_INPUT, None
        return True

    def _s_string_input(self, eof: bool) -> bool:
        if self._line_start:
            marker = _classify_line(self._buf, self._pos, eof, headed=_HEADED_ALL)
            if marker is _NEED:
                return False
            kind = marker.kind if isinstance(marker, _Marker) else ""
            if kind == "stop_partial" and not self._input_fence:
                self._take(marker.end, record=False)
                return True
            if kind in _LABEL_KINDS and not self._input_fence:
                self._input_done(decode_input("".join(self._acc)))
                return True
            if kind == "fence" and not self._input_fence and self._closes_action_fence(marker):
                self._input_done(decode_input("".join(self._acc)))  # the input ends with its block
                return True
            if kind == "fence":  # a code block inside a text input: labels in it are its text
                self._input_fence = after_line(self._input_fence, self._buf[self._pos : marker.end])
        newline = self._buf.find("\n", self._pos)
        end = newline + 1 if newline >= 0 else len(self._buf)
        self._acc.append(self._take(end))
        if self._single_line and newline >= 0:
            self._input_done(decode_input("".join(self._acc)))
        return True

    # ---- states: blocks and JSON -------------------------------------------------------------

    def _s_fence_open(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        if self._buf[self._pos] in "{[" and not self._call_fence:  # a ```tool_code block may hold code
            self._begin_json()
        elif self._purpose == "candidate" and not self._call_fence:
            self._abort_candidate()
        else:
            self._acc, self._state = [], _S.DELIMITED
        return True

    def _s_tag_open(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        if self._buf[self._pos] in "{[":
            self._begin_json()
        else:
            self._acc, self._state, self._value_open = [], _S.DELIMITED, 0
        return True

    def _s_delimited(self, eof: bool) -> bool:
        """Block content up to the closing fence (at a line start) or closing tag (anywhere)."""
        closer = self._closer
        if closer in _FENCE_CLOSERS:
            if self._line_start:
                end = _fence_at(self._buf, self._pos, eof, closer)
                if end is _NEED:
                    return False
                if isinstance(end, int):
                    self._take(end)
                    self._block_done()
                    return True
            newline = self._buf.find("\n", self._pos)
            self._acc.append(self._take(newline + 1 if newline >= 0 else len(self._buf)))
            return True
        lt = self._buf.find("<", self._pos)
        end = lt if lt >= 0 else len(self._buf)
        if end > self._pos:
            self._acc.append(self._take(end))
            return True
        seg = self._buf[self._pos : self._pos + len(closer)].lower()
        if seg == closer:
            if closer == "</tool_call>" and self._in_open_value():
                self._acc.append(self._take(self._pos + len(closer)))
                return True
            self._take(self._pos + len(closer))
            self._block_done()
            return True
        if len(seg) < len(closer) and closer.startswith(seg) and not eof:
            return False
        self._acc.append(self._take(self._pos + 1))
        return True

    def _in_open_value(self) -> bool:
        """Whether the ``<tool_call>`` block read so far leaves a GLM ``<arg_value>`` or a
        Qwen3-Coder ``<parameter=K>`` open (no ``</parameter>`` nor ``</function>`` after it): its
        value names the closing tag (a file about tool calls: Ollama's glm47 parser test,
        raullenchai/Rapid-MLX#1515), so the tag is the value's text. Asked once per closing tag met; each piece is searched once
        (the pieces read since the last closing tag; the answer before them is carried)."""
        start = max(self._value_open - 1, 0)
        new = "".join(self._acc[start:]) if start else "".join(self._acc)
        opened = max(new.rfind("<arg_value>"), new.rfind("<parameter="))
        closed = max(new.rfind("</arg_value>"), new.rfind("</parameter>"), new.rfind("</function>"))
        is_open = opened > closed or (opened == closed and self._value_open > 0)
        self._value_open = len(self._acc) + 2 if is_open else 0
        return is_open

    def _block_done(self) -> None:
        """A non-JSON block ended (its closer consumed): an input, or a call in XML/JSON."""
        closer, self._closer = self._closer, ""
        text = "".join(self._acc)
        if self._element:
            self._element_done(text)
            return
        if self._purpose == "input":
            self._input_done(decode_input(text))
            return
        if closer == "</action>" and self._purpose == "blob" and BARE_NAME.fullmatch(text.strip()):
            self._action_element(text.strip())
            return
        tools = self._tool_names
        calls = calls_from_block(text, tools if isinstance(tools, Mapping) else None)
        if not calls and self._purpose == "candidate":  # a ```tool_code block that holds no call
            self._abort_candidate()
            return
        if not calls and self._purpose == "blob" and BARE_NAME.fullmatch(text.strip()):
            self._acc = [text.strip()]  # Action:\n```\nsearch\n```: the name, fenced; its input follows
            self._name_done(json_follows=False)
            return
        self._blob_done(calls, text, PROBLEM_UNREADABLE_BLOCK)

    def _action_element(self, name: str) -> None:
        """``<action>NAME</action>``: the XML-tagged step's action (lamalab-org/corral PR #192), its
        input in the ``<action_input>`` element after it, as after an ``Action:`` line
        (``_s_after_name``). Only a node tool's name (also under a ``functions.`` namespace), in a
        tag that opened a line outside a code block; anything else is text (the format shown in
        prose or in a fence, another word in the tag)."""
        tools = self._tool_names
        named = tools is None or name in tools or prefixed_tool(name, tools) is not None
        if not (named and self._tag_opened_line):
            self._labels_seen = self._labels_before_tag
            self._abort_candidate()
            return
        self._acc = [name]
        self._name_done(json_follows=False)

    def _element_done(self, body: str) -> None:
        """A tool's element closed: its call, or, when it holds anything but parameters, text
        (unlabelled) or a problem (after ``Action:``)."""
        name, self._element = self._element, ""
        tools = self._tool_names
        arguments = element_arguments(body, tools.get(name) if isinstance(tools, Mapping) else None)
        if arguments is None and self._purpose == "candidate":
            self._abort_candidate()
            return
        self._labels_seen = True
        self._blob_done([] if arguments is None else [(name, arguments)], body, PROBLEM_UNREADABLE_BLOCK)

    def _begin_json(self) -> None:
        """Start capturing at ``{`` or ``[`` (the current character).

        A value already complete in the buffer and valid as strict JSON is taken in one step
        (``_whole_json_end``); anything else is read character class by character class by
        ``_s_json``. Both end the same way: a property test feeds the same text in one piece
        and in small pieces.
        """
        start = self._pos
        self._quote, self._inner_fence, self._state = "", False, _S.JSON
        whole = self._whole_json_end(start)
        if whole is not None:  # opener and value in one take
            self._acc, self._depth, self._probe = [self._take(whole[0])], 0, ""
            self._json_done(whole[1])
            return
        opener = self._take(start + 1)
        self._acc, self._depth = [opener], 1
        self._probe = opener if self._purpose == "candidate" else ""

    def _whole_json_end(self, start: int) -> tuple[int, Any] | None:
        """Where a strict JSON value opening at ``start`` ends, and the value as ``json.loads``
        gives it, when the buffer holds all of it and ``_s_json`` would read it to that same
        end; else None.

        Strict JSON has no raw newline, quote or ``<`` that the character reader would stop at
        inside a string, and no fence or closing tag outside one; each of its lines starts with
        a JSON token, never like a ReAct label. An unlabelled candidate must also open like an
        object (``[`` then ``{``); one that does not is left to ``_s_json``, which gives it up.
        """
        buf = self._buf
        if self._purpose == "candidate":  # one that cannot open an object is given up unread (_json_probe)
            first = _WHITESPACE.match(buf, start + 1).end()
            if buf[first : first + 1] not in _CANDIDATE_SECOND[buf[start]]:
                return None  # "[[[[" decoded 4 KB deep, "{\n" raised an error, at each line
        closer = _CLOSING_BRACKET.get(buf[start])
        if closer is not None and len(buf) - start <= _CLOSER_LOOK and buf.find(closer, start) < 0:
            return None  # a value streamed in part: no decoder error raised (and built) to learn it
        try:  # from a window at ``start``: the decoder's error counts the lines before it
            value, end = raw_decode_at(buf, start)
        except (ValueError, RecursionError):
            return None
        return end, value

    def _s_json(self, eof: bool) -> bool:
        if self._line_start and self._closer in _FENCE_CLOSERS:
            fence = _fence_at(self._buf, self._pos, eof, self._closer)
            if isinstance(fence, int) and self._quote:
                fence = self._fence_in_string(fence, eof)
            if fence is _NEED:
                return False
            if isinstance(fence, int):
                self._json_done()  # the fence closed an unbalanced blob; CLOSER eats the fence
                return True
        if self._probe:
            return self._json_probe()
        if self._purpose == "candidate" and self._line_start and not self._closer:
            return self._candidate_line(eof)
        if self._quote != "'" and self._json_run():
            return True
        return self._json_in_string(eof) if self._quote else self._json_outside(eof)

    def _json_run(self) -> bool:
        """The fast path of ``_s_json``: consume at once, with one ``_take``, what its steps
        would read one character class at a time: the rest of an open double-quoted string,
        then text outside strings, whole double-quoted strings and brackets, up to a character
        a step must look at (a raw newline, ``'``, ``<``, the end of the buffer) or to the
        bracket that closes the value; a string that does not close so is read up to such a
        character and left open. Nothing taken holds a newline, so no line start (where the
        steps look for fences and labels) is passed. Returns whether anything was consumed; a
        property test checks it against the steps alone."""
        buf, start = self._buf, self._pos
        size = len(buf)
        pos, depth, quote, closed = start, self._depth, self._quote, False
        if quote:
            pos = _STRING_BODY.match(buf, pos).end()
            if pos < size and buf[pos] == '"':
                pos, quote = pos + 1, ""
        while not quote:
            pos = _JSON_RUN.match(buf, pos).end()
            if pos >= size:
                break
            ch = buf[pos]
            if ch == "{" or ch == "[":
                depth += 1
            elif ch == "}" or ch == "]":
                depth -= 1
                if depth <= 0:
                    closed = True
                    pos += 1
                    break
            elif ch == '"':  # a string the run could not take whole: its text so far, left open
                pos, quote = _STRING_BODY.match(buf, pos + 1).end(), '"'
                break
            else:
                break
            pos += 1
        if pos == start:
            return False
        self._acc.append(self._take(pos))
        self._depth, self._quote = depth, quote
        if closed:
            self._json_done()
        return True

    def _fence_in_string(self, end: int, eof: bool) -> int | _Need | None:
        """A fence line inside a JSON string written with raw newlines: a code block in the value
        (a fence line with a language, up to the next fence line: dify-official-plugins#2291), else
        the end of a blob whose string never closed (``end``)."""
        line = _fence_line(self._buf, self._pos, eof)
        if line is _NEED:
            return _NEED
        if self._inner_fence or (isinstance(line, tuple) and line[1]):
            self._inner_fence = not self._inner_fence
            return None
        return end

    def _candidate_line(self, eof: bool) -> bool:
        """A new line inside an unlabelled object: a raw newline in a string, or a ReAct label,
        means it was not JSON after all (so an unbalanced ``{`` never swallows the turn)."""
        marker = None if self._quote else _classify_line(self._buf, self._pos, eof)
        if marker is _NEED:
            return False
        if self._quote or (isinstance(marker, _Marker) and marker.kind in _LABEL_KINDS):
            self._abort_candidate()
            return True
        self._line_start = False  # checked; go on capturing this line
        return True

    def _json_probe(self) -> bool:
        """A bare candidate must look like an object at once: ``{"`` / ``{}`` / ``[{``."""
        if not self._skip_ws(self._acc):
            return False
        ch = self._buf[self._pos]
        ok = ch in "\"'}" if self._probe == "{" else ch == "{"
        self._probe = ""
        if not ok:
            self._abort_candidate()
        return True

    def _json_outside(self, eof: bool) -> bool:
        special = _JSON_SPECIAL.search(self._buf, self._pos)
        end = special.start() if special else len(self._buf)
        if end > self._pos:
            self._acc.append(self._take(end))
            return True
        if self._buf[self._pos] == "<" and self._closer.startswith("</"):
            seg = self._buf[self._pos : self._pos + len(self._closer)].lower()
            if seg == self._closer:
                self._json_done()  # </tool_call> closed an unbalanced blob; CLOSER eats the tag
                return True
            if len(seg) < len(self._closer) and self._closer.startswith(seg) and not eof:
                return False
        ch = self._take(self._pos + 1)
        self._acc.append(ch)
        if ch in "{[":
            self._depth += 1
        elif ch in "}]":
            self._depth -= 1
            if self._depth <= 0:
                self._json_done()
        elif ch in "\"'":
            self._quote = ch
        return True

    def _json_in_string(self, eof: bool) -> bool:
        special = _STRING_SPECIAL[self._quote].search(self._buf, self._pos)
        end = special.start() if special else len(self._buf)
        if end > self._pos:
            self._acc.append(self._take(end))
            return True
        ch = self._buf[self._pos]
        if ch == "\\":
            if self._pos + 1 >= len(self._buf) and not eof:
                return False
            self._acc.append(self._take(min(self._pos + 2, len(self._buf))))
            return True
        if ch == "'" and self._quote == "'":
            after = self._buf[self._pos + 1 : self._pos + 2]
            if not after and not eof:
                return False
            if after and after not in _SINGLE_QUOTE_CLOSERS:  # an apostrophe: "what's"
                self._acc.append(self._take(self._pos + 1))
                return True
        self._acc.append(self._take(self._pos + 1))
        if ch != "\n":
            self._quote = ""
        return True

    def _json_done(self, strict: Any = _UNDECODED) -> None:
        """The JSON value closed, or was ended by a fence, a closing tag or the end of the reply
        with only closing brackets missing (they are added: every word is there).

        ``strict``: the value as ``json.loads`` decoded the text (``_whole_json_end``): strict
        JSON from its opening to its closing bracket, which ``decode_input`` and ``decode_json``
        take as it stands (nothing to strip, unwrap or repair), so it is not decoded again; only
        its lone surrogates are replaced, as ``json_args.loads`` does."""
        text = "".join(self._acc)
        if strict is not _UNDECODED:
            strict = surrogates_replaced(strict, text)
        if self._depth > 0 and not self._quote:
            text = with_closers(text)
        if self._purpose == "input":
            self._input_done(decode_input(text) if strict is _UNDECODED else strict)
            return
        value = decode_json(text) if strict is _UNDECODED else strict
        answer = _answer_object(value)
        if answer is not None:  # {"thought": "...", "final_answer": "..."}
            thought, reply = answer
            if isinstance(thought, str) and thought.strip():
                self._emit_thought(thought.strip() + "\n")
            self._labels_seen = True
            self._deliver([(_FINAL_NAME, reply)])
            return
        calls = [] if value is FAIL else interpret(value, strict=self._purpose == "candidate", names=self._tool_names or ())
        if not calls and '"function=' in text[:40]:  # blanks may stand after its brace (text_calls' rule)
            calls = function_equals_call(text)  # Qwen3.5/3.6's fused templates (tetherto/qvac PR #2677)
        if calls and self._purpose == "candidate" and named_by_method(value) and calls[0][0] not in (self._tool_names or ()):
            calls = []  # a JSON-RPC request an answer shows, not a call (text_calls.named_by_method)
        if not calls and self._glued and self._purpose == "candidate" and (again := self._same_tool_again(value)):
            calls = again
        kept = len(self._alone)
        if self._purpose == "candidate" and (kept or not calls) and self._tool_names:
            calls = self._beside(calls, value)
        if self._purpose == "candidate" and not calls and (value is not FAIL or envelope_name(text) is None):
            self._abort_candidate()  # prose or a JSON answer after all
            # {"name": X} kept, or an object that is clearly no call ({"note": 1}): a call object may
            # follow on its line; what follows that is no call is given back as text, as before
            if (len(self._alone) > kept or isinstance(value, dict)) and self._multi and not self._buf.startswith(
                ("\n", "\r"), self._pos
            ):
                self._state = _S.AFTER_CALL
            return
        self._labels_seen = True  # a call that cannot be read is a problem, never an answer
        template = PROBLEM_NOT_JSON if value is FAIL else PROBLEM_NO_TOOL_IN_JSON
        self._blob_done(calls, text, template)

    def _same_tool_again(self, value: Any) -> list[Call]:
        """An object glued on its line to the action before it (``Action Input: {"q": "a"}{"q":
        "b"}``, no name of its own) giving the same parameters: that tool called again, as a second
        ``Action Input:`` under one ``Action:`` is; ``[]`` for any other value. Wave 39: its text
        went to the thought, and the model was never told the second call did not run."""
        last = self._actions[-1] if self._actions else None
        if (
            last is None or not isinstance(value, dict) or not value
            or not isinstance(last.input, dict) or value.keys() != last.input.keys()
        ):
            return []
        return [(last.name, value)]

    def _beside(self, calls: list[Call], value: Any) -> list[Call]:
        """The calls of a bare JSON value, given a node tool's ``{"name": X}`` alone: that is a
        call without arguments beside call objects (qwen2.5-coder via Ollama: NousResearch/
        hermes-agent PR #87900), never on its own (a record with a name). Such a call after a
        call is one at once; before any, it is kept (its text goes to the thought as any
        candidate that is not a call) and put ahead of the next call object's calls."""
        if calls:
            if any(_is_final_name(name) and name not in (self._tool_names or ()) for name, _ in calls):
                return calls
            calls, self._alone = [*self._alone, *calls], []
            return calls
        alone = name_alone(value)  # of a node tool or not: one that is none is answered as an unknown tool's call
        if not alone:
            return []
        if self._actions or any(not isinstance(item, str) for item in self._unlabelled):
            return alone
        self._alone += alone
        return []

    def _s_after_call(self, eof: bool) -> bool:
        """The rest of the line after an action's JSON (several actions allowed): a call object
        joined to it by spaces, a ``,`` or a ``;`` (``{"name": "a", ...} {"name": "b", ...}``, as
        Llama 3.x writes parallel calls; call lists ``[{...}][{...}]``, dify-official-plugins'
        cot_agent tests) is read as one more unlabelled candidate, held or run
        as the one before it; anything else (a line break, prose, ``{not json``) is read as
        without this step, the separators with it. Waits while only separators are in view."""
        buf = self._buf
        end = _CALL_JOINT.match(buf, self._pos).end()
        if end >= len(buf) and not eof:
            return False
        closer = self._closer
        if end < len(buf) and buf[end] in "{[":
            self._start_span()
            self._closer, self._joint = closer, self._take(end, record=False)  # given back if no call
            self._glued = True
            self._purpose = "candidate"
            self._candidate_marked, self._marked = self._marked, False
            self._begin_json()
            return True
        self._state = _S.CLOSER if closer else _S.TEXT
        return True

    def _s_closer(self, eof: bool) -> bool:
        if not self._skip_ws():
            return False
        closer = self._closer
        seg = self._buf[self._pos : self._pos + len(closer)].lower()
        if seg == closer:
            self._take(self._pos + len(closer), record=False)
        elif len(seg) < len(closer) and closer.startswith(seg) and not eof:
            return False
        self._closer, self._state = "", _S.TEXT
        return True

    # ---- delivering ---------------------------------------------------------------------------

    def _input_done(self, value: Any) -> None:
        """The input of a named action is complete."""
        kind, name = self._name_kind, self._name
        if kind == "none":  # Action: None; a text "input" is what the model wanted to say
            if isinstance(value, str) and not _is_none_name(value):
                self._emit_thought(value + "\n")
            self._resume()
        elif kind in ("orphan", "noname"):
            calls = interpret(value, strict=True)
            if calls:
                self._deliver(calls)
            elif kind == "orphan" and self._actions and self._multi and value not in (None, ""):
                # a second "Action Input:" under one "Action:": the same tool again, never dropped
                self._deliver([(self._actions[-1].name, value)])
            else:
                self._note(PROBLEM_ORPHAN_INPUT if kind == "orphan" else PROBLEM_NO_NAME)
                self._resume()
        else:
            if isinstance(value, dict) and value.get("action") == name and "action_input" in value:
                value = decode_nested(value["action_input"])
            elif isinstance(value, str) and self._name_escaped:
                value = _MD_ESCAPE.sub(r"\1", value)
            self._deliver([(name, value)])

    def _blob_done(self, calls: list[Call], text: str, template: str) -> None:
        if calls:
            self._deliver(calls)
            return
        snippet = " ".join(text.split())
        self._note(template.format(snippet=snippet[:120] + ("..." if len(snippet) > 120 else "")))
        self._resume()

    def _deliver(self, calls: list[Call]) -> None:
        """Record the calls of one construct; a "Final Answer" name becomes the answer.

        Calls read from bare JSON (no ``Action:`` label) under a ``Thought:`` are held until the
        turn shows whether they were its action or an example in its thought: an ``Action:``
        label later in the turn drops them (their text goes back to the thought;
        dify-official-plugins#3861), and anything else (another label, the end of the reply)
        makes them the turn's actions. Bare JSON before any ``Thought:``, or right after a call
        token (``<|python_tag|>``), is a call at once.

        When several actions are allowed, a JSON value that closed with more on its line is
        followed by ``_s_after_call``, which reads a call object joined to it there."""
        raw = self._end_span()
        # the JSON closed here and its line goes on (or the text so far ends): a call may follow
        joinable = self._multi and self._state is _S.JSON and not self._buf.startswith(("\n", "\r"), self._pos)
        held = self._purpose == "candidate" and self._in_thought and not self._candidate_marked and not self._actions
        if held and not any(_is_final_name(name) and name not in (self._tool_names or ()) for name, _ in calls):
            self._unlabelled.append((calls, raw))
            self._state = _S.AFTER_CALL if joinable else _S.CLOSER if self._closer else _S.TEXT
            return
        self._commit_unlabelled()
        if self._state != _S.DONE:
            self._record(calls, raw)
            if joinable and self._state is not _S.DONE:
                self._state = _S.AFTER_CALL

    def _drop_unlabelled(self) -> None:
        """A labelled action follows: the bare JSON before it was part of the thought."""
        if not self._unlabelled:
            return
        held, self._unlabelled, self._alone = self._unlabelled, [], []
        for item in held:
            self._emit_thought(item if isinstance(item, str) else item[1] + "\n")

    def _commit_unlabelled(self) -> None:
        """No labelled action came: the bare JSON calls are the turn's actions."""
        if not self._unlabelled:
            return
        held, self._unlabelled = self._unlabelled, []
        state = self._state
        for item in held:
            if isinstance(item, str):
                self._emit_thought(item)
            elif self._state != _S.DONE:  # one action only, unless several are allowed
                self._record(*item)
        if self._state != _S.DONE:
            self._state = state

    def _record(self, calls: list[Call], raw: str) -> None:
        for name, value in calls:
            if _is_none_name(name):
                self._none_action = True
                continue
            if _is_final_name(name) and name not in (self._tool_names or ()):  # a node tool "finish" is a call
                if not self._actions:
                    self._answer_whole(_answer_text(value))
                    self._answer_closed = True  # its JSON closed
                    self._after_answer, self._after_closer = [], self._closer  # its block's end is no text after it
                # the list's calls after it: not run, logged; after an action (an answer before the
                # results) also named to the model (wave 39)
                rest = calls[calls.index((name, value)) + 1 :]
                tools = self._tool_names or ()
                self._calls_after_answer = tuple(
                    n for n, _ in rest if not _is_none_name(n) and (n in tools or not _is_final_name(n))
                )
                self._state = _S.DONE
                return
            action = ActionFound(name, coerce_input(value), raw)
            self._actions.append(action)
            self._emit(action)
            if not self._multi:
                self._state = _S.DONE
                return
        self._state = _S.CLOSER if self._closer else _S.TEXT

    # ---- the end ------------------------------------------------------------------------------

    def _close_construct(self) -> None:
        """At the end of the stream, finish whatever construct is open."""
        state = self._state
        if state == _S.ACTION_HEAD:
            self._note(PROBLEM_NO_NAME)
            self._span, self._state = None, _S.TEXT
        elif state == _S.ACTION_NAME:
            self._name_done(json_follows=False)
        elif state == _S.AFTER_NAME:
            self._input_done(self._call_input)
        elif state == _S.INPUT_HEAD:
            self._input_done(None)
        elif state == _S.STRING_INPUT:
            self._input_done(decode_input("".join(self._acc)))
        elif state == _S.JSON:
            self._json_done()
        elif self._purpose == "candidate":  # FENCE_OPEN of a bare fence, an element never closed
            self._abort_candidate()
        elif self._element:  # an element after "Action:" never closed: no call
            self._element = ""
            self._blob_done([], "".join(self._acc), PROBLEM_UNREADABLE_BLOCK)
        else:  # FENCE_OPEN, TAG_OPEN, DELIMITED: the block ends here
            self._block_done()
        self._state = _S.DONE if self._state == state else self._state

    def _settle(self) -> ReactTurn:
        visible = "".join(self._thought).strip()
        if not self._actions and not self._answering and not visible and self._recover:
            self._recover_from_reasoning()
        final_answer: str | None = None
        problem: str | None = None
        labelled = self._answering  # the answer followed a label, not the reply's text alone
        if self._actions and not self._answering and self._template_actions():
            shown = self._steps_shown()
            if shown is not None:  # a prompt template shown: its "Action: the action to take..." is no call
                self._actions.clear()
                self._answer_whole(shown)
                final_answer = shown
        if (
            self._actions
            and not self._answering
            and final_answer is None
            and _CONVERSATIONAL_STEP.match(visible_all := "".join(self._visible))  # no Python call: a hot path
            and (said := self._answer_before_turn(visible_all))
        ):
            self._actions.clear()  # written after the invented Human: turn: invented too, not run
            self._answer_whole(said)
            final_answer = said
        if final_answer is not None:
            pass
        elif self._answering:
            final_answer = "".join(self._answer) or None
            problem = None if final_answer else PROBLEM_EMPTY_ANSWER
        elif not self._actions:
            final_answer, problem = self._fallback()
        thought, reasoning = "".join(self._thought).strip(), "".join(self._reasoning).strip()
        if self._tagged and (self._actions or final_answer is not None):
            thought, reasoning = self._thought_tagged(thought, reasoning, None if labelled else final_answer)
        return ReactTurn(
            thought=thought,
            reasoning=reasoning,
            actions=tuple(self._actions),
            final_answer=final_answer,
            problem=problem,
            raw="".join(self._raw),
            ended_inside=self._ended_inside,
            answer_ended=self._answer_closed and (labelled or self._turn_invented) and final_answer is not None,
            after_answer=self._text_after_answer() if self._after_answer and final_answer is not None else "",
            calls_after_answer=self._calls_after_answer if final_answer is not None or self._actions else (),
            after_actions="".join(self._after_actions).strip() if self._after_actions and self._actions else "",
        )

    def _text_after_answer(self) -> str:
        """``ReactTurn.after_answer``: the text taken after the answer ended, stripped, without the
        end of the block a JSON answer stood in (its closing fence or tag)."""
        text = "".join(self._after_answer or ()).strip()
        closer = self._after_closer.strip()
        return text[len(closer) :].lstrip() if closer and text.lower().startswith(closer.lower()) else text

    def _thought_tagged(self, thought: str, reasoning: str, answer: str | None) -> tuple[str, str]:
        """``(thought, reasoning)`` of a turn whose reasoning was all written in ``<thought>``
        blocks (the XML-tagged step: lamalab-org/corral PR #192): that text is the turn's thought,
        before the thought the labels gave (none when the answer is ``answer``, the reply's
        unlabelled text, which the thought then only repeats). A turn with other reasoning too, or one taken from
        inside the block (``_recover_from_reasoning``), keeps it as reasoning."""
        tagged = "".join(self._tagged).strip()
        if tagged != reasoning or self._recovered:
            return thought, reasoning
        if not thought or (answer is not None and thought == answer.strip()):
            return tagged, ""
        return f"{tagged}\n\n{thought}", ""

    def _reread_after_stray(self, turn: ReactTurn) -> ReactTurn:
        """A bare ``</think>`` came after labels: the model's template opened a reasoning block
        in the prompt, and labels before it were the model drafting in its reasoning. The text
        after it is read again on its own: an action or answer there is the turn (the text before
        it joins the reasoning); else the turn stands as read, its held answer text streamed."""
        visible = "".join(self._visible)
        before, after = visible[: self._stray_at], visible[self._stray_at :]
        again = ReactStreamParser(allow_multiple_actions=self._multi, tool_names=self._tool_names)
        events = again.feed(after) + again.finish()
        reread = again.result()
        if not reread.actions and not (reread.final_answer or "").strip():
            self._out += [AnswerDelta(piece) for piece in self._held_answer or ()]
            return turn
        if self._streamed_before_stray:  # the draft streamed: the answer starts a paragraph of its own
            at = next((n for n, event in enumerate(events) if isinstance(event, AnswerDelta)), None)
            if at is not None:
                events[at] = AnswerDelta("\n\n" + events[at].text)
        self._out += events
        self._revised = True
        reasoning = "\n\n".join(part for part in (before.strip(), turn.reasoning, reread.reasoning) if part)
        return replace(reread, reasoning=reasoning, raw=turn.raw)

    def _fallback(self) -> tuple[str | None, str | None]:
        """No action and no Final Answer: prose, ``Action: None``, or a problem."""
        visible = "".join(self._thought).strip()
        start = 0
        if self._plain_from is not None and not self._labels_seen:  # after a stray </think> only
            start, held = self._plain_from
            after = "".join(self._thought[start:]).removeprefix(held).strip()
            if after:
                visible = after
            else:  # the tag ended the reply: it closed no reasoning, the text is the answer
                start = 0  # (Function Calling shows it so: deepseek-ai/DeepSeek-LLM#100)
        answers = [line for line in self._answer_lines if line[0] >= start]
        if len(answers) == 1 and not self._labels_seen:  # one "Answer:" line: what follows it
            at, label = answers[0]
            visible = "".join(self._thought[at:])[label:].strip()
        if self._none_action:
            answer = re.sub(r"\n{3,}", "\n\n", visible)
        elif not self._labels_seen and self._hint is None:
            finish = _FINISH_WHOLE.fullmatch(visible)
            answer = finish.group(1).strip() if finish is not None else visible
            if finish is None and _CONVERSATIONAL_STEP.match(visible) is not None:  # its Thought label left out
                answer = self._conversational(visible) or visible
        elif self._hint is None and (said := self._conversational("".join(self._visible))) is not None:
            answer = said
        elif self._hint is None and (shown := self._steps_shown()) is not None:
            answer = shown
        else:
            return None, self._hint or PROBLEM_THOUGHT_ONLY
        if answer:
            self._answer_whole(answer)
            return answer, None
        if self._none_action:
            return None, PROBLEM_NONE_EMPTY
        return None, PROBLEM_ONLY_REASONING if self._reasoning else PROBLEM_EMPTY

    def _conversational(self, text: str) -> str | None:
        """``conversational_answer`` of ``text``; an invented ``Human:`` turn after the answer
        ends it (``ReactTurn.answer_ended``: a cut that fell in that turn left the answer whole)
        and is the text after it (``ReactTurn.after_answer``)."""
        read = _conversational_step(text)
        if read is None:
            return None
        answer, end = read
        if end < len(text):
            self._after_answer, self._answer_closed, self._turn_invented = [text[end:]], True, True
        return answer

    def _answer_before_turn(self, text: str) -> str | None:
        """The answer of a conversational step (``conversational_answer``) the model followed with
        an invented ``Human:`` turn and then actions: what it writes after inventing the user's
        next turn is invented too, an action as much as an observation after a final answer. The
        actions go to ``ReactTurn.after_answer`` with that turn (logged, not run); None when the
        reply (``text``: its visible text) is no such step or no ``Human:`` turn came before its
        actions."""
        read = _conversational_step(text)
        return self._conversational(text) if read is not None and read[1] < len(text) else None

    def _template_actions(self) -> bool:
        """Whether every action read names no node tool but a phrase of three words or more
        (``Action: the action to take, should be one of [{tool_names}]``): a ReAct prompt
        template's placeholder line, not a call."""
        tools = self._tool_names or ()
        return all(a.name not in tools and len(a.name.split()) >= 3 for a in self._actions)

    def _steps_shown(self) -> str | None:
        """The reply as written when it is prose, then code blocks that end it, and its labels all
        stood in those blocks (``CrewAI prints each step like this:`` above a log of ``## Thought:``
        lines) giving no action or answer: an answer showing steps, not a step; else None (a
        reply that is only a fenced ``Thought:`` is a step cut short, asked again)."""
        if self._label_unfenced or self._reasoning:
            return None
        visible = "".join(self._visible)
        starts = fence_lines(visible)
        if not starts or len(starts) % 2 or not visible[: starts[0]].strip() or "\n" in visible[starts[-1] :].strip():
            return None
        return visible.strip()

    def _recover_from_reasoning(self) -> None:
        """Nothing visible: a turn written inside the reasoning block is taken from it (nat2227),
        read against the node's tools (a call of a node tool named ``Finish`` is that tool's, not
        the answer: vLLM's ``qwen3`` reasoning parser test)."""
        text = "".join(self._reasoning)
        if not text.strip():
            return
        inner = ReactStreamParser(allow_multiple_actions=self._multi, tool_names=self._tool_names)
        inner._recover = False
        inner.feed(text)
        inner.finish()
        turn = inner.result()
        if not turn.actions and not (inner._labels_seen and turn.final_answer is not None):
            if inner._labels_seen:
                self._note(turn.problem)
                self._labels_seen = True
            return
        self._recovered = True
        self._emit_thought(turn.thought)
        for action in turn.actions:
            self._actions.append(action)
            self._emit(action)
        if turn.final_answer is not None:
            self._answer_whole(turn.final_answer)


_STATE_HANDLERS: Final[dict[_S, Callable[[ReactStreamParser, bool], bool]]] = {
    state: getattr(ReactStreamParser, f"_s_{state.value}") for state in _S
}
"""Each state's handler (``_s_<state>``), looked up once for every parser."""


def parse_react(text: str, **kw: Any) -> ReactTurn:
    """Parse a whole ReAct turn at once (feed everything, then finish)."""
    parser = ReactStreamParser(**kw)
    parser.feed(text)
    parser.finish()
    return parser.result()
