"""ReAct steps as JSON objects decoded against a schema (the ``json_schema`` step format).

A step is one JSON object::

    {"action": "<tool name>", "action_input": {<that tool's arguments>}}
    {"action": "final_answer", "action_input": {"answer": "<the answer>"}}

``step_schema`` builds its JSON schema from the tools offered this round. The model is called
through Dify's structured-output invocation (``llm_structured_output``), which constrains the
decoding to that schema where the model declares the ``structured-output`` feature (the model
plugin receives it as the ``json_schema`` parameter: OpenAI, Gemini, Ollama, llama.cpp, vLLM)
and otherwise prepends the schema to the system prompt and parses the reply (Dify's
``api/core/llm_generator/output_parser/structured_output.py``, ``invoke_llm_with_structured_output``).

Schema shape (what every provider's structured output accepts, and what a grammar can enforce):
the root is an ``object`` whose ``properties`` list the three fields loosely (``action`` an enum
of the names), and whose ``anyOf`` holds one complete branch per action, tying each ``action`` to
its own ``action_input`` schema (required fields and enums carried over from the tool's
declaration; secret and form parameters are not in it, as for every prompt). A grammar
(llama.cpp converts the ``anyOf`` to alternatives) can then only produce a known tool with
arguments of the right shape. There is no ``thought`` field: a thought written before the
action made a small model copy the nearest example's tool, and one allowed after it changed no
outcome on the suite while the model filled it with noise (docs/local-model.md, "Constrained
steps"). A ``thought`` a model writes anyway (a prompted fallback) is shown in the log.

Dify turns ``boolean`` into ``string`` in a schema it sends natively (``convert_boolean_to_string``),
so a boolean argument may come back as ``"true"``; the tool call's validation reads it back as a
boolean (``tool_schema.coerce_value``).

Reading (``read_json_step_turn``): the reply's visible text (reasoning blocks go to the log) is
the step; the ``structured_output`` that Dify adds on its last chunk is used only when the text is
empty (Dify's parse repairs freely; ours follows ``json_args``' trust rule). The answer of a
``final_answer`` step streams to the user while it is decoded (``AnswerStream``), before the
object closes.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Collection, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.model.message import PromptMessageTool

from agent_core import prompts
from agent_core.answer_schema import answer_problem, answer_text, with_booleans
from agent_core.errors import error_text, shortened
from agent_core.json_args import (
    ArgumentsError,
    decode_arguments,
    dumps_arguments,
    loads_lenient,
    owed_closers,
    split_concatenated,
)
from agent_core.model_call import AssistantReply, ModelChunk, ModelTimeoutError, PastDeadlineError, note_usage
from agent_core.own_text import filled, own
from agent_core.reply_text import ReplyText
from agent_core.text_calls import arguments_for
from agent_core.think import ThinkSplitter, clean_reasoning
from agent_core.tool_calls import LENGTH_FINISH_REASONS, ToolCall
from agent_core.tool_schema import redacted_schema
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import call_usage

FINAL_ANSWER = "final_answer"
"""The ``action`` of a step that answers the user."""

_ANSWER_INPUT = {
    "type": "object",
    "properties": {"answer": {"type": "string", "minLength": 1, "description": "The answer to the user."}},
    "required": ["answer"],
}


def _branch(action: str, arguments: Mapping[str, Any], description: str = "") -> dict[str, Any]:
    """One complete step for ``action``: its name as a one-value enum, its own argument schema."""
    action_schema: dict[str, Any] = {"type": "string", "enum": [action]}
    if description:
        action_schema["description"] = description
    return {
        "type": "object",
        "properties": {
            "action": action_schema,
            "action_input": dict(arguments) or {"type": "object", "properties": {}},
        },
        "required": ["action", "action_input"],
    }


def _arguments_schema(tool: PromptMessageTool) -> dict[str, Any]:
    """The tool's argument schema as a closed object (``properties`` and ``required`` kept)."""
    parameters = tool.parameters if isinstance(tool.parameters, Mapping) else {}
    properties = parameters.get("properties") if isinstance(parameters.get("properties"), Mapping) else {}
    required = [name for name in parameters.get("required") or [] if name in properties]
    return {"type": "object", "properties": dict(properties), "required": required}


