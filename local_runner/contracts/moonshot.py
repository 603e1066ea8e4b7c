"""Moonshot / Kimi through Dify's official Moonshot model plugin, thinking model
``kimi-k2-thinking``.

Model plugin: ``langgenius/dify-official-plugins`` ``models/moonshot/models/llm/llm.py``
(``MoonshotLargeLanguageModel``: ``_clean_messages``, ``_convert_prompt_message_to_dict``,
``_handle_generate_response``, ``_wrap_thinking_by_reasoning_content``) on the SDK's
OpenAI-compatible base ``dify_plugin/interfaces/model/openai_compatible/llm.py``
(``_generate``, ``_handle_generate_stream_response``). Dify builds a fresh model instance for
every invocation, so only what the request carries reaches the provider.

Chunk shapes (what a strategy receives):

* streamed: ``reasoning_content`` deltas become content, the first opened by a bare
  ``<think>``; a reply with text closes the block with ``</think>`` glued to the first text
  delta; in a tool-call reply Kimi sends ``reasoning_content: ""`` beside the tool-call
  deltas, which keeps the block open, and the last (empty) delta closes it with a bare
  ``</think>`` chunk. Then one chunk with the complete tool calls (content ``""``), then a
  last chunk with content ``""``, ``usage`` and ``finish_reason``. Indices follow the SDK's
  counter (odd numbers). No ``opaque_body`` anywhere in a stream: a streamed round's
  reasoning survives only as the ``<think>`` block of its content.
* blocking: one chunk (``LLMResult.to_llm_result_chunk``: index 0, no finish reason) with
  content ``<think>{reasoning}</think>{answer}``, ``opaque_body = {"reasoning_content":
  reasoning}``, the tool calls and usage.

Conversion (the request the provider sees): messages with no content and no tool calls are
dropped (tool and system messages too); consecutive user or assistant messages are merged
(text joined by a blank line; a merged assistant message whose text holds a ``<think>`` block
loses its ``opaque_body``; tool calls are concatenated); an assistant message's
``reasoning_content`` is ``opaque_body["reasoning_content"]`` when that is a string, else the
``<think>…</think>`` blocks of its text joined by a blank line; every ``<think>`` block is
removed from the content; for the thinking models the field is always sent (``""`` when
nothing was found). An assistant message whose content is a list of parts reaches the SDK's
``json.dumps`` as pydantic objects and the plugin fails (``TypeError``) before any request.

Provider rules enforced (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model:
keep ``reasoning_content`` in the context for multi-step tool use; the refusals below are the
API's observed 400 ``invalid_request_error`` messages):

* thinking on (``kimi-k2-thinking*``, ``kimi-k2.7-code*`` always; ``kimi-k2.5``/``k2.6``/``k3``
  unless ``thinking`` is ``{"type": "disabled"}``): every assistant message with tool calls
  carries its reasoning: "thinking is enabled but reasoning_content is missing in assistant
  tool call message at index N". The plugin always sends the field, so a lost reasoning
  reaches Kimi as ``""``; reports differ on whether Kimi lets ``""`` pass, and this model
  always reasons, so ``""`` counts as missing here;
* a ``tool`` message answers a call of the assistant message before it ("Invalid request:
  tool_call_id X is not found"); every call is answered before the next non-tool message;
* an assistant message without tool calls has content ("the message at position N with role
  'assistant' must not be empty").

Tools missing while the history holds tool calls is not refused by Kimi (not enforced).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import ContractBackend, Reply, chat_tool_calls

THINK = re.compile(r"<think>(.*?)</think>", re.S | re.I)
THINKING_MODELS = frozenset(
    {"kimi-k2-thinking", "kimi-k2-thinking-turbo", "kimi-k2.5", "kimi-k2.6", "kimi-k2.7-code", "kimi-k2.7-code-highspeed", "kimi-k3"}
)
"""The plugin's ``_THINKING_MODELS`` (exact, lower-case): these always get ``reasoning_content``."""
ALWAYS_THINKING = frozenset({"kimi-k2-thinking", "kimi-k2-thinking-turbo", "kimi-k2.7-code", "kimi-k2.7-code-highspeed"})
"""Models whose thinking cannot be turned off; the other thinking models think by default."""


def role_of(message: dict[str, Any]) -> str:
    """A prompt message's role as a plain string (``"assistant"``, also from an enum repr)."""
    return str(message.get("role", "")).rsplit(".", 1)[-1].lower()


