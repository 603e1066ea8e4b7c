"""What one agent run produced, as Dify would see it (protocol §1.4, rendering rules of §5).

``RunResult`` is filled by the daemon while the run goes on (thread-safe: mutators take
``lock``; readers that iterate while a run is live should hold it too) and read by tests,
the live view and ``--json``.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE_TYPES = ("image", "image_link", "link", "file", "blob")
"""Stream message types that carry a file or link forwarded to the user."""


@dataclass
class LogNode:
    """The latest state of one agent log entry (a ``log`` message; later messages with the
    same ``id`` update it). ``first_seen``/``updated`` are ``time.monotonic()`` seconds in the
    runner; ``children`` are ids in first-seen order."""

    id: str
    label: str
    parent_id: str | None
    status: str
    error: str | None
    data: Any
    metadata: dict[str, Any]
    first_seen: float
    updated: float
    children: list[str] = field(default_factory=list)

    @property
    def elapsed(self) -> float:
        """Seconds: the plugin's ``metadata.elapsed_time`` if given, else measured by the
        runner (until now while the entry is still "start")."""
        if self.metadata.get("elapsed_time") is not None:
            return float(self.metadata["elapsed_time"])
        end = time.monotonic() if self.status == "start" else self.updated
        return end - self.first_seen

    @property
    def tokens(self) -> int | None:
        """``metadata.total_tokens``, if the plugin reported it."""
        value = self.metadata.get("total_tokens")
        return None if value is None else int(value)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (without runner times)."""
        return {
            "id": self.id,
            "label": self.label,
            "parent_id": self.parent_id,
            "status": self.status,
            "error": self.error,
            "data": self.data,
            "metadata": self.metadata,
            "children": list(self.children),
        }