_HOISTED = ("$defs", "definitions")
"""Keys of the user's answer schema that ``$ref`` points into from the root (``#/$defs/...``):
kept at the step schema's root, where those references still resolve."""


def step_schema(
    tools: Sequence[PromptMessageTool], *, answer_only: bool = False, answer_schema: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON schema of one step for ``tools`` (``answer_only``: the final answer alone, for the
    round after the iteration or time limit). Shape: see the module docstring.

    ``answer_schema``: the user's JSON schema for the answer (``answer_schema.read_answer_schema``):
    the final answer's ``action_input`` is then a value of it, instead of ``{"answer": text}``;
    its ``$defs`` / ``definitions`` move to the root (``$ref`` paths start there) and its
    ``$schema`` is left out (a subschema carries none)."""
    offered = [] if answer_only else list(tools)
    names = [tool.name for tool in offered] + [FINAL_ANSWER]
    branches = [_branch(tool.name, _arguments_schema(tool)) for tool in offered]
    answer_input, hoisted = _answer_input(answer_schema)
    branches.append(_branch(FINAL_ANSWER, answer_input))
    loose_input = {"type": "object"} if answer_input.get("type", "object") == "object" else {}
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": names},
            "action_input": loose_input,
        },
        "required": ["action", "action_input"],
        "anyOf": branches,
        **hoisted,
    }


_STEP_KEYS = ("action", "action_input")
"""A step's keys, in the order the schema lists them under ``required``."""


def redacted_step_schema(schema: Any, redact: Callable[[str], str]) -> Any:
    """A ``step_schema`` as it is sent when the node has secrets: ``redact`` (``text -> text``)
    applied to every text in it that is not the plugin's own (the tools' names, their argument
    schemas, the user's answer schema and its ``$defs``, by ``tool_schema.redacted_schema``), the
    step's own grammar kept: its keys (``action``, ``action_input``, ``properties``,
    ``required``, ``anyOf``), ``final_answer`` and the default answer input. A secret that is a
    step key (``action``) renamed the step's fields, and a constrained model then wrote steps no
    reader takes. Only this shape is read as the plugin's: a key or value anywhere else, or one
    of another shape, is redacted as any other text."""
    return _redacted_step(schema, redact, branches=True)


def _redacted_step(node: Any, redact: Callable[[str], str], *, branches: bool) -> Any:
    """A step object's schema (the root, or one ``anyOf`` branch when ``branches`` is False)."""
    if not isinstance(node, Mapping):
        return redacted_schema(node, redact)
    out: dict[Any, Any] = {}
    for key, value in node.items():
        if key == "type" and value == "object":
            out[key] = value
        elif key == "required" and value == list(_STEP_KEYS):
            out[key] = list(value)
        elif key == "properties" and isinstance(value, Mapping) and all(k in _STEP_KEYS for k in value):
            out[key] = {name: (_redacted_action(item, redact) if name == "action" else _redacted_input(item, redact))
                        for name, item in value.items()}
        elif key == "anyOf" and branches and isinstance(value, list):
            out[key] = [_redacted_step(branch, redact, branches=False) for branch in value]
        else:
            out[redact(key) if type(key) is str else key] = redacted_schema(value, redact)
    return out


def _redacted_action(node: Any, redact: Callable[[str], str]) -> Any:
    """The ``action`` property's schema: ``final_answer`` kept in its enum, a tool's name redacted."""
    if not isinstance(node, Mapping):
        return redacted_schema(node, redact)
    out: dict[Any, Any] = {}
    for key, value in node.items():
        if key == "type" and value == "string":
            out[key] = value
        elif key == "enum" and isinstance(value, list):
            out[key] = [name if name == FINAL_ANSWER else redacted_schema(name, redact) for name in value]
        else:
            out[redact(key) if type(key) is str else key] = redacted_schema(value, redact)
    return out


def _redacted_input(node: Any, redact: Callable[[str], str]) -> Any:
    """The ``action_input`` property's schema: the default answer input kept, any other (a
    tool's arguments, the user's answer schema) redacted."""
    return dict(node) if node == _ANSWER_INPUT else redacted_schema(node, redact)


def _answer_input(answer_schema: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The final answer's ``action_input`` schema, and what moves to the step schema's root."""
    if not answer_schema:
        return dict(_ANSWER_INPUT), {}
    schema = {key: value for key, value in answer_schema.items() if key != "$schema" and key not in _HOISTED}
    return schema, {key: answer_schema[key] for key in _HOISTED if key in answer_schema}


def step_text(action: str, action_input: Mapping[str, Any]) -> str:
    """A step as the model should write it (one line of JSON), for prompts and the scratchpad:
    ``dumps_arguments({"action": action, "action_input": action_input})``, written by its parts
    so that the step's keys, ``final_answer`` and its ``answer`` key are marked as the plugin's
    own words (``own_text``; the tool's name and arguments and the answer's text are not)."""
    name = dumps_arguments(action)
    if action == FINAL_ANSWER:
        name = own(name)
    if action == FINAL_ANSWER and list(action_input) == ["answer"]:
        arguments = filled('{{"answer": {text}}}', text=dumps_arguments(action_input["answer"]))
    else:
        arguments = dumps_arguments(dict(action_input))
    return filled('{{"action": {name}, "action_input": {arguments}}}', name=name, arguments=arguments)


# --------------------------------------------------------------------------------------------
# Streaming the answer while it is decoded
# --------------------------------------------------------------------------------------------

_FINAL_ACTION = re.compile(r'"action"\s*:\s*"final_answer"')
_ACTION_GOES_ON = re.compile(r'\s*+(?::\s*+(?:"[a-z_]{0,12})?)?')
"""What may follow ``"action"`` in a text that ends before ``_FINAL_ACTION`` could match there."""
_ANSWER_KEY = re.compile(r'(?<!\\)"answer"\s*:\s*"')
_KEY_GOES_ON = re.compile(r"\s*+(?::\s*+)?")
"""What may follow ``"answer"`` in a text that ends before ``_ANSWER_KEY`` could match there."""
_OPENS_OBJECT = re.compile(r"\s*(?:```[\w-]*\s*)?\{")
"""The step's text begins one JSON object (after blank space and an opening code fence)."""
_MAY_OPEN_OBJECT = re.compile(r"\s*+(?:`{1,2}|```[\w-]*+\s*+)?")
"""A text that does not begin one JSON object yet but may, once more of it comes."""


def opens_object(text: str) -> bool:
    """Whether ``text`` begins one JSON object (after blank space and an opening code fence):
    a reply meant as a JSON step, the only kind whose answer streams."""
    return _OPENS_OBJECT.match(text) is not None


_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_START, _ACTION, _KEY, _ANSWER, _REFUSED = range(5)
"""``AnswerStream``'s stages: the step's start is read, then ``"action": "final_answer"``, then the
``"answer"`` key is looked for, then the answer decoded; or the text opens no object."""


class AnswerStream:
    """Feed the step's text as it arrives; get the ``answer`` string's new characters, decoded.

    Streams only when the text begins one JSON object and has named ``"action": "final_answer"``
    before an ``"answer"`` key (a thought is a JSON string, so its quotes are escaped and cannot
    match); a step inside a list or after prose is refused, so its answer is never shown. An escape split
    across chunks (``\\u00``, a surrogate pair's first half) waits for the rest.

    Linear in the text: each search goes on from where a match could still start (a text searched
    again whole at every chunk cost its length squared over a long thought or a long tool input).
    """

    def __init__(self, *, streams: bool = True) -> None:
        """``streams`` False: the text is only gathered (an answer in the user's schema is shown
        once read whole)."""
        self.closed = not streams
        self._pieces: list[str] = []
        self._streamed: list[str] = []
        self._blanks: list[str] = []  # blank pieces not yet added to the window
        self._stage = _START
        self._window = ""  # the text still read: from where a match may start, or the answer's undecoded end
        self._from = 0  # where in the window the next search starts

    @property
    def text(self) -> str:
        """The step's text fed so far."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    @property
    def streamed(self) -> str:
        """The answer's text given so far."""
        return "".join(self._streamed)

    def feed(self, piece: str) -> str:
        """Consume ``piece`` of the step's visible text; return answer text not given before."""
        self._pieces.append(piece)
        if self.closed or self._stage == _REFUSED:
            return ""
        if self._stage != _ANSWER and (not piece or piece.isspace()):
            self._blanks.append(piece)  # blank space completes no match: searched with what follows it
            return ""
        if self._stage == _START:
            text = self.text
            if not _OPENS_OBJECT.match(text):  # a list, or prose: refused, never streamed
                self._stage = _START if _MAY_OPEN_OBJECT.fullmatch(text) else _REFUSED
                return ""
            self._stage, self._window, self._from = _ACTION, text, 0
        elif self._blanks:
            self._window = "".join((self._window, *self._blanks, piece))
        else:
            self._window += piece
        self._blanks = []
        if self._stage == _ACTION and not self._found(_FINAL_ACTION, '"action"', _ACTION_GOES_ON):
            return ""
        if self._stage == _KEY and not self._found(_ANSWER_KEY, '"answer"', _KEY_GOES_ON):
            return ""
        decoded, at, self.closed = _decode_string(self._window, 0)
        self._window = self._window[at:]
        self._streamed.append(decoded)
        return decoded

    def _found(self, pattern: re.Pattern, head: str, goes_on: re.Pattern) -> bool:
        """Search the window for ``pattern`` (beginning with ``head``, ``goes_on`` what may follow
        it in a text ending before a match): found, keep the window after it and go to the next
        stage; not found, keep it from where a match may still start (a ``head`` the text may yet
        complete into a match, or the last characters that may begin one), and one character
        before that (a look-behind)."""
        window = self._window
        found = pattern.search(window, self._from)
        if found:
            self._stage += 1
            self._window, self._from = window[found.end() :], 0
            return True
        last = window.rfind(head, self._from)
        may_start = last if last >= 0 and goes_on.fullmatch(window, last + len(head)) else len(window) - len(head) + 1
        may_start = max(may_start, self._from)
        self._window, self._from = window[may_start - 1 :] if may_start else window, 1 if may_start else 0
        return False


def _decode_string(text: str, start: int) -> tuple[str, int, bool]:
    """Decode a JSON string body from ``start`` as far as it is certain: (text, where decoding
    stopped, whether the closing quote was reached)."""
    out: list[str] = []
    i = start
    while i < len(text):
        char = text[i]
        if char == '"':
            return "".join(out), i + 1, True
        if char != "\\":
            end = i + 1
            while end < len(text) and text[end] not in '"\\':
                end += 1
            out.append(text[i:end])
            i = end
            continue
        if i + 1 >= len(text):
            break
        kind = text[i + 1]
        if kind in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[kind])
            i += 2
            continue
        if kind != "u":  # not JSON: kept as written (the final decode judges the whole step)
            out.append(text[i : i + 2])
            i += 2
            continue
        decoded, length = _unicode_escape(text, i)
        if not length:
            break
        out.append(decoded)
        i += length
    return "".join(out), i, False


_HIGH_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_LOW_SURROGATE_ESCAPE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_UNICODE_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}")


