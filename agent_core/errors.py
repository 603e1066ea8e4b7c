"""The error a run ends with when it cannot reach an answer."""

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
    any other error as its text."""
    if isinstance(error, ValidationError):
        problems = [
            f"{'.'.join(str(part) for part in item['loc']) or 'value'}: {item['msg']}"
            for item in error.errors(include_url=False, include_input=False)[:3]
        ]
        return f"a reply the plugin could not read ({error.title}: {'; '.join(problems)})"
    return str(error)
