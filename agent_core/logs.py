"""The log tree Dify shows as the agent's thinking.

A ``LogNode`` is one entry (``ROUND 2``, ``gpt-4o Thought``, ``CALL search``):
``start()`` returns the ``log`` message with status ``start``; ``finish()``
returns the same id with ``success`` or ``error`` and the full metadata
(``started_at``/``finished_at`` in Unix seconds, ``elapsed_time`` in seconds,
``total_tokens``, ``total_price``, ``currency``, ``provider``). Dify updates an
entry in place by its id. A node's data is kept within ``line_budget.LOG_DATA_BYTES``.

Six log lines go out every round, so building them is kept cheap: the two SDK models of a
line (``LogMessage`` inside ``AgentInvokeMessage``) are built from values already of their
fields' types without pydantic's validation when the SDK's models have the fields and no
validators this was written against (``_UNVALIDATED``; 3 µs instead of 8 a line, and what they
dump is the same: ``tests/unit/test_logs.py``), both in one pass, as ``unvalidated.built`` makes
them), and a node's id is a random UUID (version 4)
made from 16 random bytes without ``uuid.UUID`` (1 µs instead of 4).
"""

import os
import time
from collections.abc import Mapping
from typing import Any

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.provider_config import LogMetadata

from agent_core.line_budget import LABEL_CHARS, LOG_DATA_BYTES, fit, label_shortened
from agent_core.unvalidated import checks_nothing

_Status = InvokeMessage.LogMessage.LogStatus
_LogMessage = InvokeMessage.LogMessage
_LOG = InvokeMessage.MessageType.LOG

_LOG_FIELDS = ("id", "label", "parent_id", "error", "status", "data", "metadata")
_new = object.__new__
_set = object.__setattr__
_MESSAGE_FIELDS = ("type", "message", "meta")


_UNVALIDATED = checks_nothing(_LogMessage, _LOG_FIELDS) and checks_nothing(
    AgentInvokeMessage, _MESSAGE_FIELDS, frozenset({"decode_blob_message"})  # it reads only a dict with a blob
)
"""Whether log lines are built without validation (dify_plugin 0.10.2's models); else validated."""


_STR_ONLY = {str}
"""The key types of a log node's data that ``LogMessage.data`` validates to unchanged (but for a
copy): a dict keyed by strings only is built without validation (``LogNode._emit``)."""


def new_id() -> str:
    """A random UUID (version 4, RFC 4122 variant) as its 36-character string: what
    ``str(uuid.uuid4())`` returns, from the same source (``os.urandom``): the version digit is
    4 and the variant digit one of 8, 9, a, b (its two high bits 10). The random bytes are drawn
    ``IDS_PER_DRAW`` ids at a time (one system call for them, not one an id: six log nodes a
    round made six); each id takes 16 bytes of the draw that no other id takes."""
    try:
        text = _DRAWN.pop()
    except IndexError:  # none left: a new draw, this id the first of it (no other caller takes it)
        text, *rest = _split(os.urandom(16 * IDS_PER_DRAW).hex())
        _DRAWN.extend(rest)
    return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-{_VARIANT[text[16]]}{text[17:20]}-{text[20:]}"


IDS_PER_DRAW = 64
"""Ids whose random bytes ``new_id`` draws from ``os.urandom`` in one call."""

_DRAWN: list[str] = []
"""Random bytes drawn and not yet used, 32 hexadecimal digits an id (a process forked from this
one draws its own: the list is emptied in the child)."""


def _split(digits: str) -> list[str]:
    return [digits[i : i + 32] for i in range(0, len(digits), 32)]


os.register_at_fork(after_in_child=_DRAWN.clear)


_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