def _unicode_escape(text: str, i: int) -> tuple[str, int]:
    """The ``\\uXXXX`` escape at ``text[i]``: (decoded text, characters used), ``("", 0)`` when
    the text ends before it is complete. A surrogate pair is decoded as one character; a lone
    high surrogate becomes U+FFFD; a malformed escape is kept as written."""
    if i + 6 > len(text):
        return "", 0
    if not _UNICODE_ESCAPE.match(text, i):
        return text[i : i + 6], 6
    if not _HIGH_SURROGATE_ESCAPE.match(text, i):
        return chr(int(text[i + 2 : i + 6], 16)), 6
    if i + 12 > len(text):
        return "", 0
    if not _LOW_SURROGATE_ESCAPE.match(text, i + 6):
        return "\ufffd", 6
    high, low = int(text[i + 2 : i + 6], 16), int(text[i + 8 : i + 12], 16)
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), 12


# --------------------------------------------------------------------------------------------
# Reading one step
# --------------------------------------------------------------------------------------------


_FINAL_NAME = re.compile(r"final[\s_\-]*answer", re.I)
"""An ``action`` that names the final answer as text steps do (``Final Answer``), read as
``final_answer`` unless a node tool has that name."""


def _decide(
    step: Mapping[str, Any], tools: Mapping[str, PromptMessageTool], call_id: str, answer_schema: Mapping[str, Any] | None
):
    """A decoded step as a decision: ``FinalAnswer``, ``ToolCalls`` or ``ParseFailure``."""
    action = step.get("action")
    action_input = step.get("action_input")
    if not isinstance(action, str) or not action.strip():
        return ParseFailure(prompts.JSON_STEP_NO_ACTION)
    action = action.strip()
    if action not in tools and _FINAL_NAME.fullmatch(action):  # LangChain's "Final Answer", "Final-Answer"
        action = FINAL_ANSWER
    if action == FINAL_ANSWER and answer_schema:
        return _schema_answer(action_input, answer_schema)
    if action == FINAL_ANSWER:
        answer = action_input
        if isinstance(action_input, Mapping) and "answer" in action_input:
            answer = action_input["answer"]
        if not isinstance(answer, str) and answer not in (None, {}, []):
            answer = answer_text(answer)  # a JSON value the model answered with, shown as JSON
        if not isinstance(answer, str) or not answer.strip():
            return ParseFailure(prompts.PROBLEM_EMPTY_ANSWER)
        return FinalAnswer(answer)
    if isinstance(action_input, str) and action_input.strip()[:1] == "{":
        with contextlib.suppress(ArgumentsError):  # a string stays a string: the single parameter's
            action_input = decode_arguments(action_input)
    arguments = arguments_for(action_input, tools.get(action))
    return ToolCalls((ToolCall(id=call_id, name=action, arguments=arguments),))


