"""The log tree Dify shows as the agent's thinking.

A ``LogNode`` is one entry (``ROUND 2``, ``gpt-4o Thought``, ``CALL search``):
``start()`` returns the ``log`` message with status ``start``; ``finish()``
returns the same id with ``success`` or ``error`` and the full metadata
(``started_at``/``finished_at`` in Unix seconds, ``elapsed_time`` in seconds,
``total_tokens``, ``total_price``, ``currency``, ``provider``). Dify updates an
entry in place by its id. A node's data is kept within ``line_budget.LOG_DATA_BYTES``.
"""

import time
import uuid
from collections.abc import Mapping
from typing import Any

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.provider_config import LogMetadata

from agent_core.line_budget import LABEL_CHARS, LOG_DATA_BYTES, fit

_Status = InvokeMessage.LogMessage.LogStatus


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
        self._id = str(uuid.uuid4())
        self._label = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
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
        metadata: Mapping[LogMetadata, Any],
    ) -> AgentInvokeMessage:
        data = fit(data)  # one log line must never outgrow the daemon's line buffer
        if error is not None:
            error = fit(error, LOG_DATA_BYTES // 4)
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
