"""Every line the plugin writes fits the daemon.

The daemon reads a local plugin's stdout line by line with a 5 MiB buffer and kills the
process on a longer line (``dify-plugin-daemon``, ``internal/core/local_runtime``), ending
every session it serves. A line is one JSON message: a text chunk, a log node, a backwards
model or tool request. Sizes here are bytes of that JSON (UTF-8; a control character costs
six bytes as ``\\u00XX``), with room left for the envelope around the payload.

Pure functions; the loop and the log tree apply them.
"""

import json
from typing import Any

from pydantic_core import to_json

from agent_core.fairness import give_way, paced
from agent_core.json_args import PLAIN_SCALARS, too_deep, without_lone_surrogates

DAEMON_LINE_BYTES = 5 * 1024 * 1024
"""The daemon's limit for one stdout line (bytes)."""

LOG_DATA_BYTES = 1024 * 1024
"""Most one log node's ``data`` may take once encoded (bytes); longer texts in it are cut
with a note (the full text stays where it belongs: the chat, the CALL node, the model)."""

TEXT_PIECE_CHARS = 32 * 1024
"""Longest text message (characters): at most 6 bytes each once encoded, far below the limit."""

REQUEST_BYTES = 3 * 1024 * 1024
"""Most one backwards model request's prompt may take once encoded (bytes): past it, history
is dropped and observations are shortened."""

REQUEST_LINE_MAX_BYTES = DAEMON_LINE_BYTES - 512 * 1024
"""Most a model request's prompt and tools may take when nothing is left to trim (the query,
the instruction, the knowledge context, the tool declarations, this run's own replies): a
larger request is not sent (the daemon would kill the plugin) and the run ends saying why."""

TOOL_DECLARATION_BYTES = REQUEST_LINE_MAX_BYTES // 4
"""Most one tool's declaration (its name, description and parameters as the model reads them)
may take once encoded (bytes): a larger one would leave the request little room or none, so the
tool is left out of the run at its start (``tool_schema.ToolRegistry``) and the run goes on with
the others."""

TOOL_ARGUMENTS_BYTES = 1024 * 1024
"""Most a tool call's arguments may take once encoded; a larger call is refused with the reason
(its request line, and the next model request that repeats it, must fit the daemon)."""

TOOL_REQUEST_BYTES = REQUEST_LINE_MAX_BYTES
"""Most a backwards tool request's body (provider, tool name, credential id and every parameter,
the values the user set in the node included) may take once encoded; a larger call is not sent
(the daemon would kill the plugin) and the model is told why."""

LABEL_CHARS = 200
"""Longest log label (a ``CALL`` node names the tool the model asked for, which may be anything)."""


def label_shortened(text: str) -> str:
    """``text`` (a tool name the model wrote, any size) as the log shows it: itself when it has at
    most ``LABEL_CHARS`` characters, else its first ``LABEL_CHARS - 1`` and "…"."""
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


MAX_LOG_DEPTH = 64
"""Deepest nesting of a log node's data; deeper parts are replaced by a note. pydantic-core,
which the SDK writes every line with, refuses data nested about 255 levels deep (the whole
line), and that error would end the run."""

_DEPTH_NOTE = "[nested more than {limit} levels deep: not shown]"

_SHORT = 256
"""Strings up to this many characters are never cut."""

_CUT_NOTE = "\n[... {cut} more characters not shown here: a log entry is limited to {limit} bytes]"