def _schema_answer(action_input: Any, answer_schema: Mapping[str, Any]) -> FinalAnswer | ParseFailure:
    """A final answer in the user's schema: ``action_input`` itself (booleans Dify sent as strings
    read back), shown as JSON text; a ``ParseFailure`` when it does not follow the schema, with
    the text as what the run answers if the model keeps failing so."""
    if isinstance(action_input, str) and action_input.strip()[:1] in ("{", "["):
        with contextlib.suppress(ArgumentsError):
            action_input = loads_lenient(action_input)
    value = with_booleans(action_input, answer_schema)
    if problem := answer_problem(value, answer_schema):
        fallback = action_input if isinstance(action_input, str) else answer_text(action_input)
        return ParseFailure(prompts.ANSWER_NOT_IN_SCHEMA.format(problem=problem), fallback=fallback)
    return FinalAnswer(answer_text(value))


def several_steps(text: str, tools: Sequence[PromptMessageTool], round_index: int) -> ToolCalls | None:
    """The calls of a reply (its visible ``text``) that wrote several whole JSON steps one after
    another (``{"action": "search", ...}{"action": "search", ...}``: a model that ignores the
    one-step schema, in a prompted fallback), each naming one of ``tools``, as one round of calls
    in order (ids ``react-<round>-<n>``), as text steps run several actions; None for any other
    text (a final answer among them, a step naming no tool, anything between them): that reply
    stays refused with the reason."""
    pieces = split_concatenated(text) if text.startswith("{") else None
    if not pieces:
        return None
    named = {tool.name: tool for tool in tools}
    calls: list[ToolCall] = []
    for number, piece in enumerate(pieces, start=1):
        action = piece.get("action") if isinstance(piece, Mapping) else None
        if not isinstance(action, str) or action.strip() not in named:
            return None
        decided = _decide(piece, named, f"react-{round_index}-{number}", None)
        if not isinstance(decided, ToolCalls):
            return None
        calls.extend(decided.calls)
    return ToolCalls(tuple(calls))


