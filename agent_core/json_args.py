"""Lenient decoding of tool-call arguments, and splitting of glued JSON objects.

Models and provider bridges send arguments in many shapes (all seen in
``/work/shared/cases/real_world_cases.jsonl``):

* a JSON object as text, ``'{"city": "Paris"}'`` (OpenAI and most providers);
* an already parsed object, ``{"city": "Paris"}`` (ollama8337, smolagents1003);
* JSON text encoding a JSON string, ``'"{\\"city\\": \\"Paris\\"}"'`` (smolagents1003);
* ``''`` for a call without arguments (camel4338);
* almost-JSON: single quotes, trailing commas, ``None``/``True``/``False``,
  invalid escapes such as ``\\_``, code fences, leaked special tokens such as
  ``<|eot_id|>`` (deepseekv3-826);
* several objects glued into one buffer, ``'{..}{..}'`` (hermes25333, hermes62937);
* truncated text, ``'{"city": "San Fra'`` (camel4338).

Rules: strict ``json.loads`` first; then repair with ``json_repair``, but never
on truncated text (executing a tool with a half-written value is worse than
asking again), and never turning garbage into ``{}``. Whatever cannot be
recovered raises :class:`ArgumentsError`, whose message is written for the
model (it becomes part of ``prompts.INVALID_ARGUMENTS``).
"""

import json
import re
from collections.abc import Mapping
from typing import Any

import json_repair

from agent_core.prompts import MSG_NOT_JSON, MSG_NOT_OBJECT, MSG_SEVERAL_OBJECTS, MSG_TRUNCATED

MAX_NESTED_ENCODING = 3
"""How many times a JSON string holding JSON is unwrapped (double encoding)."""

MAX_LISTED_CLOSERS = 4
"""Missing closing brackets named in a truncation message; the rest are counted."""

SPECIAL_TOKEN = re.compile(r"<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>|\[TOOL_CALLS\]")
"""Leaked chat-template tokens: ``<|eot_id|>``, ``<|im_end|>``, ``<|python_tag|>``,
DeepSeek's full-width ``<｜end▁of▁sentence｜>`` and Mistral's ``[TOOL_CALLS]``."""

_FENCE = re.compile(r"^```[\w+-]*[ \t]*\n?(.*?)\n?```$", re.DOTALL)
_LOSSY_REPAIRS = (
    "missed the closing quote",
    "Stopping here",
    "stopping here",
    "Parsed object is empty",
    "missed a : after a key",
    "stray }",
    "stray ]",
)
"""``json_repair`` log texts (json-repair 0.64.6, pinned in requirements.txt) of
repairs that guessed where a value ends or invented one; their results are not
trusted: ``{"a": tru}`` -> ``{"a": "tru"}``, ``{"q" 1}`` -> ``{"q": ""}``."""



class ArgumentsError(ValueError):
    """Arguments that cannot be turned into a JSON object.

    ``str(error)`` is model-facing: short, says what is wrong and where.
    ``truncated`` is True when the text stops inside a string or before its
    brackets close, so the caller can say "cut by the length limit" when the
    model's ``finish_reason`` was ``length`` (and only then: hermes83229);
    ``detail`` is the bare description (``"unterminated string starting at
    character 9"``) for callers that word the message themselves.
    """

    def __init__(self, message: str, *, truncated: bool = False, detail: str = "") -> None:
        super().__init__(message)
        self.truncated = truncated
        self.detail = detail or message


def strip_noise(text: str) -> str:
    """Remove special tokens and one surrounding code fence; trim whitespace.

    ``'```json\\n{"a": 1}\\n```'`` -> ``'{"a": 1}'``; ``'{"a": 1}<|eot_id|>'`` -> ``'{"a": 1}'``.
    """
    text = SPECIAL_TOKEN.sub("", text).strip().lstrip("\ufeff")
    fenced = _FENCE.match(text)
    return fenced.group(1).strip() if fenced else text


_STRUCTURE = re.compile(
    r""" "(?:[^"\\]|\\.)*" | '(?:[^'\\]|\\.)*'   # closed strings, escapes honoured
       | (?P<open>["'])                             # a quote that is never closed
       | [{}\[\]] """,
    re.VERBOSE | re.DOTALL,
)


def unclosed(text: str) -> str | None:
    """Why ``text`` looks cut off (an open string or bracket at its end), else None.

    Strings may use ``"`` or ``'`` (Python-style arguments); escapes are honoured.
    A closing bracket that does not match means malformed, not cut off: None.
    ``'{"city": "San Fra'`` -> ``'unterminated string starting at character 9'``.
    """
    stack: list[str] = []
    for token in _STRUCTURE.finditer(text):
        value = token.group()
        if token.group("open"):
            return f"unterminated string starting at character {token.start()}"
        if value in ("{", "["):
            stack.append("}" if value == "{" else "]")
        elif value in ("}", "]") and (not stack or stack.pop() != value):
            return None  # a wrong closer: malformed, not cut off
    if not stack:
        return None
    closers = " ".join(repr(c) for c in reversed(stack[-MAX_LISTED_CLOSERS:]))
    more = f" and {len(stack) - MAX_LISTED_CLOSERS} more" if len(stack) > MAX_LISTED_CLOSERS else ""
    return f"missing closing {closers}{more} at the end"