class RunResult:
    """Everything observed during one ``invoke_agent_strategy`` session.

    Raw records: ``messages`` (every stream message, in order), ``log_history`` (every log
    message), ``llm_requests``/``tool_requests`` (backwards requests), ``llm_usages`` (usage
    dicts the backend sent), ``plugin_logs`` (``log`` events), ``plugin_errors`` (``error``
    events, e.g. an unparsable stdin line), ``transcript`` (every line in and out).
    Outcome: ``ended`` (the plugin sent ``end``), ``error`` (the session ``error`` message:
    ``{"error_type", "message", "args"}``), ``failure`` (the runner gave up: crash, no
    heartbeat, timeout), ``stderr_tail``.
    """

    def __init__(self, session_id: str, strategy: str) -> None:
        self.session_id = session_id
        self.strategy = strategy
        self.lock = threading.RLock()
        self.started = time.monotonic()
        self.finished: float | None = None
        self.messages: list[dict[str, Any]] = []
        self.log_history: list[dict[str, Any]] = []
        self.logs: dict[str, LogNode] = {}
        self.json_messages: list[Any] = []
        self.files: list[dict[str, Any]] = []
        self.variables: dict[str, Any] = {}
        self.retriever_resources: list[dict[str, Any]] = []
        self.llm_requests: list[dict[str, Any]] = []
        self.tool_requests: list[dict[str, Any]] = []
        self.llm_usages: list[dict[str, Any]] = []
        self.plugin_logs: list[dict[str, Any]] = []
        self.plugin_errors: list[dict[str, Any]] = []
        self.transcript: list[dict[str, Any]] = []
        self.stderr_tail: list[str] = []
        self.error: dict[str, Any] | None = None
        self.failure: str | None = None
        self.ended = False
        self._text: list[str] = []
        self._blobs: dict[str, list[dict[str, Any]]] = {}

    # -- recording (called by the daemon) -------------------------------------------------

    def add_message(self, message: dict[str, Any]) -> None:
        """Record one stream message ``{"type", "message", "meta"}`` (an ``AgentInvokeMessage``)."""
        with self.lock:
            self.messages.append(message)
            kind, body = message.get("type"), message.get("message") or {}
            if kind == "text":
                self._text.append(str(body.get("text", "")))
            elif kind == "log":
                self._add_log(body)
            elif kind == "json":
                self.json_messages.append(body.get("json_object"))
            elif kind == "variable":
                self._add_variable(body)
            elif kind == "retriever_resources":
                self.retriever_resources.extend(body.get("retriever_resources") or [])
            elif kind == "blob_chunk":
                self._add_blob_chunk(body, message.get("meta"))
            elif kind in FILE_TYPES:
                self.files.append({"type": kind, **body, "meta": message.get("meta")})

    def _add_log(self, body: dict[str, Any]) -> None:
        self.log_history.append(body)
        now, log_id = time.monotonic(), str(body.get("id"))
        node = self.logs.get(log_id)
        if node is None:
            node = LogNode(log_id, "", None, "", None, None, {}, first_seen=now, updated=now)
            self.logs[log_id] = node
            parent = self.logs.get(str(body.get("parent_id")))
            if parent is not None:
                parent.children.append(log_id)
            node.children = [other.id for other in self.logs.values() if other.parent_id == log_id]
        node.label = str(body.get("label", node.label))
        node.parent_id = body.get("parent_id", node.parent_id)
        node.status = str(body.get("status", node.status))
        node.error = body.get("error")
        node.data = body.get("data")
        node.metadata = dict(body.get("metadata") or {})
        node.updated = now

    def _add_variable(self, body: dict[str, Any]) -> None:
        name, value = body.get("variable_name"), body.get("variable_value")
        if body.get("stream") and isinstance(self.variables.get(name), str):
            self.variables[name] += value
        else:
            self.variables[name] = value

    def _add_blob_chunk(self, body: dict[str, Any], meta: Any) -> None:
        """Reassemble ``blob_chunk`` messages by ``id`` (as the daemon does) into one blob file."""
        parts = self._blobs.setdefault(str(body.get("id")), [])
        parts.append(body)
        if body.get("end"):
            data = b"".join(
                base64.b64decode(p.get("blob") or "") for p in sorted(parts, key=lambda p: p.get("sequence", 0))
            )
            self.files.append(
                {"type": "blob", "blob": base64.b64encode(data).decode(), "size": len(data), "meta": meta}
            )
            del self._blobs[str(body.get("id"))]

    def add_llm_request(self, request: dict[str, Any]) -> None:
        """Record a backwards ``llm`` request body."""
        with self.lock:
            self.llm_requests.append(request)

    def add_tool_request(self, request: dict[str, Any]) -> None:
        """Record a backwards ``tool`` request body."""
        with self.lock:
            self.tool_requests.append(request)

    def add_llm_usage(self, usage: dict[str, Any]) -> None:
        """Record a usage dict that the runner sent back in an LLM chunk."""
        with self.lock:
            self.llm_usages.append(usage)

    def add_plugin_event(self, event: str, data: dict[str, Any]) -> None:
        """Record a session-less plugin event: ``event`` "log" or "error" with its ``data``."""
        with self.lock:
            (self.plugin_logs if event == "log" else self.plugin_errors).append(data)

    def add_transcript(self, entry: dict[str, Any]) -> None:
        """Record one transcript line (see ``daemon.PluginProcess``)."""
        with self.lock:
            self.transcript.append(entry)

    def set_error(self, data: dict[str, Any]) -> None:
        """Record the session ``error`` message data."""
        with self.lock:
            self.error = data

    def finish(self, *, failure: str | None = None) -> bool:
        """Mark the run over: ended normally (``failure`` None) or given up. Returns False if it
        was already over (the first outcome wins)."""
        with self.lock:
            if self.finished is not None:
                return False
            self.finished = time.monotonic()
            self.ended = failure is None
            self.failure = failure
            return True

    # -- reading ----------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the run ended or was given up."""
        return self.finished is not None

    @property
    def ok(self) -> bool:
        """True if the plugin ended the session without an error message."""
        return self.ended and self.error is None and self.failure is None

    @property
    def duration(self) -> float:
        """Seconds from the request to the end (or until now while running)."""
        return (self.finished or time.monotonic()) - self.started

    @property
    def text(self) -> str:
        """The answer: all ``text`` messages concatenated."""
        with self.lock:
            return "".join(self._text)

    @property
    def error_text(self) -> str | None:
        """A one-line description of what went wrong, or ``None``."""
        if self.failure:
            return self.failure
        if self.error:
            return f"{self.error.get('error_type', 'Error')}: {self.error.get('message', '')}"
        return None

    @property
    def execution_metadata(self) -> dict[str, Any] | None:
        """The last ``execution_metadata`` of a json message (Dify's ``outputs.usage`` source)."""
        with self.lock:
            for obj in reversed(self.json_messages):
                if isinstance(obj, dict) and "execution_metadata" in obj:
                    return obj["execution_metadata"]
        return None

    def root_logs(self) -> list[LogNode]:
        """Log entries without a known parent, in first-seen order."""
        with self.lock:
            return [node for node in self.logs.values() if node.parent_id not in self.logs]

    def children(self, node: LogNode) -> list[LogNode]:
        """The children of ``node``, in first-seen order."""
        with self.lock:
            return [self.logs[child] for child in node.children]

    def log_tree_snapshot(self) -> list[dict[str, Any]]:
        """The log tree without ids and times: ``[{"label", "status", "children": [...]}]``."""
        with self.lock:
            return [self._snapshot(node) for node in self.root_logs()]

    def _snapshot(self, node: LogNode) -> dict[str, Any]:
        return {
            "label": node.label,
            "status": node.status,
            "children": [self._snapshot(c) for c in self.children(node)],
        }

    def unfinished_logs(self) -> list[LogNode]:
        """Log entries whose last status is still "start"."""
        with self.lock:
            return [node for node in self.logs.values() if node.status == "start"]

    def to_dict(self) -> dict[str, Any]:
        """The whole result as JSON-ready data (what ``--json`` prints)."""
        with self.lock:
            return {
                "session_id": self.session_id,
                "strategy": self.strategy,
                "ok": self.ok,
                "ended": self.ended,
                "error": self.error,
                "failure": self.failure,
                "duration": round(self.duration, 3),
                "text": self.text,
                "execution_metadata": self.execution_metadata,
                "log_tree": self.log_tree_snapshot(),
                "logs": [node.to_dict() for node in self.logs.values()],
                "json": self.json_messages,
                "files": self.files,
                "variables": self.variables,
                "retriever_resources": self.retriever_resources,
                "llm_requests": self.llm_requests,
                "tool_requests": self.tool_requests,
                "llm_usages": self.llm_usages,
                "messages": self.messages,
                "plugin_logs": self.plugin_logs,
                "plugin_errors": self.plugin_errors,
                "stderr_tail": self.stderr_tail,
            }

    def save_transcript(self, path: str | Path) -> Path:
        """Write every line in and out of this run as JSON: ``{"session_id", "strategy",
        "lines": [{"t": seconds since the plugin started, "dir": "to_plugin" | "from_plugin" |
        "stderr", "json": obj} or {..., "text": raw line}]}``. Returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock:
            document = {"session_id": self.session_id, "strategy": self.strategy, "lines": list(self.transcript)}
        path.write_text(json.dumps(document, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
        return path