class LogNode:
    """One node of the log tree; finish it exactly once, on every path.

    Args:
        label: what Dify shows, e.g. ``"ROUND 1"``.
        parent: the enclosing node, or None for a root.
        provider: the model's or the tool's provider id (``langgenius/openai/openai``,
            ``langgenius/time/time``); Dify shows that provider's icon by the entry. Like the
            label, kept to ``LABEL_CHARS`` characters (it is the node's setting, any size).
    """

    def __init__(self, label: str, *, parent: "LogNode | None" = None, provider: str | None = None) -> None:
        self._id = new_id()
        self._label = label if len(label) <= LABEL_CHARS else label_shortened(label)  # a call only for a long one
        self._parent_id = parent.id if parent else None
        self._provider = provider if provider is None or len(provider) <= LABEL_CHARS else provider[:LABEL_CHARS]
        self._started_at = time.time()
        self._started = time.perf_counter()
        self.finished = False

    @property
    def id(self) -> str:
        """The log id (a UUID string) shared by the start and finish messages."""
        return self._id

    @property
    def label(self) -> str:
        """The label Dify shows."""
        return self._label

    def start(self, data: Mapping[str, Any] | None = None) -> AgentInvokeMessage:
        """The ``start`` message (resets the clock)."""
        self._started_at = time.time()
        self._started = time.perf_counter()
        metadata: dict[LogMetadata, Any] = {LogMetadata.STARTED_AT: self._started_at}
        if self._provider:
            metadata[LogMetadata.PROVIDER] = self._provider
        return self._emit(_Status.START, data or {}, None, metadata)

    def finish(
        self,
        data: Mapping[str, Any] | None = None,
        *,
        usage: LLMUsage | None = None,
        error: str | None = None,
    ) -> AgentInvokeMessage:
        """The final message: ``error`` status when ``error`` is given, else ``success``.

        ``usage`` fills tokens, price and currency. Raises RuntimeError if the
        node was already finished (a second finish would hide a bug).
        """
        if self.finished:
            raise RuntimeError(f"log node {self.label!r} finished twice")
        self.finished = True
        now = time.time()
        metadata: dict[LogMetadata, Any] = {
            LogMetadata.STARTED_AT: self._started_at,
            LogMetadata.FINISHED_AT: now,
            LogMetadata.ELAPSED_TIME: round(time.perf_counter() - self._started, 6),
            LogMetadata.TOTAL_TOKENS: usage.total_tokens if usage else 0,
            LogMetadata.TOTAL_PRICE: float(usage.total_price) if usage else 0.0,
            LogMetadata.CURRENCY: usage.currency if usage else "USD",
        }
        if self._provider:
            metadata[LogMetadata.PROVIDER] = self._provider
        status = _Status.ERROR if error else _Status.SUCCESS
        return self._emit(status, data or {}, error, metadata)

    def _emit(
        self,
        status: InvokeMessage.LogMessage.LogStatus,
        data: Mapping[str, Any],
        error: str | None,
        metadata: dict[LogMetadata, Any],
    ) -> AgentInvokeMessage:
        """The line: built without validation when ``_UNVALIDATED`` and the values are of the
        fields' types (``metadata`` is the caller's new dict, kept as it is), else validated."""
        if data:  # one log line must never outgrow the daemon's line buffer (nothing always fits)
            data = fit(data)
        if error is not None:
            error = fit(error, LOG_DATA_BYTES // 4)
        if (
            _UNVALIDATED and type(self._label) is str and type(error) in (str, type(None))
            and type(data) is dict and (not data or set(map(type, data)) == _STR_ONLY)
        ):
            # both models as ``unvalidated.built`` makes them, in one pass (no call a model); metadata
            # is a dict of its own already (start, finish); data is copied as validation does
            message = _new(_LogMessage)
            _set(message, "__dict__", {
                "id": self._id, "label": self._label, "parent_id": self._parent_id, "error": error,
                "status": status, "data": dict(data), "metadata": metadata,
            })
            _set(message, "__pydantic_fields_set__", set(_LOG_FIELDS))
            _set(message, "__pydantic_extra__", None)
            _set(message, "__pydantic_private__", None)
            line = _new(AgentInvokeMessage)
            _set(line, "__dict__", {"type": _LOG, "message": message, "meta": None})
            _set(line, "__pydantic_fields_set__", {"type", "message"})
            _set(line, "__pydantic_extra__", None)
            _set(line, "__pydantic_private__", None)
            return line
        message = InvokeMessage.LogMessage(
            id=self._id,
            label=self._label,
            parent_id=self._parent_id,
            error=error,
            status=status,
            data=data,
            metadata=metadata,
        )
        return AgentInvokeMessage(type=InvokeMessage.MessageType.LOG, message=message)
