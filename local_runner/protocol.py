"""Wire format of the daemon <-> plugin stdio protocol (docs/transports.md).

Pure functions only: building the lines the runner writes and classifying the lines the
plugin prints. Nothing here touches a process.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

AGENT_PROVIDER = "agent"
"""Short name of the strategy provider (``identity.name`` in ``provider/agent.yaml``)."""

STRUCTURED_OUTPUT = "llm_structured_output"
"""The invoke type of a model call constrained to a JSON schema; the manifest's ``llm``
permission allows it (D ``backwards_invocation/task.go``)."""
LLM_FAILED = "invoke llm model failed: "
TOOL_FAILED = "invoke tool failed: "
PERMISSION_ERRORS = {
    "llm": "permission denied, you need to enable llm access in plugin manifest",
    "tool": "permission denied, you need to enable tool access in plugin manifest",
}
"""The daemon's exact refusal texts (D ``backwards_invocation/task.go`` ``permissionMapping``)."""


@dataclass(frozen=True)
class SessionEnvelope:
    """The fields every daemon -> plugin line of one session repeats (protocol §1.3).

    ``tool_credentials`` maps a tool provider (``author/plugin/provider``) to a credential id;
    the SDK uses it to fill ``credential_id`` of backwards tool calls.
    """

    session_id: str
    conversation_id: str | None = "conv-local"
    message_id: str | None = None
    app_id: str | None = "app-local"
    tool_credentials: dict[str, str] = field(default_factory=dict)

    def wrap(self, event: str, data: dict[str, Any]) -> dict[str, Any]:
        """One daemon -> plugin line: ``{session_id, conversation_id, message_id, app_id,
        endpoint_id, context, event, data}`` with ``event`` "request" or "backwards_response"."""
        return {
            "session_id": self.session_id,
            "conversation_id": self.conversation_id,
            "message_id": self.message_id,
            "app_id": self.app_id,
            "endpoint_id": None,
            "context": {"credentials": {"tool_credentials": dict(self.tool_credentials)}},
            "event": event,
            "data": data,
        }


MAX_LINE_BYTES = 5 * 1024 * 1024
"""The daemon scans a local plugin's stdout with this buffer (``PLUGIN_RUNTIME_MAX_BUFFER_SIZE``
in ``dify-plugin-daemon``'s config) and kills the plugin on a longer line."""


def agent_request(
    envelope: SessionEnvelope,
    *,
    strategy: str,
    params: dict[str, Any],
    user_id: str = "user-local",
    provider: str = AGENT_PROVIDER,
) -> dict[str, Any]:
    """The ``invoke_agent_strategy`` request line (protocol §1.3) for ``strategy`` with the
    node parameters ``params`` (passed as ``agent_strategy_params`` unchanged)."""
    return envelope.wrap(
        "request",
        {
            "user_id": user_id,
            "type": "agent_strategy",
            "action": "invoke_agent_strategy",
            "agent_strategy_provider": provider,
            "agent_strategy": strategy,
            "agent_strategy_params": params,
        },
    )


def backwards_response(
    envelope: SessionEnvelope,
    request_id: str,
    event: str,
    *,
    message: str = "",
    data: Any = None,
) -> dict[str, Any]:
    """A ``backwards_response`` line (protocol §1.5): ``event`` is "response" (``message``
    "stream", ``data`` one chunk), "error" (``message`` the error text) or "end"."""
    return envelope.wrap(
        "backwards_response",
        {"backwards_request_id": request_id, "event": event, "message": message, "data": data},
    )


