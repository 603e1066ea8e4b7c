"""A reasoning model behind Dify's official OpenRouter model plugin (``qwen/qwen3.6-plus``,
reasoning on through ``enable_thinking``).

Model plugin: ``langgenius/dify-official-plugins`` ``models/openrouter/models/llm/llm.py``
(commit 02db2f32514f7bad4e7b5ae1b578da8776646cbd, the newest stored: ``_set_reasoning_params``
with the ``max``/``xhigh`` efforts, ``data_collection: allow``; 43de845… streams the same way). On
the SDK's OpenAI-compatible base with its own ``_handle_generate_stream_response``,
``_handle_generate_response`` and ``_wrap_thinking_by_reasoning_content``.

Chunks:

* streamed: OpenRouter's ``reasoning`` deltas (else ``reasoning_content``) become content opened
  by ``<think>\\n``; only a delta with text closes the block (``\\n</think>`` before the text). A
  tool-call delta does not, and unlike the SDK base the handler closes nothing at the end, so a
  reply of reasoning then calls leaves the block **open**. ``reasoning_details`` (OpenRouter's
  signed or encrypted reasoning) is never read. Tool-call deltas are merged by id (the SDK's
  ``_increase_tool_call``) and sent complete in one chunk after the text; then a last chunk with
  content ``""``, ``finish_reason`` and usage. No ``opaque_body``.
* blocking: ``message.content`` and the tool calls; the reasoning is dropped.

Request: the SDK base's ``_convert_prompt_message_to_dict``: an assistant message's content goes
as it is (``<think>`` block included, nothing stripped), calls with their ids; tool messages as
``{"role": "tool", "content", "tool_call_id"}``.

What must come back: the call ids, and the reasoning block whole: the content is the only place
this plugin carries the model's reasoning, and a block left open would make everything after it
reasoning (a model reads an unclosed ``<think>`` as thinking that never ended).

Provider rules enforced (OpenRouter normalises to OpenAI's chat schema:
https://openrouter.ai/docs/api-reference/overview): tool pairing; an assistant message needs
content or tool calls. OpenRouter refuses no open block, so one is not refused here: it is recorded
in ``open_blocks`` (the assistant contents sent with a ``<think>`` never closed), which the
round-trip tests assert empty.
"""

from __future__ import annotations

from typing import Any, ClassVar

from local_runner.contracts.base import BrainCall, Reply, open_think_blocks
from local_runner.contracts.openai_compatible import _increase
from local_runner.contracts.sdk_base import SDKBaseContract


class OpenRouterContract(SDKBaseContract):
    """Qwen3.6 Plus with reasoning behind the official OpenRouter model plugin (see the module
    docstring)."""

    name = "openrouter"
    plugin_source = "langgenius/dify-official-plugins models/openrouter/models/llm/llm.py"
    provider_doc = "https://openrouter.ai/docs/guides/best-practices/reasoning-tokens"
    provider = "langgenius/openrouter/openrouter"
    model = "qwen/qwen3.6-plus"
    features = ("agent-thought", "tool-call", "multi-tool-call", "stream-tool-call")
    completion_params: ClassVar[dict[str, Any]] = {"enable_thinking": True}
    reasoning_field = "reasoning"

    @staticmethod
    def merged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The OpenRouter plugin merges nothing."""
        return messages

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        body = super().to_provider(request)
        enable = body.pop("enable_thinking", None)
        if enable is not None:  # _set_reasoning_params
            body["reasoning"] = {"enabled": bool(enable)}
        body.setdefault("provider", {}).setdefault("data_collection", "allow")
        return body

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open_blocks: list[str] = []

    def check(self, body: dict[str, Any]) -> None:
        super().check(body)
        self.open_blocks += open_think_blocks(body["messages"])

    def check_roles(self, body: dict[str, Any]) -> None:
        """OpenRouter takes consecutive messages of one role (no SiliconFlow 20015 rule)."""

    @staticmethod
    def call_id(call: BrainCall) -> str:
        """OpenRouter's id for a tool call (the upstream provider's, passed on)."""
        return f"call_{call.id}"

    def plugin_stream(self, reply: Reply, request: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks the plugin's own stream handler yields (re-stated): the block is closed by
        text only, never at the end."""
        chunks: list[dict[str, Any]] = []
        index, reasoning, calls, finish = 0, False, [], None
        for packet in self.packets(reply, request):
            if not packet["choices"]:
                continue
            choice = packet["choices"][0]
            finish = choice.get("finish_reason")
            index += 1
            delta = choice["delta"]
            text = delta.get("content") or ""
            thought = delta.get("reasoning") or delta.get("reasoning_content")
            if thought:
                text, reasoning = (thought if reasoning else "<think>\n" + thought), True
            elif reasoning and text:
                text, reasoning = "\n</think>" + text, False
            for raw in delta.get("tool_calls") or []:
                _increase(calls, raw)  # the SDK's _increase_tool_call
            if not text:
                continue
            chunks.append(self.chunk(request, index, content=text))
            index += 1
        if calls:
            chunks.append(self.chunk(request, index, tool_calls=calls))
        chunks.append(self.chunk(request, index, usage=self.usage(request, reply), finish_reason=finish))
        return chunks