def parse_step(text: str, structured_output: Any) -> Mapping[str, Any] | ParseFailure:
    """One reply's step: its visible ``text`` decoded (``json_args`` rules: fences and Python
    literals read, a lossy repair refused), or Dify's ``structured_output`` when the text is
    empty; a ``ParseFailure`` naming what is wrong otherwise."""
    if text.strip():
        try:
            return decode_arguments(text)
        except ArgumentsError as error:
            return ParseFailure(prompts.JSON_STEP_UNREADABLE.format(problem=str(error).rstrip(".")))
    if isinstance(structured_output, Mapping) and structured_output:
        return structured_output
    return ParseFailure(prompts.PROBLEM_EMPTY)


def read_step(
    step: Mapping[str, Any],
    tools: Sequence[PromptMessageTool],
    call_id: str,
    answer_schema: Mapping[str, Any] | None = None,
):
    """The decision of a decoded step: ``FinalAnswer``, ``ToolCalls`` (one call, id ``call_id``;
    an unknown tool or bad arguments are judged when the call is checked, like any call) or
    ``ParseFailure`` when it names no action or gives an empty answer. With the user's
    ``answer_schema``, a final answer is its ``action_input`` as JSON text, and one whose top level
    breaks the schema (``answer_schema.answer_problem``) is a ``ParseFailure``."""
    return _decide(step, {tool.name: tool for tool in tools}, call_id, answer_schema)


