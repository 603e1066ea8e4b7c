"""Model plugins on the SDK's OpenAI-compatible base that keep its stream handler and its
conversion: SiliconFlow (the contract here), and in the same way xAI, Mistral AI and the other
plugins docs/providers.md lists as "the SDK base unchanged for this purpose".

Model plugin: ``langgenius/dify-official-plugins`` ``models/siliconflow/models/llm/llm.py``
(commits 6a51116b32af6df0c9c6f2fb2e4958de51d461d7 and 00829a579979f577185fea59dee6f0dfeff3db34:
``_clean_messages`` merges consecutive assistant or user messages, SiliconFlow's error 20015)
on ``OAICompatLargeLanguageModel`` (dify-plugin 0.10.2,
``dify_plugin/interfaces/model/openai_compatible/llm.py``). Model: ``Qwen/Qwen3-8B`` with
``enable_thinking`` (sent as the top-level field SiliconFlow reads).

Chunks (the base's ``_handle_generate_stream_response`` and ``_wrap_thinking_by_reasoning_content``):

* streamed: ``reasoning_content`` deltas become content opened by ``<think>\\n``; the first delta
  with content or a tool call closes the block with ``\\n</think>`` (and its text); a block still
  open at the end is closed by a chunk ``\\n</think>``; tool-call deltas are merged by id (an
  id-less delta extends the last call) and sent complete in one chunk after the text; then a last
  chunk with content ``""``, ``finish_reason`` and usage. No ``opaque_body``.
* blocking (``_handle_generate_response``): ``message.content`` and the tool calls; the
  ``reasoning_content`` is dropped.

Request (the base's ``_convert_prompt_message_to_dict``): an assistant message goes as
``{"role": "assistant", "content": <as received>, "tool_calls": [...]}``, the ``<think>`` block
included (no ``reasoning_content`` field is ever sent); tool messages as
``{"role": "tool", "content", "tool_call_id"}``.

What must come back: the call ids (SiliconFlow pairs results by id). The reasoning reaches the
model only as the text of the content's ``<think>`` block, the one form this plugin can carry.

Provider rules enforced: OpenAI-style tool pairing; an assistant message needs content or tool
calls; no two messages of one role in a row other than tool messages (SiliconFlow's 20015,
https://docs.siliconflow.cn/en/api-reference/chat-completions/chat-completions).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any, ClassVar

from local_runner.contracts.base import BrainCall, Reply, chat_tool_calls, enum_value
from local_runner.contracts.openai_compatible import OpenAICompatibleContract


class SDKBaseContract(OpenAICompatibleContract):
    """Qwen3 on SiliconFlow behind the official SiliconFlow model plugin: the SDK's
    OpenAI-compatible base unchanged (see the module docstring)."""

    name = "siliconflow"
    plugin_source = "langgenius/dify-official-plugins models/siliconflow/models/llm/llm.py"
    provider_doc = "https://docs.siliconflow.cn/en/api-reference/chat-completions/chat-completions"
    provider = "langgenius/siliconflow/siliconflow"
    model = "Qwen/Qwen3-8B"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}
    reasoning_field = "reasoning_content"
    extended = False

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body = super().to_provider({**request, "prompt_messages": self.merged(request.get("prompt_messages") or [])})
        params = request.get("completion_params") or {}
        if "enable_thinking" in params:  # the base passes the model parameters as they are
            body["enable_thinking"] = params["enable_thinking"]
        return body

    @staticmethod
    def merged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """SiliconFlow's ``_clean_messages``: an assistant message after an assistant message is
        joined to it (texts by a newline, calls in order, ``opaque_body`` dropped); a user message
        after a user message too when both contents are strings."""
        out: list[dict[str, Any]] = []
        for message in messages:
            role = enum_value(message.get("role"))
            last = out[-1] if out else None
            if last is not None and role == enum_value(last.get("role")) == "assistant":
                text = "\n".join(c for c in (last.get("content"), message.get("content")) if c)
                out[-1] = {"role": "assistant", "content": text,
                           "tool_calls": [*(last.get("tool_calls") or []), *(message.get("tool_calls") or [])]}
            elif (last is not None and role == enum_value(last.get("role")) == "user"
                  and isinstance(last.get("content"), str) and isinstance(message.get("content"), str)):
                out[-1] = {"role": "user", "content": last["content"] + "\n" + message["content"]}
            else:
                out.append(message)
        return out

    @staticmethod
    def _message(message: dict[str, Any]) -> dict[str, Any]:
        """The base's conversion: the assistant content goes as it is, reasoning included."""
        role, content = enum_value(message.get("role")), message.get("content")
        if role == "tool":
            return {"role": "tool", "content": content, "tool_call_id": message.get("tool_call_id")}
        converted: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant" and message.get("tool_calls"):
            converted["tool_calls"] = chat_tool_calls(message["tool_calls"])
        if message.get("name") and role != "tool":
            converted["name"] = message["name"]
        return converted

    def check(self, body: dict[str, Any]) -> None:
        super().check(body)
        self.check_roles(body)

    def check_roles(self, body: dict[str, Any]) -> None:
        """SiliconFlow's 20015: no two user or assistant messages in a row."""
        roles = [m["role"] for m in body["messages"]]
        for before, after in itertools.pairwise(roles):
            if before == after and before in ("user", "assistant"):
                self.reject(f"code 20015: consecutive messages with role {before!r}")

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """SiliconFlow's id for a tool call (the upstream server's, passed on)."""
        return f"01{call.id}"

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        if stream:
            yield from self.plugin_stream(reply, request)
            return
        calls = [self.tool_call_dict(c) | {"id": self.call_id(c)} for c in reply.calls]
        yield self.chunk(request, 0, content=reply.text, tool_calls=calls, usage=self.usage(request, reply))


class ReasoningFreeSDKContract(SDKBaseContract):
    """A plugin on the SDK base unchanged, for a model that returns no reasoning and a plugin
    that merges no messages (xAI's ``grok-4.6``, Mistral AI's ``mistral-large-latest``): the
    replies carry text and tool calls only. Subclasses name the plugin, the model and its ids."""

    completion_params: ClassVar[dict[str, Any]] = {}
    reasoning = False

    @staticmethod
    def merged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The plugin merges nothing."""
        return messages

    def emit(self, reply: Reply, request: dict[str, Any], stream: bool) -> Iterator[dict[str, Any]]:
        """The SDK base's chunks of ``reply`` without its reasoning."""
        yield from super().emit(dataclasses.replace(reply, reasoning=""), request, stream)
