"""A Qwen3 model on Fireworks AI behind Dify's official Fireworks model plugin (a customizable
model, ``accounts/fireworks/models/qwen3-235b-a22b``, credential ``function_calling_type:
function_call``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/fireworks/models/llm/llm.py`` (commit
8bdae728dd92a3717fca9e96a7449a40bf05ba55; 3e40f31876a4c25bcb27914ba50a4b1bd48fd6b4 converts and
streams the same way). Not on the SDK's OpenAI-compatible base: it calls Fireworks'
OpenAI-compatible route with the ``openai`` client in OpenAI's **legacy function-calling form**
(``functions`` / ``function_call`` / role ``function``) and converts both ways itself. For a
customizable model with ``function_call`` its ``get_customizable_model_schema`` declares
``tool-call``, ``multi-tool-call`` and ``stream-tool-call`` (no ``agent-thought``).

Request (``_chat_generate``, ``_convert_prompt_message_to_dict``):

* an assistant message goes as ``{"role": "assistant", "content": <as received>}`` and, when it
  has tool calls, ``"function_call": {"name", "arguments"}`` of its **first call only** (the
  legacy form holds one call and no id): a second call of the message never reaches the model;
* a tool message as ``{"role": "function", "content", "name": <tool_call_id>}``, the ``name`` then
  replaced by the message's own ``name`` when it has one (the strategy's tool messages carry the
  tool's name, so the function result is named after the tool, not the id);
* user messages with a string content as they are, with parts as OpenAI's ``text`` /
  ``image_url`` parts; system messages as they are;
* the node's completion parameters as they are, ``functions`` for the tools, ``stop`` and
  ``user`` when given.

Chunks (``_handle_chat_generate_stream_response``, ``_handle_chat_generate_response``):

* streamed: a delta with neither text, ``function_call`` nor finish reason is skipped (a
  ``reasoning_content`` delta is lost); each text delta is a chunk; the ``function_call`` deltas
  are gathered and the call comes whole on the last chunk, with the finish reason
  (``function_call``) and usage. The call's id is **the function's name**
  (``_extract_response_function_call``), so every call of a tool has the same id.
* blocking: the content and the call, its id the function's name.

Reasoning: the plugin reads only ``content``; a model whose reasoning Fireworks returns in the
content (Qwen3's ``<think>`` block) has it there, streamed as text.

What must come back: each round's content, and its call (which reaches the model as the first
call's name and arguments only). Provider rules: OpenAI's legacy chat schema (an assistant message
needs content or a ``function_call``); nothing is paired by id. Recorded, not refused: every
replayed assistant message whose calls the body lost (``calls_lost``: a second call of a message),
which the tests assert empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import (
    BrainCall,
    ContractBackend,
    Reply,
    calls_lost,
    enum_value,
    legacy_function_call,
    pieces,
)


class FireworksContract(ContractBackend):
    """Qwen3 on Fireworks AI behind the official Fireworks model plugin (see the module
    docstring)."""

    name = "fireworks"
    plugin_source = "langgenius/dify-official-plugins models/fireworks/models/llm/llm.py"
    provider_doc = "https://docs.fireworks.ai/guides/function-calling"
    provider = "langgenius/fireworks/fireworks"
    model = "accounts/fireworks/models/qwen3-235b-a22b"
    features = ("tool-call", "multi-tool-call", "stream-tool-call")
    """What the plugin's ``get_customizable_model_schema`` declares with ``function_call``."""
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = True
    """Qwen3 thinks; the plugin passes its ``<think>`` block on in the content."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls_lost: list[dict[str, Any]] = []

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [self._message(m) for m in request.get("prompt_messages") or []],
            "stream": bool(request.get("stream", True)),
            **dict(request.get("completion_params") or {}),
        }
        if request.get("tools"):
            body["functions"] = [{"name": t.get("name"), "description": t.get("description"),
                                  "parameters": t.get("parameters")} for t in request["tools"]]
        if request.get("stop"):
            body["stop"] = request["stop"]
        self.calls_lost += calls_lost(body["messages"], request.get("prompt_messages") or [])
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "assistant":
            converted: dict[str, Any] = legacy_function_call(message)
        elif role == "tool":
            converted = {"role": "function", "content": content, "name": message.get("tool_call_id")}
        elif role == "user" and not isinstance(content, str):
            parts = [{"type": "text", "text": p.get("data")} if p.get("type") == "text"
                     else {"type": "image_url", "image_url": {"url": p.get("data"), "detail": p.get("detail", "low")}}
                     for p in content or [] if p.get("type") in ("text", "image")]
            converted = {"role": "user", "content": parts}
        else:
            converted = {"role": role, "content": content}
        if message.get("name"):  # the plugin's `if message.name`, for every role
            converted["name"] = message["name"]
        return converted

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        for message in body["messages"]:
            if message["role"] == "assistant" and not message.get("content") and not message.get("function_call"):
                self.reject("Invalid request: an assistant message needs 'content' or 'function_call'.")

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """The plugin's id for a call: the function's name."""
        return call.name

    def content(self, reply: Reply) -> str:
        """The reply's content as Fireworks returns Qwen3's: its ``<think>`` block, then the text."""
        return f"<think>\n{reply.reasoning}\n</think>\n\n{reply.text}"

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        # The legacy form returns one function_call a reply.
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls[:1]]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=self.content(reply), tool_calls=calls, usage=usage)
            return
        for text in pieces(self.content(reply), 9):
            yield self.chunk(request, 0, content=text)
        yield self.chunk(request, 0, content="", tool_calls=calls, usage=usage,
                         finish_reason="function_call" if calls else "stop")
