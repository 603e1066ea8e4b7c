"""GLM on Zhipu's open platform through Dify's official Zhipu AI model plugin (``glm-5.3``,
which always thinks).

Model plugin: ``langgenius/dify-official-plugins`` ``models/zhipuai/models/llm/llm.py``
(commit 387115942ee5a38ec4087db23fd04ef65f6642a1, the newest ``llm.py`` stored; the model files
of ``glm-5.3`` and ``glm-5.3-flash`` came later without a new ``llm.py``).
``ZhipuAILargeLanguageModel`` on the ``zai`` SDK, not the SDK's OpenAI-compatible base.

Request (``_generate``):

* a leading system message with empty content is dropped; a user message after a user message
  is joined to it (``"\\n\\n"``); a user, system or tool message whose content is not a string
  is **dropped** (but a user's list for the vision models);
* an assistant message after an assistant message is joined to it by content only
  (``content += "\\n\\n" + content``): the second one's **tool calls are lost**, and a ``None``
  content makes the plugin fail (``TypeError``);
* an assistant message goes as ``{"role", "content", "tool_calls": [{"id", "type",
  "function": {"name", "arguments"}}]}`` (ids as received); a tool message as
  ``{"role": "tool", "content", "tool_call_id"}``; ``stop`` is passed (but for ``glm-4v-plus``).

Chunks (``_handle_generate_stream_response``, ``_handle_generate_response``):

* streamed: a delta with no finish reason and no content is **skipped**, so GLM's
  ``reasoning_content`` deltas never reach the strategy, nor do tool-call deltas before the last
  chunk. Each text delta is a chunk (``index`` 0, Zhipu's choice index). GLM sends the calls whole
  on the finish chunk (``tool_stream`` off): a chunk with content ``""``, every call (Zhipu's ids),
  ``finish_reason`` ``tool_calls`` and usage.
* blocking: the content and the calls; ``reasoning_content`` is dropped (a commented-out line
  shows it was once meant for ``glm-4.1v-thinking-flash``).

What must come back: the call ids (GLM pairs tool messages by ``tool_call_id``), each round as one
assistant message (two in a row lose the second one's calls), tool results as strings. GLM's
reasoning cannot come back: the plugin never hands it over (GLM's "preserved thinking" for
GLM-4.7 and later asks for ``reasoning_content`` on the way back).

Provider rules enforced (https://docs.bigmodel.cn/api-reference/模型-api/对话补全, OpenAI's
chat schema; Zhipu answers ``1214`` for a malformed ``messages``): tool pairing by id; an assistant
message needs content or tool calls.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

from local_runner.contracts.base import (
    BrainCall,
    ContractBackend,
    PluginFailure,
    Reply,
    chat_tool_calls,
    check_chat_history,
    enum_value,
    pieces,
)


class ZhipuAIContract(ContractBackend):
    """``glm-5.3`` behind the official Zhipu AI model plugin (see the module docstring)."""

    name = "zhipuai"
    plugin_source = "langgenius/dify-official-plugins models/zhipuai/models/llm/llm.py"
    provider_doc = "https://docs.bigmodel.cn/cn/guide/capabilities/function-calling"
    provider = "langgenius/zhipuai/zhipuai"
    model = "glm-5.3"
    features = ("multi-tool-call", "agent-thought", "stream-tool-call")
    """``glm-5.3.yaml``'s features."""
    reasoning = False
    """GLM-5.3 reasons, but the plugin drops it: no reply carries reasoning."""

    # -- request ----------------------------------------------------------------------------

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.get("model"), **(request.get("completion_params") or {})}
        body["messages"] = [self._message(m) for m in self.cleaned(request.get("prompt_messages") or [])]
        if request.get("tools"):
            body["tools"] = [{"type": "function", "function": dict(t)} for t in request["tools"]]
        if request.get("stop") and body["model"] != "glm-4v-plus":
            body["stop"] = request["stop"]
        body["stream"] = bool(request.get("stream", True))
        return body

    @staticmethod
    def cleaned(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The plugin's message pass: drops, joins and losses as the module docstring lists."""
        if messages and enum_value(messages[0].get("role")) == "system" and not messages[0].get("content"):
            messages = messages[1:]
        out: list[dict[str, Any]] = []
        for message in messages:
            role, content = enum_value(message.get("role")), message.get("content")
            last_role = enum_value(out[-1].get("role")) if out else None
            if role in ("user", "system", "tool"):
                if not isinstance(content, str):
                    continue
                if role == "user" and last_role == "user":
                    out[-1] = {**out[-1], "content": out[-1]["content"] + "\n\n" + content}
                else:
                    out.append(message)
            elif last_role == "assistant":
                if not isinstance(out[-1].get("content"), str) or not isinstance(content, str):
                    raise PluginFailure('[zhipuai] can only concatenate str (not "NoneType") to str')
                out[-1] = {**out[-1], "content": out[-1]["content"] + "\n\n" + content}
            else:
                out.append(message)
        return out

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            return {"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")}
        converted: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant" and message.get("tool_calls"):
            converted["tool_calls"] = chat_tool_calls(message["tool_calls"], lambda call: call.get("type"))
        return converted

    # -- provider rules ---------------------------------------------------------------------

    def check(self, body: dict[str, Any]) -> None:
        check_chat_history(self, body["messages"], "code 1214: messages[].content must not be empty")

    # -- chunks -----------------------------------------------------------------------------

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """Zhipu's id for a tool call (``call_`` and a number)."""
        return f"call_{zlib.crc32(call.id.encode()) + 8_960_000_000_000_000_000}"

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin yields for GLM's stream (reasoning deltas, text deltas, then the
        finish chunk with every call and usage)."""
        chunks = [self.chunk(request, 0, content=p) for p in pieces(reply.text, 7)]
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        chunks.append(self.chunk(request, 0, tool_calls=calls, usage=self.usage(request, reply), finish_reason=reply.finish_reason))
        return chunks

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=self.usage(request, reply))