def _part_url(part: dict[str, Any]) -> str:
    """A multimodal part's ``data`` as the SDK computes it (its URL or a data URI)."""
    return part.get("url") or f"data:{part.get('mime_type', '')};base64,{part.get('base64_data', '')}"


def _as_parts(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return content if isinstance(content, list) else [{"type": "text", "data": content}]


def clean_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plugin's ``_clean_messages`` on message dicts (see the module docstring)."""
    cleaned: list[dict[str, Any]] = []
    for original in messages:
        message = dict(original)
        role = role_of(message)
        if not message.get("content") and not (role == "assistant" and message.get("tool_calls")):
            continue
        if role in ("tool", "system") or not cleaned or role_of(cleaned[-1]) != role:
            cleaned.append(message)
            continue
        previous = cleaned[-1]
        before, after = previous.get("content"), message.get("content")
        if isinstance(before, str) and isinstance(after, str):
            previous["content"] = f"{before}\n\n{after}" if before and after else before or after
        elif isinstance(before, str | list) and isinstance(after, str | list):
            previous["content"] = [*_as_parts(before), *_as_parts(after)]
        if role == "assistant":
            if isinstance(previous.get("content"), str) and THINK.search(previous["content"]):
                previous["opaque_body"] = None
            if message.get("tool_calls"):
                previous["tool_calls"] = [*(previous.get("tool_calls") or []), *message["tool_calls"]]
    return cleaned


def _user_content(content: Any) -> Any:
    """The SDK base's user content: a string, or OpenAI content parts."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        kind = part.get("type")
        if kind == "text":
            parts.append({"type": "text", "text": part.get("data", "")})
        elif kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": _part_url(part), "detail": part.get("detail", "low")}})
        elif kind == "video":
            parts.append({"type": "video_url", "video_url": {"url": _part_url(part)}})
    return parts


class MoonshotContract(ContractBackend):
    """Kimi K2 Thinking behind the official Moonshot model plugin (see the module docstring)."""

    name = "moonshot"
    plugin_source = (
        "langgenius/dify-official-plugins models/moonshot/models/llm/llm.py "
        "(on dify_plugin/interfaces/model/openai_compatible/llm.py)"
    )
    provider_doc = "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model"
    provider = "langgenius/moonshot/moonshot"
    model = "kimi-k2-thinking"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")

    # -- conversion -----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        model = str(request.get("model") or "")
        params = dict(request.get("completion_params") or {})
        thinking_model = model.lower() in THINKING_MODELS
        messages = []
        for message in clean_messages(request.get("prompt_messages") or []):
            messages.append(self._convert(message, thinking_model))
        body: dict[str, Any] = {"model": model, "stream": bool(request.get("stream", True)), "messages": messages}
        if "thinking" in params:
            body["thinking"] = {"type": "enabled" if params["thinking"] else "disabled"}
        tools = request.get("tools") or []
        if tools:
            body["tool_choice"] = "auto"
            body["tools"] = [
                {"type": "function", "function": {"name": t.get("name"), "description": t.get("description", ""), "parameters": t.get("parameters", {})}}
                for t in tools
            ]
        if request.get("stop"):
            body["stop"] = request["stop"]
        return body

    def _convert(self, message: dict[str, Any], thinking_model: bool) -> dict[str, Any]:
        role = role_of(message)
        content = message.get("content")
        if role == "user":
            converted: dict[str, Any] = {"role": "user", "content": _user_content(content)}
        elif role == "system":
            converted = {"role": "system", "content": content}
        elif role == "tool":
            return {"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")}
        else:
            converted = {"role": "assistant", "content": content}
            if message.get("tool_calls"):
                converted["tool_calls"] = chat_tool_calls(message["tool_calls"])
            reasoning = None
            opaque = message.get("opaque_body")
            if isinstance(opaque, dict) and isinstance(opaque.get("reasoning_content"), str):
                reasoning = opaque["reasoning_content"]
            text = content or ""
            if isinstance(text, str) and text:
                found = THINK.findall(text)
                if found:
                    reasoning = "\n\n".join(found) if reasoning is None else reasoning
                    text = THINK.sub("", text)
            if thinking_model or reasoning is not None:
                converted["reasoning_content"] = reasoning or ""
                converted["content"] = text
            if isinstance(converted["content"], list):
                # The SDK serialises the body with json.dumps: PromptMessageContent objects fail.
                part = (converted["content"] or [{}])[0]
                kind = {"text": "TextPromptMessageContent", "image": "ImagePromptMessageContent"}.get(part.get("type"), "PromptMessageContent")
                self.reject(f"model plugin error: TypeError: Object of type {kind} is not JSON serializable", status=500)
        if message.get("name"):
            converted["name"] = message["name"]
        return converted

    # -- provider rules -------------------------------------------------------------------------

    @staticmethod
    def thinking_on(body: dict[str, Any]) -> bool:
        """Whether Kimi thinks for this request body."""
        model = str(body.get("model", "")).lower()
        if model in ALWAYS_THINKING:
            return True
        return model in THINKING_MODELS and body.get("thinking") != {"type": "disabled"}

    def check(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        pending: list[str] = []
        for index, message in enumerate(messages):
            role = message["role"]
            if role == "tool":
                call_id = message.get("tool_call_id") or ""
                if call_id not in pending:
                    self.reject(f"Invalid request: tool_call_id {call_id} is not found")
                pending.remove(call_id)
                continue
            if pending:
                self.reject(
                    "Invalid request: an assistant message with 'tool_calls' must be followed by tool messages "
                    f"responding to each 'tool_call_id'; missing: {pending}"
                )
            if role == "assistant":
                calls = message.get("tool_calls") or []
                pending = [str(c.get("id") or "") for c in calls]
                if not calls and not str(message.get("content") or "").strip():
                    self.reject(f"the message at position {index} with role 'assistant' must not be empty")
                if calls and self.thinking_on(body) and not str(message.get("reasoning_content") or "").strip():
                    self.reject(f"thinking is enabled but reasoning_content is missing in assistant tool call message at index {index}")
        if pending:
            self.reject(f"Invalid request: tool_call_ids without tool messages: {pending}")

    # -- chunks ---------------------------------------------------------------------------------

    def _reasoning(self, reply: Reply, request: dict[str, Any]) -> str:
        """The reasoning Kimi returns for this request (none with thinking off)."""
        return reply.reasoning if self.thinking_on(self.to_provider({**request, "prompt_messages": []})) else ""

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        reasoning = self._reasoning(reply, request)
        calls = [self.tool_call_dict(call) for call in reply.calls]
        usage = self.usage(request, reply)
        if not stream:
            content = f"<think>{reasoning}</think>{reply.text}" if reasoning else reply.text
            opaque = {"reasoning_content": reasoning} if reasoning else None
            yield self.chunk(request, 0, content=content, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        # The provider's SSE deltas, then the SDK's handling of each (see the module docstring).
        deltas: list[dict[str, Any]] = []
        if reasoning:
            half = max(1, len(reasoning) // 2)
            deltas += [{"reasoning_content": reasoning[:half]}, {"reasoning_content": reasoning[half:]}]
        deltas += [{"content": reply.text[i : i + 8]} for i in range(0, len(reply.text), 8)]
        for position, call in enumerate(calls):
            args = call["function"]["arguments"]
            head = {"index": position, "id": call["id"], "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}
            deltas += [
                {"reasoning_content": "", "tool_calls": [head]},
                {"reasoning_content": "", "tool_calls": [{"index": position, "function": {"arguments": args[: len(args) // 2]}}]},
                {"reasoning_content": "", "tool_calls": [{"index": position, "function": {"arguments": args[len(args) // 2 :]}}]},
            ]
        deltas.append({})  # the last event: finish_reason, an empty delta
        index, open_think = 0, False
        for delta in deltas:
            index += 1
            content = delta.get("content") or ""
            said = delta.get("reasoning_content")
            if said:
                piece = said if open_think else "<think>" + said
                open_think = True
            elif said == "" and not content:
                piece = ""
            elif open_think:
                piece, open_think = "</think>" + content, False
            else:
                piece = content
            if piece:
                yield self.chunk(request, index, content=piece)
            index += 1
        if open_think:
            yield self.chunk(request, index, content="\n</think>")
            index += 1
        if calls:
            yield self.chunk(request, index, tool_calls=calls)
        yield self.chunk(request, index, usage=usage, finish_reason=reply.finish_reason)


__all__ = ["MoonshotContract", "clean_messages"]
