"""Kimi K2.6 on DeepInfra through Dify's official DeepInfra model plugin
(``moonshotai/Kimi-K2.6``: ``agent-thought``, ``tool-call``, ``stream-tool-call``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/deepinfra/models/llm/llm.py`` (commit
44747f981e16af483286c348ae55a7e50442412b, with ``models/common.py`` of the same commit): its own
class on ``LargeLanguageModel`` calling DeepInfra's OpenAI-compatible route with the ``openai``
client, converting both ways itself.

Request (``_chat_generate``, ``_convert_prompt_message_to_dict``): an assistant message goes as
``{"role": "assistant", "content": <as received>, "tool_calls": [{"id", "type", "function"}]}``
(``content`` ``None`` stays ``None``); a tool message as ``{"role": "tool", "content",
"tool_call_id"}``; every message with a ``name`` carries it (a tool message too); user parts as
OpenAI's ``text`` / ``image_url``; tools as ``tools``; ``stop`` and ``user`` when given. No
``reasoning_content`` is ever sent.

Chunks (``_handle_chat_generate_stream_response``, ``_handle_chat_generate_response``):

* streamed: only ``delta.content`` is read, so the model's ``reasoning_content`` never reaches
  the strategy; a delta without text or finish reason is skipped (tool-call deltas are gathered by
  ``index``); each text delta is a chunk; the finish delta's chunk is held back, given the calls
  (whole, in index order) and the usage of the stream's last packet, and yielded last.
* blocking: ``message.content`` (``None`` beside calls) and the calls.

What must come back: the call ids (OpenAI-style pairing). Provider rules enforced: tool pairing;
an assistant message needs content or calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import (
    BrainCall,
    ContractBackend,
    Reply,
    chat_tool_calls,
    check_chat_history,
    enum_value,
    pieces,
)


class DeepInfraContract(ContractBackend):
    """``moonshotai/Kimi-K2.6`` behind the official DeepInfra model plugin (see the module
    docstring)."""

    name = "deepinfra"
    plugin_source = "langgenius/dify-official-plugins models/deepinfra/models/llm/llm.py"
    provider_doc = "https://deepinfra.com/docs/advanced/function_calling"
    provider = "langgenius/deepinfra/deepinfra"
    model = "moonshotai/Kimi-K2.6"
    features = ("agent-thought", "tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False
    """Kimi K2.6 reasons, but the plugin reads only ``content``: no reasoning reaches the strategy."""

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [self._message(m) for m in request.get("prompt_messages") or []],
            "stream": bool(request.get("stream", True)),
            **dict(request.get("completion_params") or {}),
        }
        if request.get("tools"):
            body["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                                               "parameters": t.get("parameters")}} for t in request["tools"]]
        if request.get("stop"):
            body["stop"] = request["stop"]
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            converted: dict[str, Any] = {"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")}
        elif role == "user" and not isinstance(content, str):
            converted = {"role": "user", "content": [
                {"type": "text", "text": p.get("data")} if enum_value(p.get("type")) == "text"
                else {"type": "image_url", "image_url": {"url": p.get("data"), "detail": p.get("detail", "low")}}
                for p in content or [] if enum_value(p.get("type")) in ("text", "image")]}
        else:
            converted = {"role": role, "content": content}
            if role == "assistant" and message.get("tool_calls"):
                converted["tool_calls"] = chat_tool_calls(message["tool_calls"])
        if message.get("name"):
            converted["name"] = message["name"]
        return converted

    def check(self, body: dict[str, Any]) -> None:
        check_chat_history(self, body["messages"], "Invalid request: an assistant message needs content or tool_calls.")

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """The id vLLM's Kimi K2 tool parser gives a call (``functions.<name>:<n>``)."""
        return f"functions.{call.name}:{call.id}"

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            content = reply.text if reply.text or not calls else None
            yield self.chunk(request, 0, content=content, tool_calls=calls, usage=usage)
            return
        for text in pieces(reply.text, 8):
            yield self.chunk(request, 0, content=text)
        yield self.chunk(request, 0, content="", tool_calls=calls, usage=usage, finish_reason=reply.finish_reason)