def encoded_size(value: Any) -> int:
    """Bytes of ``value`` as compact JSON, as the SDK writes it (UTF-8, not ASCII-escaped)."""
    return len(_COMPACT.encode(value).encode())


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""``json.dumps`` with those settings, without building an encoder for each value."""


def text_pieces(text: str, size: int = TEXT_PIECE_CHARS) -> list[str]:
    """``text`` in pieces of at most ``size`` characters (one piece when it is short)."""
    if len(text) <= size:
        return [text]
    return [text[start : start + size] for start in range(0, len(text), size)]


def fit(data: Any, limit: int = LOG_DATA_BYTES) -> Any:
    """``data`` (JSON-like: dicts, lists, strings, numbers) made to encode in at most ``limit``
    bytes by cutting every string longer than one common length (the largest that fits), each
    with a note saying how much was cut, so every long text keeps a fair share. Data the SDK's
    encoder cannot write at all is made writable first: parts nested deeper than
    ``MAX_LOG_DEPTH`` become a note, a lone surrogate becomes U+FFFD. Returns ``data`` itself
    when it already fits; never mutates it."""
    try:  # _json_size inline: fit runs for every log node's data
        size: int | None = len(to_json(data, fallback=str, inf_nan_mode="null"))
    except (ValueError, TypeError, RecursionError):  # PydanticSerializationError is a ValueError
        size = None
    if size is not None and size <= limit:  # the usual case: it fits as it is
        return data
    give_way()  # megabytes were encoded in C; more passes follow
    if size is None:  # pydantic-core cannot write it as it is: nested too deep, or a lone surrogate
        data = without_lone_surrogates(_cut_depth(data, MAX_LOG_DEPTH) if too_deep(data, MAX_LOG_DEPTH) else data)
    size = encoded_size(data)
    if size <= limit:
        return data
    give_way()
    strings = [text for text in _strings(data) if len(text) > _SHORT]  # short ones are never cut
    sizes = [(len(text), encoded_size(text) - 2) for text in strings]
    fixed = size - sum(encoded for _, encoded in sizes)
    note_bytes = len(_CUT_NOTE.format(cut=10**9, limit=limit).encode()) + 8

    def total(cap: int) -> float:
        return fixed + sum(
            encoded if length <= cap else cap * encoded / length + note_bytes for length, encoded in sizes
        )

    low, high = _SHORT, max((length for length, _ in sizes), default=_SHORT)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if total(middle) <= limit else (low, middle - 1)
    if total(low) > limit:  # too many parts, not too long texts: cutting texts cannot make it fit
        return {"note": _CUT_NOTE.format(cut=size, limit=limit).strip()}
    fitted = _cut_strings(data, low, limit)
    over = encoded_size(fitted) - limit
    while over > 0 and low > _SHORT:  # the estimate is an average: a text's kept head may take more bytes a character
        low = max(_SHORT, low - over)  # every cut text loses at least a byte a character
        fitted = _cut_strings(data, low, limit)
        over = encoded_size(fitted) - limit
    return fitted if over <= 0 else {"note": _CUT_NOTE.format(cut=size, limit=limit).strip()}


def _json_size(value: Any) -> int | None:
    """Bytes of ``value`` as the SDK's encoder (pydantic-core) writes it, or None when it
    cannot encode it as it is (invalid UTF-8 in bytes, a value nested too deep): then
    ``encoded_size``, which turns anything into a string, decides."""
    try:
        return len(to_json(value, fallback=str, inf_nan_mode="null"))
    except (ValueError, TypeError, RecursionError):  # PydanticSerializationError is a ValueError
        return None


def _cut_depth(value: Any, limit: int, depth: int = 1) -> Any:
    """A copy of ``value`` with every array or object below ``limit`` levels replaced by a note."""
    if not isinstance(value, dict | list | tuple):
        return value
    if depth > limit:
        return _DEPTH_NOTE.format(limit=limit)
    give_way()  # hundreds of thousands of parts
    if isinstance(value, dict):
        return {key: _cut_depth(item, limit, depth + 1) for key, item in paced(value.items())}
    return [_cut_depth(item, limit, depth + 1) for item in paced(value)]


def _strings(value: Any, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value]
    if depth > 32:
        return []
    give_way()
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else ()
    found: list[str] = []
    for item in paced(items):  # numbers and strings without a call each (a list of a million numbers)
        if type(item) is str:
            found.append(item)
        elif type(item) not in PLAIN_SCALARS:
            found += _strings(item, depth + 1)
    return found


_TAIL_KEPT = 2_000
"""Characters a cut string keeps of its end (at most a quarter of what it keeps): the notes a
tool's output ends with (a file withheld for a secret, sent, incomplete; its error) stay in the
log when megabytes of text before them are cut."""


def _cut_strings(value: Any, cap: int, limit: int, depth: int = 0) -> Any:
    """A copy of ``value`` whose strings longer than ``cap`` keep ``cap`` characters, its start
    and its last ``_TAIL_KEPT`` (at most a quarter of ``cap``), with a note between saying how
    much was cut."""
    if isinstance(value, str):
        if len(value) <= cap:
            return value
        tail = min(_TAIL_KEPT, cap // 4)
        note = _CUT_NOTE.format(cut=len(value) - cap, limit=limit)
        return value[: cap - tail] + note + ("\n" + value[len(value) - tail :] if tail else "")
    if depth > 32:
        return value
    give_way()
    if isinstance(value, dict):
        return {key: item if type(item) in PLAIN_SCALARS else _cut_strings(item, cap, limit, depth + 1)
                for key, item in paced(value.items())}
    if isinstance(value, list | tuple):
        return [item if type(item) in PLAIN_SCALARS else _cut_strings(item, cap, limit, depth + 1) for item in paced(value)]
    return value
