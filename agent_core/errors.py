"""The error a run ends with when it cannot reach an answer."""

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