_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.S)
_SCALAR = re.compile(r"[^,}\]\s]*+")
_BLANK = re.compile(r"\s*+")
_FENCE_OPEN = re.compile(r"\s*+(?:```[\w-]*+\s*+)?\{")


def _value_end(text: str, i: int) -> int:
    """Where the JSON value at ``text[i]`` ends (the index after it), ``-1`` when the text ends
    inside it. Strings are read with their escapes, objects and arrays by their brackets."""
    if text.startswith('"', i):
        found = _STRING.match(text, i)
        return found.end() if found else -1
    if text[i : i + 1] not in ("{", "["):
        return _SCALAR.match(text, i).end() if i < len(text) else -1
    depth = 0
    while i < len(text):
        char = text[i]
        if char == '"':
            found = _STRING.match(text, i)
            if not found:
                return -1
            i = found.end()
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if not depth:
                return i + 1
        i += 1
    return -1


def _members(text: str, i: int) -> Iterator[tuple[str, int, int]]:
    """The members of the JSON object whose ``{`` is at ``text[i - 1]``, in order, as (key,
    where its value starts, where it ends: ``-1`` when the text ends inside it), up to the end of
    the object or of the text."""
    while True:
        i = _BLANK.match(text, i).end()
        key = _STRING.match(text, i)
        if not key:
            return
        i = _BLANK.match(text, key.end()).end()
        if not text.startswith(":", i):
            return
        start = _BLANK.match(text, i + 1).end()
        if start >= len(text):
            return
        end = _value_end(text, start)
        with contextlib.suppress(ValueError):
            yield json.loads(key.group()), start, end
        if end < 0:
            return
        i = _BLANK.match(text, end).end()
        if not text.startswith(",", i):
            return
        i += 1


def _string_read(text: str, start: int, end: int) -> tuple[str, bool] | None:
    """The JSON string value at ``text[start:end]`` (``end`` ``-1``: cut inside it) decoded as far
    as it is certain, and whether it closed; None when the value is no string."""
    if not text.startswith('"', start):
        return None
    decoded, _, closed = _decode_string(text, start + 1)
    return decoded, closed


def cut_answer(text: str, tool_names: Collection[str]) -> tuple[str, bool] | None:
    """The answer of a step the output limit cut (``text``: the reply's visible text), read as far
    as it goes: (the answer's text decoded so far, whether its string had closed before the cut),
    or None when ``text`` is no final-answer step whose answer had begun.

    Reads the layouts a whole step is read in (``read_step``): the ``action`` ``final_answer``,
    or a name for it as text steps write it (``Final Answer``) unless a node tool
    (``tool_names``) has that name; its ``action_input`` a string, or an object whose
    ``"answer"`` is one. The ``action`` must be complete (a step cut inside it, or before it,
    names no action) and the step one JSON object (after an opening code fence). Linear in the
    text; read once, at the cut."""
    opened = _FENCE_OPEN.match(text)
    if not opened:
        return None
    action = answer = None
    for key, start, end in _members(text, opened.end()):
        if key == "action" and end > 0:
            read = _string_read(text, start, end)
            action = read[0].strip() if read else None
        elif key == "action_input":
            answer = _string_read(text, start, end)
            if answer is None and text.startswith("{", start):
                found = (_string_read(text, s, e) for k, s, e in _members(text, start + 1) if k == "answer")
                answer = next(found, None)
    if action is None or not answer or not answer[0].strip():
        return None
    if action == FINAL_ANSWER or (action not in tool_names and _FINAL_NAME.fullmatch(action)):
        return answer
    return None