def loads_lenient(text: str) -> Any:
    """Decode JSON ``text``, repairing common model mistakes.

    Strict ``json.loads`` first, then the same after :func:`strip_noise`, then
    ``json_repair`` (single quotes, trailing commas, Python literals, invalid
    escapes, an unquoted word such as hermes83229's ``{"action": listt_windows"}``).
    Objects glued together (``'{..}{..}'``) come back as a list of them.
    Truncated text (camel4338 ``'{"city": "San Fra'``) and text that does not
    start like a JSON object or array are not repaired.

    Raises:
        ArgumentsError: nothing sensible can be recovered; ``truncated`` tells
            whether the text stops early.
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    cleaned = strip_noise(text)
    if not cleaned:
        raise ArgumentsError(MSG_NOT_JSON.format(detail="the text is empty"))
    try:
        return json.loads(cleaned)
    except (ValueError, RecursionError) as error:
        if _ends_early(error, cleaned):
            raise _truncated(cleaned) from None
        first_error = error
    glued = split_concatenated(cleaned)
    if glued is not None:
        return glued  # json_repair would merge them into one object
    cut = unclosed(cleaned)
    if cut and not cut.startswith("unterminated"):
        raise _truncated(cleaned)  # brackets left open: the rest of the value is missing
    if cleaned[0] not in "{[":
        raise ArgumentsError(MSG_NOT_JSON.format(detail=_describe(first_error)))
    try:
        return _repair(cleaned, first_error)
    except ArgumentsError:
        if cut:  # an odd quote may be a typo (hermes83229); when repair fails it is a cut
            raise _truncated(cleaned) from None
        raise


def _ends_early(error: Exception, text: str) -> bool:
    """True when strict decoding failed only because the text ran out."""
    if not isinstance(error, json.JSONDecodeError):
        return False
    return error.msg.startswith("Unterminated string") or error.pos >= len(text)


def _truncated(text: str) -> ArgumentsError:
    detail = unclosed(text) or "the text ends before the JSON value is complete"
    return ArgumentsError(MSG_TRUNCATED.format(detail=detail), truncated=True, detail=detail)


def _repair(cleaned: str, first_error: Exception) -> Any:
    """``json_repair`` with a sanity check of its result."""
    failure = ArgumentsError(MSG_NOT_JSON.format(detail=_describe(first_error)))
    try:
        value, log = json_repair.repair_json(cleaned, return_objects=True, logging=True)
    except Exception as error:  # a third-party parser: any failure means "unrecoverable"
        raise failure from error
    try:
        trusted = _trusted_repair(cleaned, value, log)
    except RecursionError:
        trusted = False
    if not trusted:
        raise failure
    return value


def _trusted_repair(cleaned: str, value: Any, log: list[Any]) -> bool:
    notes = [str(entry.get("text", "")) if isinstance(entry, dict) else str(entry) for entry in log]
    lossy = any(marker in note for note in notes for marker in _LOSSY_REPAIRS)
    if lossy or not isinstance(value, dict | list):
        return False
    if not value and re.sub(r"[\s{}\[\],]", "", cleaned):
        return False  # garbage must never become {} (hermes25333)
    # an invented value: {"a": } -> {"a": ""}
    return not (_has_empty_string(value) and '""' not in cleaned and "''" not in cleaned)


def _has_empty_string(value: Any) -> bool:
    if isinstance(value, str):
        return not value
    if isinstance(value, dict):
        return any(_has_empty_string(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_empty_string(item) for item in value)
    return False


def _describe(error: Exception) -> str:
    """``json.JSONDecodeError`` -> ``"Expecting ':' delimiter at character 4"``."""
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at character {error.pos}"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return type(error).__name__


def split_concatenated(text: str) -> list[Any] | None:
    """Split JSON objects written one after another into a list.

    ``'{"a": 1}{"a": 2}'`` and ``'{"a": 1}\\n {"a": 2}'`` -> ``[{"a": 1}, {"a": 2}]``
    (hermes25333, hermes62937: parallel calls glued into one buffer). Returns
    None unless the whole text is at least two strict JSON objects separated
    only by whitespace: a single object, a truncated tail or anything between
    the objects means "not a clean concatenation".
    """
    decoder = json.JSONDecoder()
    objects: list[Any] = []
    position, end = 0, len(text)
    while True:
        while position < end and text[position].isspace():
            position += 1
        if position == end:
            break
        if text[position] != "{":
            return None
        try:
            value, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return None
        objects.append(value)
    return objects if len(objects) >= 2 else None


def decode_arguments(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Arguments of one tool call as a dict.

    ``None``, ``''``, ``'null'``, a lone special token -> ``{}`` (camel4338: tools without parameters);
    a mapping -> a dict copy (ollama8337); a JSON object text -> the object;
    a JSON string holding an object (double encoding) -> the object
    (smolagents1003).

    Raises:
        ArgumentsError: not JSON, truncated, or JSON that is not an object
            (glued objects get their own message: use :func:`split_concatenated`
            first to turn them into several calls).
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ArgumentsError(MSG_NOT_OBJECT.format(kind=_kind(raw)))
    if not strip_noise(raw):
        return {}
    value: Any = loads_lenient(raw)
    for _ in range(MAX_NESTED_ENCODING - 1):
        if not isinstance(value, str):
            break
        value = _unwrap(value)
    return _as_object(value, raw)


def _unwrap(text: str) -> Any:
    """The JSON inside a JSON string (double encoding); a plain string stays one."""
    if not text.strip():
        return None
    try:
        return loads_lenient(text)
    except ArgumentsError as error:
        if error.truncated:
            raise
        return text


def _as_object(value: Any, raw: str) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    pieces = split_concatenated(strip_noise(raw))
    if pieces:
        raise ArgumentsError(MSG_SEVERAL_OBJECTS.format(count=len(pieces)))
    raise ArgumentsError(MSG_NOT_OBJECT.format(kind=_kind(value)))


def _kind(value: Any) -> str:
    """A JSON-ish name for the type of ``value``, with an article."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a {type(value).__name__}"
