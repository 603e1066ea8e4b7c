"""A Doubao thinking model on Volcengine Ark through Dify's official Volcengine model plugin
(``doubao-seed-1.8`` as base model, ``thinking: enabled``, API-key route: Ark v3).

Model plugin: ``langgenius/dify-official-plugins`` ``models/volcengine_maas/models/llm/llm.py``
(commit ff94422455d49c4ac1f4e4faa0b09669e6cee6f8: ``_generate_v3``, ``wrap_thinking``,
``_wrap_thinking_by_reasoning_content``, ``_increase_tool_call``) and
``models/volcengine_maas/models/client.py`` (commit 4d06e41dc7bb656bf9af93091bddcee98aa0ae26:
``ArkClientV3.convert_prompt_message``, ``_extract_reasoning_content``). Not on the SDK's
OpenAI-compatible base: the plugin has its own stream handler and conversion.

Chunks (what a strategy receives):

* streamed: one chunk for every Ark chunk (content ``""`` when it carries none, usage-only
  chunks too); ``reasoning_content`` deltas become content opened by ``<think>\\n``; the first
  delta without reasoning closes the block with ``\\n</think>`` (followed by its text, if any), a
  tool-call delta included; tool-call deltas are merged (a delta with a name starts a call, one
  without extends the last) and sent complete in one chunk after the stream; then a last chunk
  with content ``""``, ``finish_reason`` and usage. No ``opaque_body``.
* blocking: one chunk with ``message.content`` only: the reasoning is dropped, so a blocking
  tool-call turn has none to send back (listed in docs/providers.md under what the strategy
  cannot fix).

Request: an assistant message whose content is a string has every ``<think>…</think>`` block
(case-insensitive) taken out; their texts, stripped and joined by a newline, become the
message's ``reasoning_content``; blank-line runs are squeezed and the rest stripped. A content
list goes as it is (no reasoning extracted). Tool calls go back with their ids; tool messages
as ``{"role": "tool", "content", "tool_call_id"}``. Nothing is merged or dropped.

Provider rules enforced: OpenAI-style tool pairing (Ark's chat API is OpenAI-compatible:
https://www.volcengine.com/docs/82379/1494384); and, for interleaved thinking, a tool-call turn of
the current user turn must carry the ``reasoning_content`` the model produced, unchanged. Ark
serves DeepSeek-V3.2 and GLM-4.7, whose providers document that rule for tool calls (DeepSeek:
https://api-docs.deepseek.com/guides/thinking_mode, a 400 when it is missing; SiliconFlow's
interleaved-thinking guide for the same models: "must be kept as it is and passed back
unchanged"). It is checked here for every reasoning the plugin handed over (the streamed route):
a replay that lost or changed it is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import ContractBackend, Reply, check_tool_pairing, enum_value, pieces

THINK = re.compile(r"<think>(.*?)</think>", re.S | re.I)


def extract_reasoning(text: str) -> tuple[str, str | None]:
    """The plugin's ``_extract_reasoning_content``: (text without its ``<think>`` blocks,
    the blocks' texts stripped and joined by a newline, or None when there is none)."""
    found = THINK.findall(text)
    reasoning = "\n".join(part.strip() for part in found) if found else None
    return re.sub(r"\n\s*\n", "\n\n", THINK.sub("", text)).strip(), reasoning


class VolcengineContract(ContractBackend):
    """Doubao with thinking on, behind the official Volcengine model plugin (see the module
    docstring)."""

    name = "volcengine_maas"
    plugin_source = "langgenius/dify-official-plugins models/volcengine_maas/models/llm/llm.py, models/client.py"
    provider_doc = "https://www.volcengine.com/docs/82379/1494384"
    provider = "langgenius/volcengine_maas/volcengine_maas"
    model = "doubao-seed-1-8"
    completion_params: ClassVar[dict[str, Any]] = {"thinking": "enabled"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.produced: dict[str, str] = {}
        """The reasoning the plugin handed over with each tool call, by call id."""

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = []
        for message in request.get("prompt_messages") or []:
            role, content = enum_value(message.get("role")), message.get("content")
            if role == "tool":
                messages.append({"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")})
                continue
            if role != "assistant":
                messages.append({"role": role, "content": content})
                continue
            reasoning = None
            if isinstance(content, str):
                content, reasoning = extract_reasoning(content)
            converted: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": [
                {"id": c.get("id"), "type": "function", "function": dict(c.get("function") or {})}
                for c in message.get("tool_calls") or []] or None}
            if reasoning:
                converted["reasoning_content"] = reasoning
            messages.append(converted)
        thinking = (request.get("completion_params") or {}).get("thinking")
        return {"model": request.get("model"), "messages": messages, "tools": request.get("tools") or None,
                "thinking": {"type": thinking} if thinking else None}

    def check(self, body: dict[str, Any]) -> None:
        messages = body["messages"]
        check_tool_pairing(self, messages)
        if (body.get("thinking") or {}).get("type") == "disabled":
            return
        last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
        for message in messages[last_user + 1 :]:
            for call in message.get("tool_calls") or []:
                produced = self.produced.get(str(call.get("id")))
                if produced is not None and message.get("reasoning_content") != produced:
                    self.reject("The reasoning_content of an assistant tool-call message in thinking mode must be passed "
                                f"back unchanged (call {call.get('id')!r}).")

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        usage = self.usage(request, reply)
        calls = [self.tool_call_dict(call) for call in reply.calls]
        if not stream:
            yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=usage)
            return
        for call in reply.calls:
            self.produced[call.id] = reply.reasoning
        # Ark's deltas as the plugin's wrap_thinking sees them, (reasoning_content, content): the
        # role chunk, reasoning, text, each call's name and argument pieces, the finish chunk
        deltas = [(None, ""), *((p, "") for p in pieces(reply.reasoning, 24)), *((None, p) for p in pieces(reply.text, 7))]
        for call in reply.calls:
            deltas += [(None, "")] * (1 + len(pieces(json.dumps(call.arguments, ensure_ascii=False), 9)))
        deltas.append((None, ""))
        index, reasoning = 0, False
        for thought, text in deltas:
            index += 1
            if thought:
                out, reasoning = (thought if reasoning else "<think>\n" + thought), True
            elif reasoning:
                out, reasoning = "\n</think>" + text, False
            else:
                out = text
            yield self.chunk(request, index, content=out)
        index += 1
        yield self.chunk(request, index, content="")  # Ark's usage-only chunk
        if calls:
            yield self.chunk(request, index, tool_calls=calls)
        yield self.chunk(request, index, usage=usage, finish_reason=reply.finish_reason)