_STRING_BODY = json.JSONDecoder(strict=False)
"""Reads a JSON string's body put between quotes (a line break written as is kept)."""


def continued_string(cut: str, rest: str) -> str | None:
    """The rest of an answer whose JSON step the output limit cut inside its string (``cut``: the
    cut reply's visible text), when the model's continuation (``rest``, as the text reader read
    it) goes on inside that string and ends by closing what the cut left open: that closing
    stripped (``"}}``, ``"}``, with blanks between, and a closing code fence when the cut opened
    one) and the string's escapes decoded (an escape the cut split in two joined first); None
    when ``rest`` does not end so, or its body is no JSON string's (it is then shown as written).

    ``'{"action": "final_answer", "action_input": {"answer": "Paris is the capi'`` and
    ``'tal of \\"France\\"."}}'`` -> ``'tal of "France".'``. Linear in both texts."""
    opened = _FENCE_OPEN.match(cut)
    if not opened:
        return None
    owed = owed_closers(cut[opened.end() - 1 :])
    if not owed or owed[0] != '"':
        return None
    end = len(rest.rstrip())
    if cut.lstrip().startswith("```") and rest.endswith("```", 0, end):
        end = len(rest[: end - 3].rstrip())
    for closer in reversed(owed):
        if not end or rest[end - 1] != closer:
            return None
        end -= 1
        while closer != '"' and end and rest[end - 1].isspace():
            end -= 1
    string = '"' + _pending_escape(cut) + rest[:end] + '"'
    try:
        decoded, read = _STRING_BODY.raw_decode(string)
    except ValueError:
        return None
    return decoded if read == len(string) else None  # a quote of its own inside: the string had closed


def _pending_escape(text: str) -> str:
    """The escape ``text`` ends inside (``\\``, ``\\u00``), which a reader of its string left for
    the rest; ``""`` when it ends after a whole character."""
    at = text.rfind("\\", max(0, len(text) - 6))
    if at < 0:
        return ""
    run = at - len(text[:at].rstrip("\\"))  # backslashes right before it: an even run escapes none
    tail = text[at + 1 :]
    if run % 2 or not (tail == "" or (tail[:1] == "u" and len(tail) <= 4)):
        return ""
    return text[at:]


def read_json_step_turn(
    chunks: Iterator[ModelChunk],
    tools: Sequence[PromptMessageTool],
    round_index: int,
    answer_schema: Mapping[str, Any] | None = None,
) -> Generator[str, None, ModelTurn]:
    """Consume one structured-output call; yield the answer's text as it is decoded; return the
    turn. A reply cut by the output limit runs nothing: a cut answer is what was read of it
    (streamed, or read at the cut by ``cut_answer`` and yielded then; the loop asks for the rest
    unless its string had closed: ``ModelTurn.answer_whole``, as for a step read whole), anything
    else is asked again (``prompts.REPLY_CUT``). With the user's ``answer_schema`` the answer is
    yielded once the step is read, as JSON text (``read_step``)."""
    splitter = ThinkSplitter()
    answer = AnswerStream(streams=answer_schema is None)
    reply = AssistantReply()
    usages: list[LLMUsage] = []
    reasoning: list[str] = []
    structured_output: Any = None
    finish_reason: str | None = None
    content = ReplyText()  # \r\n line ends, a byte order mark at the start
    for chunk in chunks:
        reply.add(chunk)
        split = splitter.feed(content.feed(chunk.text))
        reasoning += [chunk.reasoning, split.reasoning]
        if text := answer.feed(split.visible):
            yield text
        if chunk.usage is not None or chunk.call_usage is not None:
            note_usage(chunk, usages)
        if chunk.structured_output is not None:
            structured_output = chunk.structured_output
        finish_reason = chunk.finish_reason or finish_reason
    rest = splitter.finish()
    reasoning.append(rest.reasoning)
    if text := answer.feed(rest.visible):
        yield text
    raw = answer.text.strip()
    step = parse_step(raw, structured_output)
    decision = step if isinstance(step, ParseFailure) else read_step(step, tools, f"react-{round_index}-1", answer_schema)
    # a step read whole ended before the output limit fell: its answer is complete
    at_limit = (finish_reason or "").lower() in LENGTH_FINISH_REASONS
    if isinstance(decision, ParseFailure) and not at_limit and (several := several_steps(raw, tools, round_index)):
        decision = several
    whole = at_limit and isinstance(decision, FinalAnswer)
    if isinstance(decision, ParseFailure) and at_limit:
        # cut by the output limit: nothing runs; an answer goes on from what was read of it
        decision, whole = _cut_decision(raw, answer, tools, answer_schema)
    tail = decision.text[len(answer.streamed) :] if isinstance(decision, FinalAnswer) else ""
    if tail and decision.text.startswith(answer.streamed):
        yield tail  # not streamed: no text (Dify's structured_output), or an unusual layout
    thought = step.get("thought") if isinstance(step, Mapping) else None
    return ModelTurn(
        thought=thought if isinstance(thought, str) else "",
        decision=decision,
        usage=call_usage(usages),
        reasoning=clean_reasoning("".join(reasoning)),
        finish_reason=finish_reason,
        raw=raw,
        content=reply.content,
        opaque_body=reply.opaque_body,
        answer_whole=whole,
    )


