"""The error a run ends with when it cannot reach an answer, and the reading of the error texts
the daemon, Dify and plugins send (the plugin SDK's error objects, Python tracebacks): a run's
error (``without_tracebacks``) and a tool's (``observation``) read them here."""

import json
import re
from typing import Any, NamedTuple

from pydantic import ValidationError

MESSAGE_MAX_CHARS = 2_000
"""Characters of a run's error message. The SDK writes the message, and again inside the
traceback it sends with it, in one stdout line: a model error of megabytes (a provider that
echoes the request) would make a line the daemon kills the plugin for."""


def shortened(text: str, limit: int = MESSAGE_MAX_CHARS) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and its end around a note
    of how many characters were left out."""
    if len(text) <= limit:
        return text
    keep = (limit - 40) // 2
    return f"{text[:keep]} … [{len(text) - 2 * keep} characters left out] … {text[-keep:]}"


class AgentRunError(Exception):
    """The run could not reach an answer; the message says why, for the user (Dify shows it as
    the node's error). Messages are ``shortened``."""

    def __init__(self, message: str) -> None:
        super().__init__(shortened(str(message)))


def chained(error: BaseException) -> BaseException | None:
    """``error``, to raise an ``AgentRunError`` from, or ``None`` when its text is too long to
    be repeated in the traceback the SDK writes with the run's error."""
    return error if len(str(error)) <= MESSAGE_MAX_CHARS else None


def error_text(error: BaseException) -> str:
    """``error`` as one line for the user: a pydantic validation error (a daemon reply of a shape
    the SDK does not know) as its fields and problems, not pydantic's multi-line text with links;
    any other error as its text less its tracebacks (``without_tracebacks``), or its type's name
    when it has no text."""
    if isinstance(error, ValidationError):
        problems = [
            f"{'.'.join(str(part) for part in item['loc']) or 'value'}: {item['msg']}"
            for item in error.errors(include_url=False, include_input=False)[:3]
        ]
        return f"a reply the plugin could not read ({error.title}: {'; '.join(problems)})"
    text = str(error)
    return without_tracebacks(text) if text.strip() else type(error).__name__


_ERROR_OBJECT = re.compile(r'\{\s*"(?:args|error_type|message)"\s*:')
_TRACEBACK_BLOCK = re.compile(r"Traceback \(most recent call last\):[ \t]*(?:\r?\n(?:[ \t].*)?)*\n?")
"""A traceback's head and frames (its lines may end in ``\\r\\n``: the frames go too)."""
_QUOTED_TRACEBACK = re.compile(r'Traceback \(most recent call last\):(?:(?:\\r)?\\n(?:(?:[ \t]|\\t)(?:[^"\\\n]|\\[^n])*+)?)++')
"""A traceback's head and frames quoted in a JSON string under any key (an OpenAI-compatible
server's ``{"error": {"message": "Traceback ...\\n  File \\"/app/x.py\\", ..."}}``): lines
joined by an escaped ``\\n``; the exception line after them is kept."""
_CHAINED = re.compile(
    r"(?<!\n)\n*+(?:During handling of the above exception, another exception occurred"
    r"|The above exception was the direct cause of the following exception):\n*"
)
_ESCAPED_TRACEBACK = re.compile(r'"traceback"\s*:\s*"(?:[^"\\]|\\.)*\\?(?:"|$)', re.S)
MAX_UNWRAPPED = 6
"""Error objects unwrapped in one message (a model plugin's error inside Dify's inside the daemon's
is three); bounds the work on a message of megabytes made of them."""


class ErrorObject(NamedTuple):
    """A JSON value read from an error text as an error object of the plugin SDK (``{"args":
    {...}, "error_type": T, "message": M}``)."""

    error_type: str | None
    """``T``; None when the value has no string ``error_type`` (another service's
    ``{"message": ...}``, or no object at all)."""
    message: str | None
    """``M``; None when the value has no string ``message``: it is no error object."""
    end: int
    """The index in the text just after the value."""


def error_object_at(text: str, index: int) -> ErrorObject | None:
    """The JSON value that starts at ``text[index]``, read as an error object of the plugin SDK
    (``ErrorObject``), or None when no JSON value can be read there (not JSON, cut, or nested past
    what the decoder takes). Reads the value only: linear in its length."""
    try:
        value, end = json.JSONDecoder().raw_decode(text, index)
    except (ValueError, RecursionError):
        return None
    fields: Any = value if isinstance(value, dict) else {}
    kind, message = fields.get("error_type"), fields.get("message")
    return ErrorObject(kind if isinstance(kind, str) else None, message if isinstance(message, str) else None, end)


TRACEBACK_HEAD = "Traceback (most recent"
"""How a Python traceback opens (``Traceback (most recent call last):``), its start enough: a text
cut inside the head still holds a traceback."""
_FRAMES = re.compile(r"[^\n]*(?:\n(?:[ \t].*)?)*")
"""The rest of a traceback's head line and its frames (indented lines, blank lines between)."""


def last_traceback(text: str) -> tuple[str, str] | None:
    """``(what precedes the first traceback, exception line)`` of the Python tracebacks in
    ``text``: the exception line is what follows the last traceback's frames (``ValueError: bad
    key``, with the message's further lines; ``""`` when the traceback was cut before it). None
    when ``text`` holds no traceback (``TRACEBACK_HEAD``). Linear in the text."""
    first = text.find(TRACEBACK_HEAD)
    if first < 0:
        return None
    frames = _FRAMES.match(text, text.rfind(TRACEBACK_HEAD) + len(TRACEBACK_HEAD))
    return text[:first], text[frames.end() if frames else len(text) :].strip()


def without_tracebacks(text: str) -> str:
    """``text`` (an error message from the daemon, Dify or a plugin) as the user should read it:
    each error object of the plugin SDK (``{"args": {"traceback": ...}, "error_type": T,
    "message": M}``, as Dify quotes it after ``PluginInvokeError:``) written ``T: M``, its
    ``args`` (a traceback, a repeated description) left out; each Python traceback reduced to its
    exception line (``ValueError: bad key``). The words around them are kept (``[openai] Error:``,
    ``req_id``). Linear in the text; an object that is not valid JSON (cut) keeps its text, but
    its traceback."""
    start = 0
    for _ in range(MAX_UNWRAPPED):
        match = _ERROR_OBJECT.search(text, start)
        if match is None:
            break
        found = error_object_at(text, match.start())
        if found is None:  # cut, or nested past what the decoder takes
            start = match.end()
            continue
        if found.error_type is None or found.message is None:
            start = found.end  # another service's JSON (``{"message": ..., "code": 400}``): its own words
            continue
        readable = f"{found.error_type}: {found.message}" if found.error_type else found.message
        text = text[: match.start()] + readable + text[found.end :]
        start = match.start()  # the message may quote another object
    if "Traceback (most recent call last)" in text or '"traceback"' in text:
        text = _ESCAPED_TRACEBACK.sub('"traceback": "(left out)"', text)
        text = _QUOTED_TRACEBACK.sub("", text)
        text = _CHAINED.sub("\n", _TRACEBACK_BLOCK.sub("", text))
    return text.strip() or "an error without a message"
