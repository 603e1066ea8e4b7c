"""MiniMax through Dify's official MiniMax model plugin (Anthropic-compatible Messages API),
``minimax-m2.5`` (``MiniMax-M2.5``, interleaved thinking, always on); ``minimax-m3`` is served too.

Model plugin: ``langgenius/dify-official-plugins`` ``models/minimax/models/llm/llm.py``
(``MinimaxLargeLanguageModel``: ``_convert_prompt_messages``,
``_convert_prompt_message_to_anthropic_message``, ``_handle_chat_generate_response``,
``_handle_chat_generate_stream_response``) and ``models/minimax/models/llm/_functional.py``
(``merge_consecutive_messages``, ``render_assistant_text``, ``normalize_thinking_payload``,
``generation_options``), calling ``https://api.minimax.io/anthropic`` with the Anthropic SDK.

Chunk shapes (what a strategy receives):

* streamed: a ``"<think>\\n"`` chunk when the thinking block starts, one chunk per thinking
  delta, ``"\\n</think>\\n"`` when the first text delta or ``tool_use`` block comes (or at the
  end), then the text deltas; tool calls are not streamed: the last chunk (index 0, content
  ``""``) carries the complete tool calls, ``usage``, ``finish_reason`` (``tool_calls`` or
  ``stop``) and ``opaque_body = {"minimax_anthropic_content": [...]}``: the reply's blocks in
  order (``thinking`` with its ``signature``, ``text``, ``tool_use`` with the parsed input).
* blocking: one chunk (index 0, no finish reason) with content
  ``<think>{thinking}</think>\\n{text}``, the tool calls (arguments ``json.dumps(input)``),
  usage and the same ``opaque_body``.
* ``exclude_reasoning_tokens`` (default on for ``MiniMax-M3`` only) hides the thinking from the
  content, streamed and blocking: then it travels only in ``opaque_body``.

Conversion (the request the provider sees): system messages become ``system`` (joined by a
newline); a user message becomes text/media blocks (``[{"type": "text", "text": ""}]`` when
empty); a tool message becomes a user message with one ``tool_result`` block; an assistant
message **with tool calls whose ``opaque_body`` holds the block list** is replayed as exactly
those blocks; any other assistant message becomes a ``text`` block of its whole content
(``<think>`` block included, as plain text) plus one ``tool_use`` per call (an empty text block
when there is nothing); the plugin's fallback (thinking blocks remembered on the model object)
never applies, because Dify builds a fresh model instance for every invocation; consecutive
messages of one role are merged (blocks concatenated); no messages at all become one user
``" "``. ``thinking`` is sent only when the model parameters ask for it (M3: ``adaptive``).

Provider rules enforced (https://platform.minimax.io/docs/api-reference/text-anthropic-api,
https://platform.minimax.io/docs/api-reference/text-chat-anthropic; messages as MiniMax's
400 ``bad_request_error`` words them, code 2013):

* "In multi-turn function call conversations, the complete model response (i.e., the
  assistant message) must be appended to the conversation history" (thinking/text/tool_use
  blocks): with thinking on (M2.x always, M3 unless ``{"type": "disabled"}``), each assistant
  turn with ``tool_use`` in the current tool loop (after the last user text) starts with its
  signed ``thinking`` (or ``redacted_thinking``) block. The doc states this as a must without
  naming the error; this backend refuses, in Anthropic's wording, as a lost thinking block is
  the loss it exists to catch;
* a ``tool_result`` answers a ``tool_use`` of the assistant message right before it
  ("invalid params, tool result's tool id(X) not found (2013)"); every ``tool_use`` is answered
  in the next message ("invalid params, tool call and result not match (2013)");
* no message without content except a final assistant one (the Messages API rule; MiniMax
  reports "chat content is empty" for an empty conversation);
* ``MiniMax-M3`` refuses ``thinking.type`` ``enabled`` ("allowed: adaptive, disabled").

Tools missing while the history holds tool blocks is not a documented MiniMax refusal (not
enforced). The Messages-API roles user/assistant alternate by construction (the plugin merges).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from itertools import groupby
from typing import Any

from local_runner.contracts.base import ContractBackend, Reply
from local_runner.contracts.moonshot import role_of

OPAQUE_KEY = "minimax_anthropic_content"
MODEL_ALIASES = {
    "minimax-m3": "MiniMax-M3",
    "minimax-m2.7": "MiniMax-M2.7",
    "minimax-m2.7-highspeed": "MiniMax-M2.7-highspeed",
    "minimax-m2.7lightning": "MiniMax-M2.7-highspeed",
    "minimax-m2.7-lightning": "MiniMax-M2.7-highspeed",
    "minimax-m2.5": "MiniMax-M2.5",
    "minimax-m2.5lightning": "MiniMax-M2.5-highspeed",
    "minimax-m2.5-lightning": "MiniMax-M2.5-highspeed",
    "minimax-m2.1": "MiniMax-M2.1",
    "minimax-m2.1-lightning": "MiniMax-M2.1-highspeed",
    "minimax-m2": "MiniMax-M2",
    "minimax-m2-her": "MiniMax-M2",
    "minimax-m1": "MiniMax-M2.5",
}
"""The plugin's ``MODEL_ALIASES``: Dify model name -> API model name."""
MEDIA = {"image": "image", "image_url": "image", "video": "video", "video_url": "video", "document": "document", "document_url": "document"}