def _cut_decision(
    raw: str, answer: AnswerStream, tools: Sequence[PromptMessageTool], answer_schema: Mapping[str, Any] | None
) -> tuple[FinalAnswer | ParseFailure, bool]:
    """The decision of a step the output limit cut, and whether its answer is whole: the answer
    read so far (what was streamed of it, or ``cut_answer``'s reading of another layout: a
    ``Final Answer`` action, a string ``action_input``), whole when its string had closed before
    the cut; ``prompts.REPLY_CUT`` for anything else (a tool's step is never run). An answer in
    the user's ``answer_schema`` is not read in part: it is a JSON value, not a string, and the
    request for its rest carries the same step schema, whose final-answer branch asks for a whole
    value of the user's schema, so no continuation could be its rest (two values do not join into
    one); the model is asked again for a shorter step instead."""
    if answer.streamed.strip():
        return FinalAnswer(answer.streamed), answer.closed
    read = None if answer_schema else cut_answer(raw, {tool.name for tool in tools})
    if read is None:
        return ParseFailure(prompts.REPLY_CUT), False
    return FinalAnswer(read[0]), read[1]


class GuardedChunks:
    """A structured-output call's chunks, with its failures sorted out:

    * a failure before any chunk (Dify or the model plugin refused the schema call itself):
      the stream ends, ``unavailable`` holds the error text, and the run can go on in text steps;
    * a failure after chunks came (Dify could not parse the reply on its last chunk, or the
      stream broke): the stream ends there, and the reply read so far is judged like any other;
      ``interrupted`` holds the error text, for the model and the log;
    * a model that goes silent (``ModelTimeoutError``), or the run's deadline
      (``PastDeadlineError``), fails the call as usual.
    """

    def __init__(self, chunks: Iterator[ModelChunk]) -> None:
        self._chunks = chunks
        self.unavailable: str | None = None
        self.interrupted: str | None = None

    def explained(self, turn: ModelTurn) -> ModelTurn:
        """``turn``, its failure saying why the reply broke off when it did (the error shortened:
        ``errors.shortened``), so that the model and the log know."""
        if self.interrupted is None or not isinstance(turn.decision, ParseFailure):
            return turn
        problem = prompts.STEP_INTERRUPTED.format(error=shortened(self.interrupted), problem=turn.decision.problem)
        return replace(turn, decision=replace(turn.decision, problem=problem))

    def __iter__(self) -> Iterator[ModelChunk]:
        received = False
        try:
            for chunk in self._chunks:
                received = True
                yield chunk
        except (ModelTimeoutError, PastDeadlineError):
            raise
        except Exception as error:  # the daemon's error event, raised by the SDK's reader
            if not received:
                self.unavailable = error_text(error)
            else:
                self.interrupted = error_text(error)
