"""ReAct steps a Function Calling model wrote as text: run as tool calls, under the text-call rules.

A model offered native tools sometimes writes a ReAct step instead of calling
(``Thought: I need to look it up.\\nAction: search\\nAction Input: {"query": "paris"}``): a
user's instruction taught it the format, or it was tuned on it. The ReAct parser
(``react.parser.parse_react``) reads the reply once it has ended; its actions are run only when
nothing in them is guessed (``react_step_calls``). A step that names a node tool but whose input
does not read is a call the model meant to make, written broken (``UNREADABLE``): the model is
asked again. Anything else stays the text it was.
"""

import bisect
import re
from collections.abc import Collection, Mapping
from typing import Final

from dify_plugin.entities.model.message import PromptMessageTool

from agent_core.fences import fence_lines
from agent_core.json_args import ArgumentsError, decode_arguments
from agent_core.react.parser import (
    LABEL_SPACES,
    LINE_PREFIX,
    ActionFound,
    ReactTurn,
    label_forms,
    label_words,
    parse_react,
)
from agent_core.text_calls import arguments_for, bracketed_text, keyword_arguments, prefixed_tool, schema_properties
from agent_core.tool_calls import ToolCall, fresh_call_ids

_ACTION_LINE = re.compile(rf"(?im)^{LINE_PREFIX.pattern}(?:{label_words('action')})(?![a-z])")
"""A line opening with the word ``Action`` in any language the ReAct parser reads (``行动``,
``行動``, ``행동``: ``react.parser.label_words``), after markdown or emoji: a reply without one holds
no step, and is not read again."""
_INPUT_LABEL = re.compile(
    rf"\n{LINE_PREFIX.pattern}(?:(?:action[ \t_{LABEL_SPACES}-]*+)?(?:inputs?|parameters|arguments)\b|{label_words('action_input')})", re.I
)
"""A line of a step that opens with its input's label (``Action Input:``, ``### Action Input``,
``**Action Input:**``, ``Input:``, ``Parameters:``, ``Arguments:``, ``行动输入：``, ``행동 입력:``: the
ReAct parser's forms)."""
_FENCE_LINE = re.compile(r"(?:`{3,}+|~{3,}+)[\w-]*+[ \t]*+\r?\n")
"""A fence line (backticks or tildes) and its language, matched where a line starts."""
_THOUGHT_LINE = re.compile(rf"{LINE_PREFIX.pattern}(?:{label_words('thought')})[ \t*_{LABEL_SPACES}]*+(?:[:：]|\r?\n)", re.I)
"""A ``Thought:`` label (or a heading holding it alone): what may stand between two steps."""
_FENCE_CLOSE = re.compile(r"\s*+(?:`{3,}+|~{3,}+)[ \t]*+(?=\r?\n|\Z)")
"""The line that closes a fenced block after the input in it (the blank before it too)."""
_OBSERVATION_LINE = re.compile(
    rf"{LINE_PREFIX.pattern}(?:{label_words('observation')})s?[ \t\d*_{LABEL_SPACES}]*+(?:[:：]|\r?\n|\Z)", re.I
)
"""An ``Observation:`` label the model wrote after its step: a result it invented, dropped (the
ReAct parser stops reading there, as ReAct does)."""
_OBSERVATION_START = re.compile(
    rf"{LINE_PREFIX.pattern}(?:"
    + "|".join(
        sorted({
            re.escape(" ".join(words)[:n]).replace(r"\ ", rf"[ _\-{LABEL_SPACES}]*+")
            for words in label_forms("observation")
            for n in range(len(" ".join(words)))
        })
    )
    + r")\Z",
    re.I,
)
"""A line the output limit cut inside an ``Observation`` label, or in the markdown or emoji before
it (``Ob``, ``**Obs``, ``### ``, ``👀 观``): the start of an invented result, dropped as one whole
is when the reply was cut (``react_step_calls``' ``cut``)."""


UNREADABLE: Final = "unreadable"
"""``react_step_calls``' answer on a reply that ends with ReAct steps, each naming a node tool as
a step it would run, where an input does not read without a guess (JSON that does not decode, or
was never closed; a text for a tool with several parameters that names none of them)."""