def resolve_model(model: str) -> str:
    """The API model name the plugin sends for Dify's ``model``."""
    return MODEL_ALIASES.get(model, MODEL_ALIASES.get(model.lower(), model))


def text_of_parts(content: Any) -> str:
    """The plugin's ``text_content``: a string, or its text parts joined by a space."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return str(content)
    return " ".join(filter(None, (str(p.get("data") or p.get("text") or "") for p in content if p.get("type") == "text")))


def _user_block(part: dict[str, Any]) -> dict[str, Any] | None:
    kind = part.get("type")
    if kind == "text":
        return {"type": "text", "text": str(part.get("data") or part.get("text") or "")}
    media = MEDIA.get(str(kind))
    if media is None:
        return None
    data = (part.get("url") or (f"data:{part.get('mime_type', '')};base64,{part['base64_data']}" if part.get("base64_data") else "")).strip()
    if not data:
        return None
    if data.startswith("data:") and ";base64," in data:
        header, encoded = data.split(";base64,", 1)
        return {"type": media, "source": {"type": "base64", "media_type": header.removeprefix("data:"), "data": encoded}}
    return {"type": media, "source": {"type": "url", "url": data}}


def parse_arguments(arguments: str) -> dict[str, Any]:
    """The plugin's ``parse_json_object``: a dict, ``{"raw": ...}`` or ``{"value": ...}``."""
    try:
        value = json.loads(arguments or "{}")
    except (json.JSONDecodeError, TypeError):
        return {"raw": arguments}
    return value if isinstance(value, dict) else {"value": value}


def signature(thinking: str) -> str:
    """A deterministic stand-in for MiniMax's thinking-block signature (a hex digest)."""
    return hashlib.sha256(thinking.encode()).hexdigest()


