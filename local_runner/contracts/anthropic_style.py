"""Model plugins that speak Anthropic's Messages API: MiniMax (M2, interleaved thinking) and
Anthropic (Claude).

Conversion (``langgenius/dify-official-plugins`` ``models/minimax/models/llm/llm.py`` and
``models/anthropic/models/llm/llm.py``): system messages become ``system``; an assistant
message becomes content blocks: for MiniMax, when it has tool calls and its ``opaque_body``
holds the reply's Anthropic blocks (``minimax_anthropic_content``), exactly those blocks
(thinking with its signature, text, ``tool_use``); otherwise its text (a leading ``<think>``
block dropped when thinking blocks are put back) and one ``tool_use`` per call; tool messages
become ``tool_result`` blocks in a user message; consecutive messages of one role are merged.
Both plugins also remember the last reply's thinking blocks in the plugin object; Dify may run
several plugin instances, so these backends serve every request as a fresh instance would:
only what the request carries counts.

Stream: thinking as a ``<think>`` block in the content, then the text, the tool calls complete
in one chunk, and a last chunk with usage, ``finish_reason`` and (MiniMax) the ``opaque_body``.
Blocking: one chunk with all of it.

Provider rules enforced (https://docs.anthropic.com/en/docs/build-with-claude/tool-use,
https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking): a ``tool_result``
answers a ``tool_use`` of the assistant message right before it and every ``tool_use`` is
answered; a request whose history holds tool blocks must declare tools; text blocks must not
be empty; with thinking on, the assistant turn of the current tool loop starts with its
signed thinking block.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import ContractBackend, Reply, text_of

_THINK_PREFIX = "<think>"


def _strip_leading_think(text: str) -> str:
    if not text.startswith(_THINK_PREFIX) or "</think>" not in text:
        return text
    return text[text.index("</think>") + len("</think>") :].lstrip("\n")


class AnthropicStyleContract(ContractBackend):
    """Shared Messages-API conversion, rules and chunk shapes."""

    opaque_key: str | None = None
    """The ``opaque_body`` key holding the reply's content blocks (None: the plugin keeps none)."""
    thinking = False

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        for message in request.get("prompt_messages") or []:
            role = message.get("role")
            if role == "system":
                system.append(text_of(message.get("content")))
                continue
            converted = self._convert(message)
            if messages and messages[-1]["role"] == converted["role"]:
                messages[-1]["content"] = [*messages[-1]["content"], *converted["content"]]
            else:
                messages.append(converted)
        return {"model": request.get("model"), "system": "\n".join(system), "messages": messages,
                "tools": request.get("tools") or None, "thinking": self.thinking}

    def _convert(self, message: dict[str, Any]) -> dict[str, Any]:
        role = message.get("role")
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": text_of(message.get("content"))}
            return {"role": "user", "content": [block]}
        if role != "assistant":
            return {"role": "user", "content": [{"type": "text", "text": text_of(message.get("content"))}]}
        calls = message.get("tool_calls") or []
        opaque = message.get("opaque_body")
        if self.opaque_key and calls and isinstance(opaque, dict) and isinstance(opaque.get(self.opaque_key), list):
            return {"role": "assistant", "content": list(opaque[self.opaque_key])}
        blocks: list[dict[str, Any]] = []
        text = text_of(message.get("content"))
        if text:
            blocks.append({"type": "text", "text": text})
        for call in calls:
            function = call.get("function") or {}
            blocks.append({"type": "tool_use", "id": call.get("id"), "name": function.get("name"),
                           "input": json.loads(function.get("arguments") or "{}")})
        return {"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]}

    def check(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        has_tool_blocks = any(b.get("type") in ("tool_use", "tool_result") for m in messages for b in m["content"])
        if has_tool_blocks and not body.get("tools"):
            self.reject("Requests which include `tool_use` or `tool_result` blocks must define tools.")
        for message in messages:
            if any(b.get("type") == "text" and not b.get("text", "").strip() for b in message["content"]):
                self.reject("messages: text content blocks must be non-empty")
        for position, message in enumerate(messages):
            uses = {b["id"] for b in message["content"] if b.get("type") == "tool_use"} if message["role"] == "assistant" else set()
            after = messages[position + 1] if position + 1 < len(messages) else None
            results = {b["tool_use_id"] for b in after["content"] if b.get("type") == "tool_result"} if after else set()
            if uses and after is not None and uses - results:
                self.reject(f"tool_use ids were found without tool_result blocks immediately after: {sorted(uses - results)}")
            if message["role"] == "user":
                before = messages[position - 1] if position else None
                given = {b["tool_use_id"] for b in message["content"] if b.get("type") == "tool_result"}
                known = {b["id"] for b in before["content"] if b.get("type") == "tool_use"} if before else set()
                if given - known:
                    self.reject(f"unexpected `tool_use_id` found in `tool_result` blocks: {sorted(given - known)}")
        if self.thinking:
            self._check_thinking(messages)

    def _check_thinking(self, messages: list[dict[str, Any]]) -> None:
        """With thinking on, the last assistant turn, when the request goes on from its tool
        results, must start with a signed thinking block."""
        if len(messages) < 2 or messages[-2]["role"] != "assistant":
            return
        last = messages[-2]["content"]
        if not any(b.get("type") == "tool_use" for b in last):
            return
        first = last[0]
        if first.get("type") not in ("thinking", "redacted_thinking") or (first.get("type") == "thinking" and not first.get("signature")):
            self.reject(
                f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block."
            )

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        think = f"<think>\n{reply.reasoning}\n</think>" if self.reasoning else ""
        calls = [self.tool_call_dict(call) for call in reply.calls]
        blocks: list[dict[str, Any]] = []
        if self.reasoning:
            blocks.append({"type": "thinking", "thinking": reply.reasoning, "signature": f"sig-{len(self.requests)}"})
        if reply.text:
            blocks.append({"type": "text", "text": reply.text})
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls]
        opaque = {self.opaque_key: blocks} if self.opaque_key else None
        usage = self.usage(request, reply)
        if not stream:
            yield self.chunk(request, 0, content=think + reply.text, tool_calls=calls, opaque_body=opaque, usage=usage)
            return
        pieces = ([think[:10], think[10:]] if think else []) + [reply.text[i : i + 5] for i in range(0, len(reply.text), 5)]
        for index, piece in enumerate(pieces):
            yield self.chunk(request, index, content=piece)
        if calls:
            yield self.chunk(request, len(pieces), tool_calls=calls)
        yield self.chunk(request, len(pieces) + 1, opaque_body=opaque, usage=usage, finish_reason=reply.finish_reason)


class MiniMaxContract(AnthropicStyleContract):
    """MiniMax M2 (interleaved thinking, always on) behind the official MiniMax model plugin."""

    name = "minimax"
    plugin_source = "langgenius/dify-official-plugins models/minimax/models/llm/llm.py"
    provider_doc = "https://platform.minimax.io/docs/guides/text-m2-function-call"
    provider = "langgenius/minimax/minimax"
    model = "MiniMax-M2"
    opaque_key = "minimax_anthropic_content"
    thinking = True


class AnthropicContract(AnthropicStyleContract):
    """Claude behind the official Anthropic model plugin, thinking off (the plugin's default):
    the Messages API rules on tool blocks and empty text."""

    name = "anthropic"
    plugin_source = "langgenius/dify-official-plugins models/anthropic/models/llm/llm.py"
    provider_doc = "https://docs.anthropic.com/en/docs/build-with-claude/tool-use"
    provider = "langgenius/anthropic/anthropic"
    model = "claude-sonnet-4-5"
    features = ("tool-call", "multi-tool-call", "agent-thought", "stream-tool-call", "vision")
    reasoning = False
