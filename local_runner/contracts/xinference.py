"""A Qwen3 model served by Xorbits Inference behind Dify's official Xinference model plugin
(model uid ``qwen3``, a chat model launched with tool calling, no reasoning parser).

Model plugin: ``langgenius/dify-official-plugins`` ``models/xinference/models/llm/llm.py`` (commit
ad0c6d5ba704204eb1d01f21fe04349fc8f13840). Not on the SDK's OpenAI-compatible base: it calls
Xinference's OpenAI-compatible route with the ``openai`` client and converts both ways itself.
Its model schema is built from the server's model abilities: ``tool-call`` (and ``vision``)
only, so Function Calling asks for a blocking reply (no ``stream-tool-call``) and ReAct streams.

Request (``_convert_prompt_message_to_dict``, ``_generate``):

* an assistant message goes as ``{"role": "assistant", "content": <as received>}`` and, when it
  has tool calls, ``"function_call": {"name", "arguments"}`` of its **first call only**: no
  ``tool_calls``, so the ids never go back with it, nor any second call;
* a tool message as ``{"tool_call_id", "role": "tool", "content", "name"}`` (the id kept there);
* user messages with a string content as they are, with parts as OpenAI's ``text`` /
  ``image_url`` parts; system messages as they are;
* ``temperature`` (clamped into 0.01..0.99 when set, 1.0 when not), ``top_p`` (0.7), ``max_tokens``
  (**512 when the node sets none**), the penalties, ``stop`` and the tools in OpenAI's form;
  ``think`` becomes ``chat_template_kwargs.enable_thinking``.

Chunks (``_handle_chat_stream_response``, ``_handle_chat_generate_response``):

* streamed: a chunk with no finish reason and no content is **skipped** (a ``reasoning_content``
  delta, a tool-call delta before the last chunk); each text delta is a chunk (``index`` 0); the
  chunk with the finish reason carries its delta's calls (ids and all) and usage. Xinference
  sends a reply's calls whole on its last chunk, ``finish_reason`` ``tool_calls``. Without a
  reasoning parser Qwen3's reasoning is the content's ``<think>`` block, streamed as text.
* blocking: the content (the ``<think>`` block included) and the calls with their ids.

What must come back: each round's content (Qwen3's chat template drops the reasoning of earlier
rounds itself) and the call, which reaches the model only as the first call's name and arguments;
the tool results keep the ids.

Provider rules: Xinference renders the messages through the model's chat template and pairs
nothing; Qwen3's template refuses a conversation without a user message ("No user query found
in messages."). Recorded, not refused: every replayed assistant message whose calls the body lost
(``calls_lost``: a second call of a round, or any call of a message sent without
``function_call``), which the wave-33 tests assert empty for one call a round.
"""

from __future__ import annotations

import uuid
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


class XinferenceContract(ContractBackend):
    """Qwen3 on Xinference behind the official Xinference model plugin (see the module docstring)."""

    name = "xinference"
    plugin_source = "langgenius/dify-official-plugins models/xinference/models/llm/llm.py"
    provider_doc = "https://inference.readthedocs.io/en/latest/models/model_abilities/tools.html"
    provider = "langgenius/xinference/xinference"
    model = "qwen3"
    features = ("tool-call",)
    """What the plugin's ``get_customizable_model_schema`` declares for a tool-calling chat model."""
    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = True
    """Qwen3 thinks, and without a reasoning parser its ``<think>`` block comes in the content."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls_lost: list[dict[str, Any]] = []

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = dict(request.get("completion_params") or {})
        if "temperature" in params:
            params["temperature"] = min(max(params["temperature"], 0.01), 0.99)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [self._message(m) for m in request.get("prompt_messages") or []],
            "stream": bool(request.get("stream", True)),
            "temperature": params.get("temperature", 1.0),
            "top_p": params.get("top_p", 0.7),
            "max_tokens": params.get("max_tokens", 512),
            "presence_penalty": params.get("presence_penalty", 0.0),
            "frequency_penalty": params.get("frequency_penalty", 0.0),
        }
        if request.get("stop"):
            body["stop"] = request["stop"]
        if request.get("tools"):
            body["tools"] = [{"type": "function", "function": {"name": t.get("name"), "description": t.get("description"),
                                                               "parameters": t.get("parameters")}} for t in request["tools"]]
        if "think" in params:
            body["extra_body"] = {"chat_template_kwargs": {"enable_thinking": bool(params["think"])},
                                  "thinking": bool(params["think"])}
        self.calls_lost += calls_lost(body["messages"], request.get("prompt_messages") or [])
        return body

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "assistant":
            converted: dict[str, Any] = legacy_function_call(message)
            return converted
        if role == "tool":
            return {"tool_call_id": message.get("tool_call_id"), "role": "tool", "content": content, "name": message.get("name")}
        if role == "user" and not isinstance(content, str):
            parts = [{"type": "text", "text": p.get("data")} if p.get("type") == "text"
                     else {"type": "image_url", "image_url": {"url": p.get("data"), "detail": p.get("detail", "low")}}
                     for p in content or [] if p.get("type") in ("text", "image")]
            return {"role": "user", "content": parts}
        return {"role": role, "content": content}

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        if not any(m["role"] == "user" for m in body["messages"]):
            self.reject("No user query found in messages.")

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """Xinference's id for a tool call (``call_`` and a UUID)."""
        return f"call_{uuid.uuid5(uuid.NAMESPACE_OID, call.id)}"

    def content(self, reply: Reply) -> str:
        """The reply's content as Qwen3 writes it without a reasoning parser."""
        return f"<think>\n{reply.reasoning}\n</think>\n\n{reply.text}"

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=self.content(reply), tool_calls=calls, usage=usage)
            return
        for text in pieces(self.content(reply), 9):
            yield self.chunk(request, 0, content=text)
        yield self.chunk(request, 0, content="", tool_calls=calls, usage=usage, finish_reason=reply.finish_reason)