class MiniMaxContract(ContractBackend):
    """MiniMax M2.5 behind the official MiniMax model plugin (see the module docstring)."""

    name = "minimax"
    plugin_source = (
        "langgenius/dify-official-plugins models/minimax/models/llm/llm.py "
        "(+ models/minimax/models/llm/_functional.py)"
    )
    provider_doc = "https://platform.minimax.io/docs/api-reference/text-anthropic-api"
    provider = "langgenius/minimax/minimax"
    model = "minimax-m2.5"
    features = ("agent-thought", "tool-call", "stream-tool-call")

    # -- conversion -----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = dict(request.get("completion_params") or {})
        api_model = resolve_model(str(request.get("model") or ""))
        system: list[str] = []
        converted: list[dict[str, Any]] = []
        for message in request.get("prompt_messages") or []:
            role = role_of(message)
            if role == "system":
                text = text_of_parts(message.get("content"))
                if text:
                    system.append(text)
                continue
            one = self._convert(message, role)
            if one is not None:
                converted.append(one)
        if not converted:
            converted = [{"role": "user", "content": [{"type": "text", "text": " "}]}]
        messages = [
            {"role": role, "content": [block for m in group for block in m["content"] if isinstance(block, dict)]}
            for role, group in groupby(converted, key=lambda m: m["role"])
        ]
        body: dict[str, Any] = {"model": api_model, "messages": messages, "max_tokens": int(params.get("max_tokens") or 1024),
                                "stream": bool(request.get("stream", True))}
        if system:
            body["system"] = "\n".join(system)
        thinking = self.thinking_payload(params.get("thinking"), int(params.get("thinking_budget") or 1024), api_model)
        if thinking:
            body["thinking"] = thinking
        tools = request.get("tools") or []
        if tools:
            body["tools"] = [
                {"name": t.get("name"), "description": t.get("description") or "",
                 "input_schema": t.get("parameters") if isinstance(t.get("parameters"), dict) else {}}
                for t in tools
            ]
        return body

    @staticmethod
    def _convert(message: dict[str, Any], role: str) -> dict[str, Any] | None:
        content = message.get("content")
        if role == "user":
            if not isinstance(content, list):
                return {"role": "user", "content": [{"type": "text", "text": text_of_parts(content)}]}
            blocks = [b for b in (_user_block(p) for p in content) if b is not None]
            return {"role": "user", "content": blocks or [{"type": "text", "text": ""}]}
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id") or "", "content": text_of_parts(content)}
            return {"role": "user", "content": [block]}
        if role != "assistant":
            return None
        calls = message.get("tool_calls") or []
        opaque = message.get("opaque_body")
        replayed = opaque.get(OPAQUE_KEY) if isinstance(opaque, dict) else None
        replayed = [b for b in replayed if isinstance(b, dict)] if isinstance(replayed, list) else []
        if calls and replayed:
            return {"role": "assistant", "content": replayed}
        blocks: list[dict[str, Any]] = []
        text = text_of_parts(content)
        if text:
            blocks.append({"type": "text", "text": text})
        for call in calls:
            function = call.get("function") or {}
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                           "input": parse_arguments(function.get("arguments") or "{}")})
        return {"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]}

    @staticmethod
    def thinking_payload(thinking: Any, budget: int, api_model: str) -> dict[str, Any] | None:
        """The plugin's ``normalize_thinking_payload``."""
        if isinstance(thinking, dict):
            return dict(thinking)
        kind = thinking.strip().lower() if isinstance(thinking, str) else thinking
        if kind == "adaptive":
            return {"type": "adaptive"}
        if kind is True or kind in ("enabled", "true"):
            return {"type": "adaptive"} if api_model == "MiniMax-M3" else {"type": "enabled", "budget_tokens": max(1024, budget)}
        return None

    # -- provider rules -------------------------------------------------------------------------

    @staticmethod
    def thinking_on(body: dict[str, Any]) -> bool:
        """Whether the model thinks: M2.x always, M3 unless disabled (adaptive by default)."""
        model = str(body.get("model", ""))
        kind = (body.get("thinking") or {}).get("type")
        if model.startswith("MiniMax-M2"):
            return True
        if model == "MiniMax-M3":
            return kind != "disabled"
        return kind in ("enabled", "adaptive")

    def check(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        if not messages:
            self.reject("invalid params, chat content is empty (2013)")
        if body.get("model") == "MiniMax-M3" and (body.get("thinking") or {}).get("type") == "enabled":
            self.reject('invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)')
        for index, message in enumerate(messages):
            blocks = message["content"]
            empty = all(b.get("type") == "text" and not str(b.get("text", "")).strip() for b in blocks)
            if empty and not (message["role"] == "assistant" and index == len(messages) - 1):
                self.reject(f"messages.{index}: all messages must have non-empty content except for the optional final assistant message")
            if message["role"] == "user":
                before = messages[index - 1] if index else None
                known = {b.get("id") for b in before["content"] if b.get("type") == "tool_use"} if before and before["role"] == "assistant" else set()
                for block in blocks:
                    if block.get("type") == "tool_result" and block.get("tool_use_id") not in known:
                        self.reject(f"invalid params, tool result's tool id({block.get('tool_use_id')}) not found (2013)")
            else:
                uses = {b.get("id") for b in blocks if b.get("type") == "tool_use"}
                after = messages[index + 1] if index + 1 < len(messages) else None
                answered = {b.get("tool_use_id") for b in after["content"] if b.get("type") == "tool_result"} if after else set()
                if uses - answered:
                    self.reject("invalid params, tool call and result not match (2013)")
        if self.thinking_on(body):
            self._check_thinking(messages)

    def _check_thinking(self, messages: list[dict[str, Any]]) -> None:
        """The current tool loop's assistant turns keep their signed thinking block first."""
        last_user = max(
            (i for i, m in enumerate(messages) if m["role"] == "user" and any(b.get("type") != "tool_result" for b in m["content"])),
            default=-1,
        )
        for index in range(last_user + 1, len(messages)):
            blocks = messages[index]["content"]
            if messages[index]["role"] != "assistant" or not any(b.get("type") == "tool_use" for b in blocks):
                continue
            first = blocks[0]
            signed = first.get("type") == "redacted_thinking" or (
                first.get("type") == "thinking" and first.get("signature") and str(first.get("thinking", "")).strip()
            )
            if not signed:
                self.reject(
                    f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first.get('type')}`. "
                    "The complete assistant message (its thinking/text/tool_use blocks) must be appended to the history "
                    "to keep the reasoning chain."
                )

    # -- chunks ---------------------------------------------------------------------------------

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        params = request.get("completion_params") or {}
        body = self.to_provider({**request, "prompt_messages": []})
        hide = params.get("exclude_reasoning_tokens", body["model"] == "MiniMax-M3") is True
        thinking = reply.reasoning if self.thinking_on(body) else ""
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking, "signature": signature(thinking)})
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls]
        calls = [self.tool_call_dict(call) for call in reply.calls]
        opaque = {OPAQUE_KEY: blocks} if blocks else None
        usage = self.usage(request, reply)
        if not stream:
            content = reply.text if hide or not thinking else f"<think>{thinking}</think>\n{reply.text}"
            yield self.chunk(request, 0, content=content, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        open_think = False
        if thinking and not hide:
            yield self.chunk(request, 0, content="<think>\n")
            open_think = True
            half = max(1, len(thinking) // 2)
            for piece in (thinking[:half], thinking[half:]):
                if piece:
                    yield self.chunk(request, 0, content=piece)
        next_index = 1 if thinking else 0
        if reply.text:
            if open_think:
                yield self.chunk(request, next_index, content="\n</think>\n")
                open_think = False
            for i in range(0, len(reply.text), 6):
                yield self.chunk(request, next_index, content=reply.text[i : i + 6])
            next_index += 1
        if calls and open_think:
            yield self.chunk(request, next_index, content="\n</think>\n")
            open_think = False
        if open_think:
            yield self.chunk(request, 0, content="\n</think>\n")
        yield self.chunk(request, 0, tool_calls=calls, opaque_body=opaque, usage=usage, finish_reason=reply.finish_reason)


__all__ = ["MiniMaxContract"]