def react_step_calls(
    text: str,
    shown: int,
    tools: Mapping[str, PromptMessageTool | None],
    *,
    id_prefix: str = "call",
    taken: Collection[str] = (),
    cut: bool = False,
    with_after: bool = False,
) -> tuple[tuple[ToolCall, ...], str] | tuple[tuple[ToolCall, ...], str, str] | str | None:
    """The calls of a reply (its visible ``text``, ended) that is, or ends with, ReAct steps, and
    the reply's thought (the text before and between the steps, labels dropped: the ReAct
    parser's); None when it is no such reply.

    ``shown``: how many characters of ``text`` the user has seen (streamed prose before the
    step); the first step starts after them. Every step must hold, in the ReAct parser's reading
    (``parse_react``, several actions allowed, in order): an ``Action:`` naming one of ``tools``
    exactly (or with a namespace before it: ``text_calls.prefixed_tool``), opening a line outside
    a fenced block (``fences``) and a blockquote, an input label under it (``_INPUT_LABEL``), or
    the action written as one object under its label (``_enveloped``: ``{"action": ...,
    "action_input": {...}}``, fenced or not), whose input reads as the tool's arguments
    (``_arguments``), and between two steps nothing
    but whitespace or a ``Thought:``; after the last, nothing but whitespace or an invented
    ``Observation:`` (dropped with what follows), or, when the output limit ``cut`` the reply, a
start of one (``_OBSERVATION_START``: ``\n**Ob``). A step after a final answer is no call (the
    parser gives the answer). Each call gets an id made under ``id_prefix``, none in ``taken``.
    ``UNREADABLE`` when every rule holds but an input does not read (``_arguments``): the calls the
    model meant, written broken. Time linear in ``text``: it is read once more only when an
    ``Action`` line follows ``shown``. ``with_after``: the calls, the thought and what the reply
    wrote from its invented ``Observation:`` on (``ReactTurn.after_actions``, ``""`` for none: it
    is not read, and the actions in it are named, not run)."""
    if _ACTION_LINE.search(text, shown) is None:
        return None
    parsed = parse_react(text, allow_multiple_actions=True)
    if not parsed.actions or parsed.final_answer is not None:
        return None
    found = _steps(text, shown, parsed, tools, cut)
    if found is None or isinstance(found, str):
        return found  # no steps, or UNREADABLE
    ids = fresh_call_ids(id_prefix, len(found), taken)
    calls = tuple(ToolCall(call_id, name, arguments) for call_id, (name, arguments) in zip(ids, found, strict=True))
    return (calls, parsed.thought, parsed.after_actions) if with_after else (calls, parsed.thought)


def _steps(
    text: str, shown: int, parsed: ReactTurn, tools: Mapping[str, PromptMessageTool | None], cut: bool
) -> list[tuple[str, dict]] | str | None:
    """``parsed``'s actions as (tool, arguments), each found where it stands in ``text``; None
    when one breaks a rule of ``react_step_calls``, ``UNREADABLE`` when only an input does not
    read."""
    fences = fence_lines(text)
    found: list[tuple[str, dict]] = []
    unreadable = False
    end = shown
    for number, action in enumerate(parsed.actions):
        at = text.find(action.raw, end)
        if at < 0 or (number and not _between_steps(_after_block(text[:at], end, fences))):
            return None
        line = text.rfind("\n", 0, at) + 1
        if text[line:at].strip(" \t") or action.raw.lstrip(" \t")[:1] == ">" or bisect.bisect_left(fences, at) % 2:
            return None  # inside a line, a blockquote or a fenced block: text the reply shows
        name = action.name if action.name in tools else prefixed_tool(action.name, tools)
        # (a second "Action Input:" under one "Action:" is an action of its own: its raw opens with that label)
        if name is None or (_INPUT_LABEL.search("\n" + action.raw) is None and not _enveloped(action)):
            return None
        last = number == len(parsed.actions) - 1
        arguments = _arguments(action, tools[name], last and parsed.ended_inside)
        unreadable = unreadable or arguments is None
        found.append((name, arguments or {}))
        end = at + len(action.raw)
    rest = _after_block(text, end, fences).lstrip()
    if rest and not _OBSERVATION_LINE.match(rest) and not (cut and _OBSERVATION_START.match(rest)):
        return None
    return UNREADABLE if unreadable else found


def _enveloped(action: ActionFound) -> bool:
    """Whether ``action`` was written as one object after its label (``{"action": "search",
    "action_input": {...}}``): on the label's line, or on a line below it, in a fence or not
    (``### Action`` then a ```` ```json ```` block), its input an object the ReAct parser decoded
    whole from it. Linear in the action's text."""
    if not isinstance(action.input, dict):
        return False
    label, _, below = action.raw.partition("\n")
    colon = max(label.rfind(":"), label.rfind("："))
    if colon >= 0 and label[colon + 1 :].lstrip(" \t*").startswith("{"):
        return True
    below = below.lstrip()
    fence = _FENCE_LINE.match(below)
    return (below[fence.end() :].lstrip() if fence else below).startswith("{")


def _after_block(text: str, end: int, fences: list[int]) -> str:
    """``text`` from ``end`` (where a step's input ended) on, without the line that closes the
    fenced block the input stood in (``Action Input:`` above a ```` ```json ```` block)."""
    if bisect.bisect_left(fences, end) % 2 == 0:
        return text[end:]
    closing = _FENCE_CLOSE.match(text, end)
    return text[closing.end() :] if closing else text[end:]


def _between_steps(text: str) -> bool:
    """Whether ``text``, between two steps, is whitespace or a ``Thought:`` (the next step's)."""
    between = text.lstrip()
    return not between or _THOUGHT_LINE.match(between) is not None


def _arguments(action: ActionFound, tool: PromptMessageTool | None, open_input: bool) -> dict | None:
    """An action's input as the tool's arguments, as ReAct reads it (``react.turn._tool_calls``),
    or None when it does not read without a guess: a JSON input never closed (``open_input``: the
    reply ended inside it), one that cannot be read without dropping text, a text input that is
    neither the tool's arguments by name (``query="Paris"``) nor one line for a tool with a single
    parameter (``text_calls.arguments_for`` would put it under ``input``)."""
    value = action.input
    if isinstance(value, dict):
        return None if open_input else arguments_for(value, tool)
    if value is None:
        return {}
    text = value.strip()
    if text[:1] in ("{", "[") and not bracketed_text(text):
        try:
            return arguments_for(decode_arguments(text), tool)
        except ArgumentsError:
            return None
    properties = schema_properties(tool)
    if (by_name := keyword_arguments(text, properties)) is not None:
        return by_name
    return {next(iter(properties)): value} if len(properties) == 1 and "\n" not in text else None