def encode_line(obj: dict[str, Any]) -> bytes:
    """Serialize one message as a JSON line (UTF-8, ``\\n``-terminated). A text holding a lone
    surrogate (a tool's or a model's, ``"\\ud800"`` in the JSON they sent) cannot be UTF-8: the
    line is then written ASCII-escaped, as a harness written in Python (``json.dumps``' default)
    sends it, so the plugin meets the surrogate rather than the runner failing the call."""
    try:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def decode_line(raw: bytes) -> dict[str, Any] | str | None:
    """Classify one stdout line of the plugin.

    Returns ``None`` for a blank line, the parsed object for a JSON object line, and the
    decoded text for anything else (a stray ``print()``, which the daemon reports but
    tolerates).
    """
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return text
    return obj if isinstance(obj, dict) else text


def is_manifest(obj: dict[str, Any]) -> bool:
    """True for the first line the plugin prints: the manifest dump, which has no ``event``."""
    return "event" not in obj and "resource" in obj


def permission_error(manifest: dict[str, Any], invoke_type: str) -> str | None:
    """The daemon's refusal text if ``manifest`` (a ``PluginConfiguration`` dump) does not
    allow backwards invocations of ``invoke_type`` ("llm" or "tool"), else ``None``."""
    permission = (manifest.get("resource") or {}).get("permission") or {}
    if invoke_type == "tool":
        allowed = bool((permission.get("tool") or {}).get("enabled"))
    elif invoke_type in ("llm", STRUCTURED_OUTPUT):
        model = permission.get("model") or {}
        allowed = bool(model.get("enabled")) and bool(model.get("llm"))
    else:
        return None
    return None if allowed else PERMISSION_ERRORS["tool" if invoke_type == "tool" else "llm"]


def daemon_chunk(chunk: dict[str, Any]) -> dict[str, Any]:
    """An ``LLMResultChunk`` as the Go daemon re-serializes it on its way to the plugin
    (D ``pkg/entities/model_entities/llm.go``): tool calls keep only ``id``, ``type``,
    ``function.name`` and ``function.arguments`` (``index`` is dropped, nulls become ""),
    ``name``/``tool_call_id`` become strings, prices become decimal strings, and
    ``prompt_messages`` is always ``[]``; ``structured_output`` (the last chunk of an
    ``llm_structured_output`` invocation) is kept."""
    delta = chunk.get("delta") or {}
    message = delta.get("message") or {}
    out_message = {
        "role": message.get("role") or "assistant",
        "content": message.get("content"),
        "name": message.get("name") or "",
        "tool_calls": [_daemon_tool_call(call) for call in message.get("tool_calls") or []],
        "tool_call_id": message.get("tool_call_id") or "",
    }
    if message.get("opaque_body") is not None:
        out_message["opaque_body"] = message["opaque_body"]
    return {
        "model": chunk.get("model") or "",
        "system_fingerprint": chunk.get("system_fingerprint") or "",
        "delta": {
            "index": delta.get("index", 0),
            "message": out_message,
            "usage": _daemon_usage(delta.get("usage")),
            "finish_reason": delta.get("finish_reason"),
        },
        "prompt_messages": [],
        **({"structured_output": chunk["structured_output"]} if "structured_output" in chunk else {}),
    }


def _daemon_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    return {
        "id": str(call.get("id") or ""),
        "type": call.get("type") or "",
        "function": {"name": function.get("name") or "", "arguments": function.get("arguments") or ""},
    }


_PRICE_FIELDS = (
    "prompt_unit_price",
    "prompt_price_unit",
    "prompt_price",
    "completion_unit_price",
    "completion_price_unit",
    "completion_price",
    "total_price",
)


def _daemon_usage(usage: dict[str, Any] | None) -> dict[str, Any] | None:
    """Usage with prices as plain decimal strings (shopspring ``decimal`` JSON). A price a test
    wrote that is no number (``"free"``, ``{}``) is passed on as written, so that the plugin's own
    reading of an unreadable price is what the test sees (Dify's API would refuse the chunk)."""
    if usage is None:
        return None
    out = dict(usage)
    for key in _PRICE_FIELDS:
        if out.get(key) is not None:
            with contextlib.suppress(InvalidOperation, ValueError):
                out[key] = format(Decimal(str(out[key])).normalize(), "f")
    return out
